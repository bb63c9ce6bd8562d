"""Statistics over repeated runs of the same tasks: pass^k, a 95 % interval, per-task spread.

``pass^k`` (as tau2-bench defines it) is the chance that *k* runs of a task, drawn from the
*n* made, all earn full credit, averaged over tasks: ``mean_t C(c_t, k) / C(n_t, k)`` with
``c_t`` the task's full-credit runs. With ``k = n`` it is the share of tasks solved in every
run; ``pass^1`` is the plain full-credit rate. An unscored run counts as not solved (it is
reported beside, never dropped).

The interval is over tasks: each task's mean score over its scored repeats, then the mean of
those ± 1.96 standard errors (normal approximation; tasks, not repeats, are the sampled unit).
"""

from __future__ import annotations

import math
from collections import defaultdict
from statistics import mean, pstdev, stdev
from typing import Any


def pass_hat_k(counts: list[tuple[int, int]], k: int) -> float | None:
    """Mean over tasks of ``C(c, k) / C(n, k)`` for ``(n, c)`` pairs with ``n >= k``; None when none has."""
    eligible = [(n, c) for n, c in counts if n >= k]
    if not eligible:
        return None
    return sum(math.comb(c, k) / math.comb(n, k) for n, c in eligible) / len(eligible)


def repeat_stats(rows: list[dict[str, Any]], *, top: int = 5) -> dict[str, Any]:
    """pass^1..pass^n, mean with its 95 % interval, and per-task spread of ``results.csv``-like rows."""
    by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_task[r["task_id"]].append(r)
    if not by_task:
        return {"repeats": 0, "tasks": 0, "pass_hat": {}, "mean": None, "ci95": None, "mean_task_sd": None,
                "most_variable": []}
    counts = [(len(rs), sum(1 for r in rs if r["status"] == "scored" and _full(r))) for rs in by_task.values()]
    n_max = max(n for n, _ in counts)
    task_means: dict[str, float] = {}
    task_sd: dict[str, float] = {}
    for tid, rs in by_task.items():
        scores = [float(r["score"]) for r in rs if r["status"] == "scored"]
        if scores:
            task_means[tid] = mean(scores)
            task_sd[tid] = pstdev(scores) if len(scores) > 1 else 0.0
    overall = mean(task_means.values()) if task_means else None
    ci = None
    if overall is not None:
        half = 1.96 * stdev(task_means.values()) / math.sqrt(len(task_means)) if len(task_means) > 1 else 0.0
        ci = [round(max(0.0, overall - half), 6), round(min(1.0, overall + half), 6)]
    spread = sorted(((sd, tid) for tid, sd in task_sd.items() if sd > 0), key=lambda x: (-x[0], x[1]))
    return {
        "repeats": n_max, "tasks": len(by_task),
        "pass_hat": {str(k): round(v, 6) for k in range(1, n_max + 1)
                     if (v := pass_hat_k(counts, k)) is not None},
        "mean": None if overall is None else round(overall, 6), "ci95": ci,
        "mean_task_sd": round(mean(task_sd.values()), 6) if task_sd else None,
        "most_variable": [[tid, round(sd, 6)] for sd, tid in spread[:top]],
    }


def _full(row: dict[str, Any]) -> bool:
    value = row.get("full_credit")
    return value is True or value == "True"
