"""One run of an evaluation, on whatever backend: run the episode, save its artifacts, report the outcome.

Infrastructure failures (a provider outage after retries, a crashing policy, an interrupt
while the episode was in flight) never escape as exceptions: they become an *unscored*
outcome with a reason, and an ``unscored.json`` in the run's folder. Only a
``KeyboardInterrupt`` raised inside the run itself propagates, so the runner can stop.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..policies.specs import PolicyFactory
from .plan import UNSCORED_FILE, RunSpec
from .rollout import Interrupted, run_episode
from .summary import usage_of
from .two_sided import Cast, run_cast


@dataclass
class RunOutcome:
    """What the driver needs of a finished run (artifacts are on disk, or in ``files``)."""

    name: str
    task_id: str
    repeat: int
    seed: int
    status: str
    score: dict[str, Any] | None = None
    reason: str = ""
    usage: dict[str, float] = field(default_factory=dict)
    wall_s: float = 0.0
    started_at: float = 0.0
    """Wall-clock start (``time.time()``), for slot accounting only; never stored in artifacts."""
    files: dict[str, bytes] | None = None
    """Artifact bytes, when the run was made away from the output folder (the Ray backend)."""
    sides: dict[str, Any] | None = None
    """A two-sided run's ``sides.json`` content (every other actor's score, the deal)."""

    @property
    def stages(self) -> dict[str, float]:
        """Stage scores of a scored run."""
        return dict((self.score or {}).get("stages") or {})


def failure_reason(exc: BaseException) -> str:
    """A one-line reason for an unscored run; provider errors name their machine-friendly cause."""
    cause = getattr(exc, "reason", None)
    kind = f"{type(exc).__name__} ({cause})" if isinstance(cause, str) and cause else type(exc).__name__
    return " ".join(f"{kind}: {exc}".split())[:2000]


def execute_run(run: RunSpec, *, run_dir: Path, factory: PolicyFactory, extra: dict[str, Any],
                stop: threading.Event | None = None) -> RunOutcome:
    """Run ``run`` into ``run_dir`` (cleared first); never raises except on ``KeyboardInterrupt``."""
    start, started_at = time.perf_counter(), time.time()
    outcome = RunOutcome(run.name, run.task.task_id, run.repeat, run.seed, "unscored", started_at=started_at)
    try:
        if run_dir.exists():
            shutil.rmtree(run_dir)
        policy = factory(run.task, run.seed)
        should_stop = stop.is_set if stop is not None else None
        if isinstance(policy, Cast):  # every actor an agent, each played by its role's policy
            rollout = run_cast(run.task, policy, seed=run.seed, out_dir=run_dir, extra=extra, should_stop=should_stop)
        else:
            rollout = run_episode(run.task, policy, seed=run.seed, out_dir=run_dir, extra=extra,
                                  should_stop=should_stop)
    except Interrupted:
        outcome.reason = "interrupted"
        mark_unscored(run, run_dir, outcome.reason, {})
    except Exception as exc:  # noqa: BLE001  (any failure of the run is recorded, never dropped)
        outcome.reason = failure_reason(exc)
        outcome.usage = usage_of(getattr(exc, "partial_records", []), run.task, two_sided="policies" in extra)
        mark_unscored(run, run_dir, outcome.reason, outcome.usage)
    else:
        outcome.status = "scored"
        outcome.score = rollout.score.to_dict()
        outcome.sides = rollout.sides
        outcome.usage = usage_of(rollout.episode.market.trace.records, run.task, two_sided=rollout.sides is not None)
    outcome.wall_s = round(time.perf_counter() - start, 6)
    return outcome


def mark_unscored(run: RunSpec, run_dir: Path, reason: str, usage: dict[str, float]) -> None:
    """Leave only ``unscored.json`` in the folder: partial artifacts must not look like a run.

    It records the reason (``interrupted`` when the evaluation was stopped while the run was in
    flight) and the model usage the run had already spent.

    The reason also goes to ``results.csv`` and ``summary.json``, so a folder that cannot be
    written (a full disk) does not lose it.
    """
    try:
        if run_dir.exists():
            shutil.rmtree(run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / UNSCORED_FILE).write_text(json.dumps(
            {"task_id": run.task.task_id, "repeat": run.repeat, "seed": run.seed, "reason": reason,
             "usage": usage},
            sort_keys=True) + "\n")
    except OSError:
        pass


def read_files(run_dir: Path) -> dict[str, bytes]:
    """Every file of a run folder, by name (the folder holds no subfolders)."""
    return {p.name: p.read_bytes() for p in sorted(run_dir.iterdir()) if p.is_file()}


def write_files(run_dir: Path, files: dict[str, bytes]) -> None:
    """Recreate a run folder from :func:`read_files` output (replacing what was there)."""
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    for name, data in files.items():
        if "/" in name or "\\" in name or name in {"", ".", ".."}:
            raise ValueError(f"refusing artifact name {name!r}")
        (run_dir / name).write_bytes(data)
