"""The evaluation runner: many episodes, concurrently, with artifacts, resume and a live progress bar.

Model I/O happens in worker threads (one episode per thread, up to ``concurrency``), so a slow
model call never serialises the others. A run that fails for an infrastructure reason (a
provider outage after retries, a crash) is recorded as unscored with its reason, never dropped.
"""

from __future__ import annotations

import fnmatch
import json
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..policies.specs import resolve_policy
from ..tasks.spec import TaskSpec
from ..tasks.suites import load_suite
from .rollout import run_episode
from .summary import summarise, usage_from_trace, write_summary

UNSCORED_FILE = "unscored.json"


@dataclass
class EvalConfig:
    """What to evaluate and where to write it."""

    env_id: str
    policy: str
    out: Path
    split: str = "frozen"
    seed: int = 0
    tasks: str | None = None
    concurrency: int = 4
    resume: bool = False
    policy_options: dict[str, Any] = field(default_factory=dict)


def suite_name(env_id: str) -> str:
    """The task suite behind an environment id (an unversioned id means its latest version)."""
    from ..tasks import families  # noqa: F401  (registers the suites)
    from ..tasks.suites import SUITES

    if env_id in SUITES:
        return env_id
    versions = sorted((k for k in SUITES if k.rsplit("-v", 1)[0] == env_id), key=lambda k: int(k.rsplit("-v", 1)[1]))
    return versions[-1] if versions else env_id


def run_dir_name(task_id: str) -> str:
    """A task id as a folder name."""
    return task_id.replace("/", "__")


def select_tasks(env_id: str, split: str, seed: int, pattern: str | None) -> list[TaskSpec]:
    """The tasks of an environment id, optionally filtered by a glob over task ids."""
    tasks = load_suite(suite_name(env_id), split, seed)
    if pattern:
        tasks = [t for t in tasks if fnmatch.fnmatch(t.task_id, pattern)]
    return tasks


def _row(task: TaskSpec, status: str, run_dir: Path, *, score: dict | None = None, reason: str = "",
         usage: dict | None = None) -> dict[str, Any]:
    return {
        "task_id": task.task_id, "family": task.family, "capability": task.capability, "role": task.role,
        "status": status, "score": score["score"] if score else "", "full_credit": bool(score and score["full_credit"]),
        "loss_group": (score or {}).get("loss_group") or "", "reason": reason, "run_dir": str(run_dir),
        **(usage or {}),
    }


def _existing(task: TaskSpec, run_dir: Path) -> dict[str, Any] | None:
    """The row of a finished, scored run (for --resume), or None."""
    score_file = run_dir / "score.json"
    if not score_file.exists():
        return None
    try:
        score = json.loads(score_file.read_text())
        from ..trace import read_trace

        usage = usage_from_trace(read_trace(run_dir / "trace.jsonl"), task.actor)
    except (ValueError, OSError):
        return None
    if not score.get("valid", False):
        return None
    return _row(task, "scored", run_dir, score=score, usage=usage)


def run_one(task: TaskSpec, config: EvalConfig, factory: Any) -> tuple[dict[str, Any], dict[str, float]]:
    """Run and save one episode; infrastructure failures become an unscored row."""
    run_dir = config.out / "runs" / run_dir_name(task.task_id)
    (run_dir / UNSCORED_FILE).unlink(missing_ok=True)
    try:
        policy = factory(task, config.seed)
        rollout = run_episode(task, policy, seed=config.seed, out_dir=run_dir,
                              extra={"policy": config.policy, "env_id": config.env_id})
    except Exception as exc:  # noqa: BLE001  (any failure of the run is recorded, never dropped)
        reason = f"{type(exc).__name__}: {exc}"
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "score.json").unlink(missing_ok=True)
        (run_dir / UNSCORED_FILE).write_text(json.dumps({"task_id": task.task_id, "reason": reason}) + "\n")
        return _row(task, "unscored", run_dir, reason=reason), {}
    score = rollout.score.to_dict()
    usage = usage_from_trace(rollout.episode.market.trace.records, task.actor)
    return _row(task, "scored", run_dir, score=score, usage=usage), rollout.score.stages


def run_eval(config: EvalConfig, *, progress: bool = True) -> dict[str, Any]:
    """Evaluate a policy on an environment's tasks; write artifacts, summary.json and results.csv."""
    tasks = select_tasks(config.env_id, config.split, config.seed, config.tasks)
    if not tasks:
        raise ValueError(f"no task of {config.env_id} matches {config.tasks!r}")
    factory = resolve_policy(config.policy, **config.policy_options)
    rows: dict[str, dict[str, Any]] = {}
    stages: list[dict[str, float]] = []
    todo = []
    for t in tasks:
        row = _existing(t, config.out / "runs" / run_dir_name(t.task_id)) if config.resume else None
        if row is not None:
            rows[t.task_id] = row
            stages.append(json.loads((Path(row["run_dir"]) / "score.json").read_text())["stages"])
        else:
            todo.append(t)
    lock = threading.Lock()
    bar = _Bar(len(tasks), len(rows), enabled=progress)
    pool = ThreadPoolExecutor(max_workers=max(1, config.concurrency))
    try:
        futures = {pool.submit(run_one, t, config, factory): t for t in todo}
        for fut in as_completed(futures):
            row, st = fut.result()
            with lock:
                rows[row["task_id"]] = row
                if st:
                    stages.append(st)
                bar.update(row)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        bar.close()
        _finish(config, tasks, rows, stages)
        raise
    pool.shutdown(wait=True)
    bar.close()
    return _finish(config, tasks, rows, stages)


def _finish(config: EvalConfig, tasks: list[TaskSpec], rows: dict[str, dict], stages: list) -> dict[str, Any]:
    ordered = [rows[t.task_id] for t in tasks if t.task_id in rows]
    summary = summarise(ordered, env_id=config.env_id, policy=config.policy, split=config.split,
                        seed=config.seed, stages={"all": stages})
    summary["planned"] = len(tasks)
    write_summary(config.out, ordered, summary)
    return summary


class _Bar:
    """A rich progress bar: done/total, ETA, running mean score and unscored count."""

    def __init__(self, total: int, done: int, *, enabled: bool) -> None:
        self.enabled = enabled
        self.scores: list[float] = []
        self.unscored = 0
        if not enabled:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(TextColumn("[bold]eval"), BarColumn(), MofNCompleteColumn(),
                                 TimeRemainingColumn(), TextColumn("{task.fields[stats]}"), transient=False)
        self.progress.start()
        self.task = self.progress.add_task("eval", total=total, completed=done, stats="")

    def update(self, row: dict[str, Any]) -> None:
        if row["status"] == "scored":
            self.scores.append(float(row["score"]))
        else:
            self.unscored += 1
        if self.enabled:
            mean = sum(self.scores) / len(self.scores) if self.scores else 0.0
            self.progress.update(self.task, advance=1, stats=f"mean {mean:.3f}  unscored {self.unscored}")

    def close(self) -> None:
        if self.enabled:
            self.progress.stop()
