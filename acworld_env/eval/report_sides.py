"""The report's table of two-sided evaluations (``acworld eval --counterparties agents``): both sides.

Each side (role) of every two-sided evaluation gets a row: the policy that played it, the runs it
played, its mean score by its own rubric over all of them (``results.csv``'s ``buyer_score`` /
``merchant_score``: the evaluated actor's score where it was evaluated, its side's rubric where it
was not), its mean over the runs where it was the evaluated actor, and the evaluation's deal rate
(the share of scored runs that agreed a price). Evaluations of one policy against scripted
counterparties have no row.
"""

from __future__ import annotations

from typing import Any

from .report import Evaluation, TableData, fmt, mean


def _float(value: Any) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def sides_table(evals: list[Evaluation]) -> TableData | None:
    """Both sides of every two-sided evaluation, or None when there is none."""
    rows = []
    for e in evals:
        policies = e.summary.get("policies")
        if not isinstance(policies, dict):
            continue
        scored = e.scored
        deals = [r.get("deal") == "True" for r in scored if r.get("deal") not in (None, "")]
        rate = mean([float(d) for d in deals])
        for role, spec in sorted(policies.items()):
            own = [v for v in (_float(r.get(f"{role}_score")) for r in scored) if v is not None]
            evaluated = [r["score"] for r in scored if r["role"] == role]
            rows.append([e.label, role, str(spec), str(len(own)), fmt(mean(own)), str(len(evaluated)),
                         fmt(mean(evaluated)), fmt(rate)])
    if not rows:
        return None
    return TableData("Both sides", ["evaluation", "role", "policy", "runs", "S", "eval", "S eval", "deals"], rows,
                     "per role: runs it played; S: its mean score over them by its own rubric (where it was not "
                     "the task's evaluated actor, its side's rubric); eval, S eval: the runs where it was the "
                     "evaluated actor and its mean there; deals: share of scored runs that agreed a price")
