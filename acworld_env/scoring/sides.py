"""``sides.json``: what a run with every actor an agent (``counterparties="agents"``) did for each side.

A two-sided run's ``score.json`` is the evaluated actor's score, as in any run. ``sides.json``
beside it holds, for every other actor with a rubric, its own score by its own rubric
(:func:`~acworld_env.core.sides.actor_task`), every actor's role, and the deal: whether a price
was agreed on the negotiated listing, and at what unit price. Everything in it follows from the
task, the trace and the final World state, so verification recomputes it byte for byte (as it
does ``score.json``), and the manifest's ``sides_digest`` covers it in the root digest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..artifacts import write_file
from ..core.sides import actor_task, rubric_actors
from ..core.taskspec import TaskSpec
from .score import score_trace

SIDES_FILE = "sides.json"
SIDES_FORMAT = "acworld-sides/1"
AGENTS = "agents"
"""The ``counterparties`` value of runs that carry a ``sides.json``."""


def agreed_price(task: TaskSpec, state: dict[str, Any]) -> int | None:
    """The unit price of the first agreed thread on the task's negotiated listing (any listing when the
    task names none), or None when no price was agreed."""
    listing = task.mandate.get("listing_id")
    for thr in (state.get("threads") or {}).values():
        if thr.get("agreed_price") is not None and (listing is None or thr.get("listing") == listing):
            return int(thr["agreed_price"])
    return None


def sides_doc(task: TaskSpec, records: list[Any], state: dict[str, Any]) -> dict[str, Any]:
    """The content of ``sides.json`` for a run of ``task`` with this trace and final state."""
    price = agreed_price(task, state)
    return {
        "format": SIDES_FORMAT, "evaluated": task.actor,
        "roles": {a: rec["role"] for a, rec in task.initial_state.get("actors", {}).items()},
        "scores": {a: score_trace(actor_task(task, a), records, state).to_dict() for a in rubric_actors(task)},
        "deal": price is not None, "price": price,
    }


def sides_json(doc: dict[str, Any]) -> str:
    """The one serialisation of ``sides.json`` (verification compares these bytes)."""
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def role_scores(doc: dict[str, Any], evaluated_score: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Per role, the mean ``score`` and ``safe_score`` of its actors in one run (the evaluated actor's
    from ``score.json``, every other actor's from ``sides.json``)."""
    by_role: dict[str, list[dict[str, Any]]] = {}
    scores = {**doc.get("scores", {}), doc["evaluated"]: evaluated_score}
    for actor, score in scores.items():
        by_role.setdefault(doc["roles"][actor], []).append(score)
    return {role: {"score": round(sum(float(s["score"]) for s in group) / len(group), 12),
                   "safe_score": round(sum(float(s.get("safe_score", 0.0)) for s in group) / len(group), 12)}
            for role, group in sorted(by_role.items())}


def write_sides(run_dir: Path, doc: dict[str, Any]) -> None:
    """Create ``sides.json`` in a run folder (a file already there is an error: artifacts are made once)."""
    write_file(Path(run_dir) / SIDES_FILE, sides_json(doc).encode("utf-8"), exclusive=True)
