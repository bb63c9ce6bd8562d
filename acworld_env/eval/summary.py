"""Evaluation summaries: ``summary.json`` and ``results.csv`` from per-run results."""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..scoring import LOSS_GROUPS, STAGES

RESULT_FIELDS = ["task_id", "family", "capability", "role", "status", "score", "full_credit", "loss_group",
                 "reason", "calls", "input_tokens", "output_tokens", "latency_s", "cost_usd", "run_dir"]


def usage_from_trace(records: list[dict[str, Any]], actor: str) -> dict[str, float]:
    """Model usage of one run: calls, tokens, latency and cost summed over the actor's decisions."""
    out = {"calls": 0, "input_tokens": 0, "output_tokens": 0, "latency_s": 0.0, "cost_usd": 0.0}
    for r in records:
        meta = r.get("meta") if r.get("actor") == actor else None
        if not meta:
            continue
        out["calls"] += int(meta.get("calls", 1))
        out["input_tokens"] += int(meta.get("input_tokens") or 0)
        out["output_tokens"] += int(meta.get("output_tokens") or 0)
        out["latency_s"] += float(meta.get("latency_s") or 0.0)
        out["cost_usd"] += float(meta.get("cost_usd") or 0.0)
    return out


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 6) if xs else None


def summarise(rows: list[dict[str, Any]], *, env_id: str, policy: str, split: str, seed: int,
              stages: dict[str, list[dict[str, float]]] | None = None) -> dict[str, Any]:
    """The evaluation summary of result rows (scored and unscored)."""
    scored = [r for r in rows if r["status"] == "scored"]
    unscored = [r for r in rows if r["status"] != "scored"]
    scores = [float(r["score"]) for r in scored]

    def by(key: str) -> dict[str, float | None]:
        groups: dict[str, list[float]] = defaultdict(list)
        for r in scored:
            groups[r[key]].append(float(r["score"]))
        return {k: _mean(v) for k, v in sorted(groups.items())}

    stage_means: dict[str, float | None] = {}
    for stage in STAGES:
        vals = [s[stage] for s in (stages or {}).get("all", []) if stage in s]
        if vals:
            stage_means[stage] = _mean(vals)
    loss = Counter(r["loss_group"] for r in scored if r["loss_group"])
    usage = {k: round(sum(float(r.get(k) or 0) for r in rows), 6)
             for k in ("calls", "input_tokens", "output_tokens", "latency_s", "cost_usd")}
    return {
        "env_id": env_id, "policy": policy, "split": split, "seed": seed,
        "planned": len(rows), "scored": len(scored), "unscored": len(unscored),
        "unscored_reasons": {r["task_id"]: r["reason"] for r in unscored},
        "mean_score": _mean(scores),
        "full": sum(1 for r in scored if r["full_credit"]),
        "partial": sum(1 for r in scored if not r["full_credit"] and float(r["score"]) > 0),
        "zero": sum(1 for r in scored if float(r["score"]) == 0),
        "by_role": by("role"), "by_family": by("family"), "by_capability": by("capability"),
        "by_stage": stage_means,
        "loss_attribution": {g: loss.get(g, 0) for g in (*LOSS_GROUPS, "Mixed")},
        "usage": usage,
    }


def write_summary(out: Path, rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    """Write ``summary.json`` and ``results.csv`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    with open(out / "results.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=RESULT_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for row in sorted(rows, key=lambda r: r["task_id"]):
            writer.writerow(row)
