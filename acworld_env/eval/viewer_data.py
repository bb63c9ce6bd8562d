"""What the run viewer shows, as plain JSON data: the per-task table and each run's transcript.

Everything is read back from the artifacts (``results.csv`` for the table, each run's verified
trace, commit log and task for its panel), never from a live model. A run that does not verify
is shown with the reason it is unscored, never with a transcript that was not checked.

For each step the transcript carries the platform's verdict (code and message), the World effect
(the event types its commit applied) and the predicate credit gained or lost by that step: the
credits of the trace so far, scored on the World as it stood after the step, minus the credits
before it (the same potential the env's per-step reward uses).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from ..scoring.kinds import CRITICAL
from ..scoring.saved_run import InvalidRun, load_run
from ..scoring.score import score_trace
from ..transcript import describe_action
from ..world.transition import apply_delta
from .report import Evaluation

MAX_ACTION_CHARS = 400
"""Longer action descriptions are cut (the full action stays in the run's trace.jsonl)."""


def _round(x: float) -> float:
    return round(float(x), 4)


def run_panel(run_dir: str | Path) -> dict[str, Any]:
    """One run: task, request, score, predicates with evidence, and the step-by-step transcript."""
    try:
        art = load_run(run_dir)
    except InvalidRun as exc:
        return {"valid": False, "reason": exc.reason, "steps": [], "predicates": []}
    task = art.task
    state = copy.deepcopy(task.initial_state)
    before: dict[str, float] = {}
    events = {c["seq"]: [str(e.get("type")) for e in c["body"]["events"]] for c in art.commits}
    steps = []
    for i, rec in enumerate(art.records):
        if rec.delta:
            apply_delta(state, rec.delta)
        credits = score_trace(task, art.records[: i + 1], state).credits
        changed = {k: _round(v - before.get(k, 0.0)) for k, v in credits.items()
                   if abs(v - before.get(k, 0.0)) > 1e-9}
        before = credits
        v = rec.validation
        text = describe_action(rec.action) if isinstance(rec.action, dict) else str(rec.action)
        steps.append({
            "n": rec.n, "round": rec.round, "actor": rec.actor, "role": rec.role or "market",
            "action": text if len(text) <= MAX_ACTION_CHARS else text[: MAX_ACTION_CHARS - 1] + "…",
            "accepted": bool(v.accepted), "code": v.code, "message": v.message, "replayed": rec.replayed,
            "commit": rec.commit, "effect": events.get(rec.commit, []) if rec.commit is not None else [],
            "credit": changed,
        })
    final = score_trace(task, art.records, art.state)
    preds = [{"id": p.id, "kind": p.kind, "weight": p.weight, "stage": p.stage, "loss_group": p.loss_group,
              "credit": _round(final.credits.get(p.id, 0.0)), "evidence": final.evidence.get(p.id),
              "critical": CRITICAL.get(p.kind)}
             for p in task.predicates]
    return {"valid": True, "reason": "", "actor": task.actor, "request": task.request,
            "score": _round(final.score), "safe_score": _round(final.safe_score),
            "critical_failed": list(final.critical_failed), "full_credit": final.full_credit,
            "loss_group": final.loss_group, "predicates": preds, "steps": steps}


def viewer_data(evals: list[Evaluation]) -> dict[str, Any]:
    """The table (one row per task, a score per policy) and the panel of every run, keyed by run."""
    policies = [e.label for e in evals]
    tasks: dict[str, dict[str, Any]] = {}
    runs: dict[str, dict[str, Any]] = {}
    for p, ev in enumerate(evals):
        for row in ev.rows:
            tid = row["task_id"]
            entry = tasks.setdefault(tid, {"task_id": tid, "family": row["family"], "capability":
                                           row.get("capability", ""), "role": row["role"], "runs": {}})
            key = f"{p}:{tid}:{row.get('repeat') or 0}"
            entry["runs"].setdefault(str(p), []).append(key)
            run_dir = Path(row.get("run_dir") or "")
            if not run_dir.is_absolute() or not run_dir.exists():
                run_dir = ev.path / "runs" / run_dir.name
            panel = run_panel(run_dir) if row["status"] == "scored" else {
                "valid": False, "reason": row.get("reason") or "unscored", "steps": [], "predicates": []}
            panel.update({"policy": ev.label, "task_id": tid, "repeat": row.get("repeat") or "0",
                          "status": row["status"]})
            runs[key] = panel
    for entry in tasks.values():
        entry["scores"] = {}
        for p, keys in entry["runs"].items():
            scores = [runs[k]["score"] for k in keys if runs[k].get("valid")]
            entry["scores"][p] = _round(sum(scores) / len(scores)) if scores else None
    return {"policies": policies, "tasks": sorted(tasks.values(), key=lambda t: t["task_id"]), "runs": runs}
