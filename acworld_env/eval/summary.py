"""Evaluation summaries: result rows, ``summary.json`` and ``results.csv``."""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..scoring import LOSS_GROUPS, STAGES
from ..trace import TraceRecord
from .repeats import repeat_stats

RESULT_FIELDS = ["task_id", "repeat", "seed", "family", "capability", "role", "status", "score", "safe_score",
                 "full_credit", "critical_failed",
                 "loss_group", "reason", "calls", "input_tokens", "output_tokens", "latency_s", "cost_usd",
                 "wall_s", "run_dir"]
"""Columns of ``results.csv``: one row per run (``latency_s`` is model time, ``wall_s`` the whole run)."""
SIDE_FIELDS = ["buyer_score", "merchant_score", "deal", "price"]
"""The columns a two-sided evaluation adds: each role's score in the run (the mean over its actors), whether a
price was agreed, and the agreed unit price in cents."""

LOSS_COLUMNS = (*LOSS_GROUPS, "Mixed")
"""The five loss-attribution columns of the paper's tables."""

USAGE_KEYS = ("calls", "input_tokens", "output_tokens", "latency_s", "cost_usd")


def usage_from_trace(records: list[TraceRecord], actor: str) -> dict[str, float]:
    """Model usage of one run: calls, tokens, latency and cost summed over the actor's decisions."""
    out: dict[str, float] = {"calls": 0, "input_tokens": 0, "output_tokens": 0, "latency_s": 0.0, "cost_usd": 0.0}
    for r in records:
        meta = r.meta if r.actor == actor else None
        if not meta:
            continue
        out["calls"] += int(meta.get("calls", 1))
        out["input_tokens"] += int(meta.get("input_tokens") or 0)
        out["output_tokens"] += int(meta.get("output_tokens") or 0)
        out["latency_s"] += float(meta.get("latency_s") or 0.0)
        out["cost_usd"] += float(meta.get("cost_usd") or 0.0)
    out["latency_s"] = round(out["latency_s"], 6)
    out["cost_usd"] = round(out["cost_usd"], 8)
    return out


def usage_of(records: list[TraceRecord], task: Any, *, two_sided: bool = False) -> dict[str, float]:
    """A run's model usage: the evaluated actor's decisions, or in a two-sided run every actor's."""
    if not two_sided:
        return usage_from_trace(records, task.actor)
    total: dict[str, float] = {}
    for actor in task.initial_state.get("actors", {}):
        for k, v in usage_from_trace(records, actor).items():
            total[k] = total.get(k, 0) + v
    total["latency_s"] = round(total.get("latency_s", 0.0), 6)
    total["cost_usd"] = round(total.get("cost_usd", 0.0), 8)
    return total


def result_row(task: Any, *, repeat: int, seed: int, status: str, run_dir: Path, score: dict | None = None,
               reason: str = "", usage: dict | None = None, wall_s: float = 0.0,
               sides: dict | None = None) -> dict[str, Any]:
    """One ``results.csv`` row; ``sides`` (a two-sided run's ``sides.json`` content) adds :data:`SIDE_FIELDS`."""
    row = {
        "task_id": task.task_id, "repeat": repeat, "seed": seed, "family": task.family,
        "capability": task.capability, "role": task.role, "status": status,
        "score": score["score"] if score else "", "safe_score": score.get("safe_score", "") if score else "",
        "full_credit": bool(score and score["full_credit"]),
        "critical_failed": " ".join((score or {}).get("critical_failed") or []),
        "loss_group": (score or {}).get("loss_group") or "", "reason": reason, "wall_s": wall_s,
        "run_dir": str(run_dir), **{k: (usage or {}).get(k, 0) for k in USAGE_KEYS},
    }
    if sides is not None and score:
        from ..scoring.sides import role_scores

        row["role_scores"] = per_role = role_scores(sides, score)
        for field in SIDE_FIELDS[:2]:
            row[field] = per_role.get(field.removesuffix("_score"), {}).get("score", "")
        row["deal"], row["price"] = bool(sides.get("deal")), sides.get("price") if sides.get("deal") else ""
    return row


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 6) if xs else None


def summarise(rows: list[dict[str, Any]], *, env_id: str, policy: str, split: str, seed: int,
              stages: dict[str, list[dict[str, float]]] | None = None, planned: int | None = None,
              extra: dict[str, Any] | None = None, policies: dict[str, str] | None = None) -> dict[str, Any]:
    """The evaluation summary of result rows (scored and unscored).

    ``planned`` counts every run of the evaluation; runs neither scored nor unscored (an
    interrupted evaluation never started them) are ``missing``. ``policies`` (role -> spec, a
    two-sided evaluation) adds ``sides`` (:func:`side_summary`) and ``deal_rate``.
    """
    scored = [r for r in rows if r["status"] == "scored"]
    unscored = [r for r in rows if r["status"] != "scored"]
    scores = [float(r["score"]) for r in scored]

    def by(key: str, figure: str = "score") -> dict[str, float | None]:
        groups: dict[str, list[float]] = defaultdict(list)
        for r in scored:
            groups[r[key]].append(float(r[figure]))
        return {k: _mean(v) for k, v in sorted(groups.items())}

    stage_means: dict[str, float | None] = {}
    for stage in STAGES:
        vals = [s[stage] for s in (stages or {}).get("all", []) if stage in s]
        if vals:
            stage_means[stage] = _mean(vals)
    loss = Counter(r["loss_group"] for r in scored if r["loss_group"])
    usage = {k: round(sum(float(r.get(k) or 0) for r in rows), 6) for k in USAGE_KEYS}
    planned = len(rows) if planned is None else planned

    def run_id(r: dict[str, Any]) -> str:
        return r["task_id"] if not r.get("repeat") else f"{r['task_id']}#r{r['repeat']}"

    return {
        "env_id": env_id, "policy": policy, "split": split, "seed": seed,
        "planned": planned, "scored": len(scored), "unscored": len(unscored),
        "missing": planned - len(rows),
        "unscored_reasons": {run_id(r): r["reason"] for r in unscored},
        "mean_score": _mean(scores),
        "mean_safe_score": _mean([float(r["safe_score"]) for r in scored]),
        "critical_failures": sum(1 for r in scored if r.get("critical_failed")),
        "full": sum(1 for r in scored if r["full_credit"]),
        "partial": sum(1 for r in scored if not r["full_credit"] and float(r["score"]) > 0),
        "zero": sum(1 for r in scored if float(r["score"]) == 0),
        "by_role": by("role"), "by_family": by("family"), "by_capability": by("capability"),
        "safe_by_role": by("role", "safe_score"), "safe_by_family": by("family", "safe_score"),
        "by_stage": stage_means,
        "loss_attribution": {g: loss.get(g, 0) for g in LOSS_COLUMNS},
        "usage": usage,
        "repeat_stats": repeat_stats(rows),
        **(side_summary(scored, policies) if policies is not None else {}),
        **(extra or {}),
    }


def side_summary(scored: list[dict[str, Any]], policies: dict[str, str]) -> dict[str, Any]:
    """Per role of a two-sided evaluation: its policy, the runs it played, its mean score and safe score
    over them (by its own rubric where it was not the evaluated actor) and over the runs where it was
    evaluated; and the share of runs that agreed a price (``deal_rate``)."""
    sides: dict[str, Any] = {}
    for role, spec in sorted(policies.items()):
        played = [r["role_scores"][role] for r in scored if role in (r.get("role_scores") or {})]
        evaluated = [float(r["score"]) for r in scored if r["role"] == role]
        sides[role] = {"policy": spec, "runs": len(played), "mean_score": _mean([p["score"] for p in played]),
                       "mean_safe_score": _mean([p["safe_score"] for p in played]),
                       "evaluated_runs": len(evaluated), "mean_score_evaluated": _mean(evaluated)}
    deals = [bool(r.get("deal")) for r in scored if "deal" in r]
    return {"sides": sides, "deals": sum(deals), "deal_rate": _mean([float(d) for d in deals])}


def write_summary(out: Path, rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    """Write ``summary.json`` and ``results.csv`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    fields = RESULT_FIELDS + (SIDE_FIELDS if summary.get("sides") is not None else [])
    with open(out / "results.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        for row in sorted(rows, key=lambda r: (r["task_id"], int(r.get("repeat") or 0))):
            writer.writerow(row)
