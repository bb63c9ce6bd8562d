"""The evaluation runner: many episodes, concurrently, with artifacts, resume and a live progress bar.

Each run is one episode in a worker thread (up to ``concurrency`` at once; ``backend="ray"``
sends them to a Ray cluster instead). Nothing is serialised behind a lock: a policy's model
calls happen in its own thread, and LLM policies get ``concurrency`` slots per endpoint. The
threads may be spread over several processes (``processes``; by default two or more only for
LLM policies at 64 slots or more, see :mod:`acworld_env.eval.workers`), with the same artifacts.

* A run that fails for an infrastructure reason (a provider outage after retries, a crash) is
  recorded as *unscored* with its reason, never dropped.
* ``resume`` keeps finished, scored runs and reruns only missing or unscored ones.
* Ctrl-C (``KeyboardInterrupt``) stops the evaluation: runs not started are cancelled, runs in
  flight stop at their next decision (unscored, reason ``interrupted``), finished runs are kept,
  and ``summary.json`` / ``results.csv`` are written before :class:`EvalInterrupted` is raised.
"""

from __future__ import annotations

import gc
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..artifacts import RUN_FILE, read_file, read_json_file, task_files
from ..scoring.sides import SIDES_FILE
from ..tasks.anchor import SuiteIndex
from .audit import RunCheck, check_run
from .config import EvalConfig, make_factory
from .execute import PolicyFactory, RunOutcome, write_files
from .manifest import ManifestError, header_mismatch, read_manifest, run_entry, write_manifest
from .out_lock import OutLock, OutputInUse, prepare_out
from .plan import RunSpec, plan_runs, read_kept, run_dir_name, select_tasks, suite_name
from .progress import ProgressBar
from .runs_folder import make_runs_folder
from .summary import result_row, summarise, write_summary
from .workers import default_processes, run_shared

if TYPE_CHECKING:
    from ..tasks.spec import TaskSpec

__all__ = ["EvalConfig", "EvalInterrupted", "OutputInUse", "make_factory", "run_dir_name", "run_eval", "select_tasks",
           "suite_name"]

BACKENDS = ("local", "ray")


class EvalInterrupted(KeyboardInterrupt):
    """The evaluation was stopped; ``summary`` describes the runs kept (also written to disk)."""

    def __init__(self, summary: dict[str, Any]) -> None:
        super().__init__("evaluation interrupted")
        self.summary = summary


def run_eval(config: EvalConfig, *, progress: bool = True, factory: PolicyFactory | None = None,
             notes: list[str] | None = None) -> dict[str, Any]:
    """Evaluate a policy on an environment's tasks; write artifacts, ``manifest.json``, ``summary.json`` and
    ``results.csv``; return the summary (which carries the evaluation's ``root_digest``).

    The output folder is checked and locked before anything runs (a folder in use by another
    evaluation, a file in its place or an unwritable one raise :class:`OutputInUse`). ``factory``
    overrides the policy spec's factory (local backend only); it is how tests and scripts
    evaluate a policy object that has no registered name. Messages for the user (a stale lock
    taken over, runs kept from before) are appended to ``notes``.
    """
    if config.backend not in BACKENDS:
        raise ValueError(f"unknown backend {config.backend!r}; use one of {', '.join(BACKENDS)}")
    if config.concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {config.concurrency}")
    if config.backend == "ray" and factory is not None:
        raise ValueError("a custom policy factory cannot be shipped to Ray; name the policy by its spec")
    prepare_out(config.out)
    lock = OutLock(config.out).acquire()
    try:
        if lock.took_over is not None and notes is not None:
            who = f"pid {lock.took_over}" if lock.took_over > 0 else "an unreadable lock"
            notes.append(f"took over a stale lock on {config.out} (left by {who}, no longer running)")
        return _run_locked(config, progress=progress, factory=factory, notes=notes)
    finally:
        lock.release()


@contextmanager
def _heap_frozen() -> Iterator[None]:
    """Leave everything alive before the runs (modules, the suite's tasks, the plan, the policy factory)
    out of the collector's passes meanwhile; it goes back to the oldest generation after.

    A full pass over that heap took 0.1-0.4 s and came at no fixed point of an evaluation (0 or 1 per
    200-task pass), so it was the largest swing of a pass's time that was not the file system's. A
    process that keeps its own frozen heap (``acworld serve``) is left as it is.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _run_locked(config: EvalConfig, *, progress: bool, factory: PolicyFactory | None,
                notes: list[str] | None) -> dict[str, Any]:
    tasks = select_tasks(config.env_id, config.split, config.seed, config.tasks)
    if not tasks:
        raise ValueError(f"no task of {config.env_id} matches {config.tasks!r}")
    if config.policies is not None:
        from .two_sided import check_roles

        check_roles(tasks, config.policies)  # every actor's role has its policy, before anything runs
    runs = plan_runs(tasks, seed=config.seed, repeats=config.repeats)
    if config.backend == "ray":
        from .ray_backend import require_ray

        require_ray()  # fail before anything runs when Ray is missing
    state = _State(config, runs)
    state.adopt_previous()
    todo = [r for r in runs if not state.keep(r)]
    if notes is not None:
        notes.extend(state.notes())
    state.processes = default_processes(config, custom_factory=factory is not None)
    if todo and factory is None:
        factory = make_factory(config, todo[0].task)  # a policy that cannot be built fails here, before any run
    state.write_manifest(final=False)
    if todo:
        make_runs_folder(config.out)  # run folders made in it stay cheap after deletions nearby (ext4)
    if todo and config.backend == "local":
        _prepare_first_run()
    state.bar = ProgressBar(len(state.planned), len(state.planned) - len(todo), enabled=progress)
    state.bar.seed(list(state.rows.values()))
    with _heap_frozen():
        return _run_pass(state, todo, factory)


def _prepare_first_run() -> None:
    """Build, before the runs, what the first one would otherwise build inside its own time: the action
    validators, which the package builds on first use to start fast (0.05 s on a quiet machine, up to
    0.5 s on a loaded one: 0.25-2.5 ms per task of a 200-task pass, charged to one run)."""
    from ..vcp.union import IDLE_ACTION, parse_action

    parse_action(IDLE_ACTION)


def _run_pass(state: _State, todo: list[RunSpec], factory: PolicyFactory | None) -> dict[str, Any]:
    """Run ``todo`` and write the summary; the tasks, plan and policy factory are ready."""
    config = state.config
    start = time.perf_counter()
    state.started_at = time.time()
    state.cpu_at = cpu_times()
    try:
        if config.backend == "ray" and todo:
            from .ray_backend import run_on_ray

            run_on_ray(todo, config, state.collect)
        elif todo:
            assert factory is not None
            run_shared(todo, config, factory, state.collect, state.processes)
    except KeyboardInterrupt:
        state.cpu_end = cpu_times()
        state.bar.close()
        raise EvalInterrupted(state.finish(time.perf_counter() - start, interrupted=True)) from None
    except BaseException:
        state.bar.close()
        raise
    wall_s, state.cpu_end = time.perf_counter() - start, cpu_times()
    state.bar.close()
    return state.finish(wall_s)


class _State:
    """Rows and stage scores collected in the driver thread, in completion order."""

    def __init__(self, config: EvalConfig, runs: list[RunSpec]) -> None:
        self.config = config
        self.runs = runs
        self.planned: dict[str, Any] = {r.name: r for r in runs}
        """Every run the summary describes: this plan, then runs kept from before outside it."""
        self.rows: dict[str, dict[str, Any]] = {}
        self.stages: dict[str, dict[str, float]] = {}
        self.entries: dict[str, dict[str, Any]] = {}
        self.executed: list[RunOutcome] = []
        self.kept_from_before: list[str] = []
        self.resumed: list[str] = []
        self.dropped: dict[str, str] = {}
        self.started_at = time.time()
        self.bar = ProgressBar(0, 0, enabled=False)
        self.header = {"env_id": config.env_id, "suite": suite_name(config.env_id), "split": config.split,
                       "seed": config.seed, "policy": config.policy, "repeats": config.repeats}
        if config.policies is not None:
            self.header.update(counterparties=config.counterparties, policies=dict(config.policies))
        self.index = SuiteIndex()
        self.processes = 1
        self.cpu_at = self.cpu_end = cpu_times()
        """This process's CPU times when the runs started and ended (``timing`` gives the pass's own)."""
        self.hashes: dict[str, str] = {}
        """Task hashes by task id (a task's canonical JSON is encoded once, not once per manifest write)."""

    def task_hash(self, task: TaskSpec) -> str:
        """:func:`~acworld_env.tasks.anchor.task_hash` of ``task``, computed once per task id (and shared
        with the runs, which save the same task object: :func:`~acworld_env.artifacts.task_files`)."""
        known = self.hashes.get(task.task_id)
        if known is None:
            known = self.hashes[task.task_id] = task_files(task)[0]
        return known

    def run_dir(self, run: RunSpec | str) -> Path:
        return self.config.out / "runs" / (run if isinstance(run, str) else run.name)

    def adopt_previous(self) -> None:
        """Take stock of a folder written before: same evaluation, or refuse; keep verified runs outside
        this plan (listed as kept), remove runs that fail verification (listed as dropped)."""
        try:
            manifest = read_manifest(self.config.out)
        except ManifestError as exc:
            raise ValueError(f"{exc}; choose another --out") from None
        if manifest is not None:
            clash = header_mismatch(manifest, self.header)
            if clash:
                raise ValueError(f"{self.config.out} holds another evaluation ({clash}); choose another --out")
        runs_dir = self.config.out / "runs"
        if not runs_dir.is_dir():
            return
        for path in sorted(p for p in runs_dir.iterdir() if p.is_dir()):
            if path.name in self.planned:
                continue
            policy = _recorded_policy(path)
            if policy not in (None, self.config.policy):
                raise ValueError(f"{path} holds a run of policy {policy!r}, not {self.config.policy!r}: "
                                 "choose another --out")
            check = check_run(path, self.index)
            if check.status == "failed" or check.task is None or check.entry is None:
                self.dropped[path.name] = check.message
                shutil.rmtree(path, ignore_errors=True)
                continue
            self.planned[path.name] = path.name
            self.kept_from_before.append(path.name)
            self._adopt(path.name, check)

    def _adopt(self, name: str, check: RunCheck) -> None:
        assert check.entry is not None
        self.entries[name] = check.entry
        self.rows[name] = result_row(check.task, repeat=check.entry["repeat"], seed=check.entry["seed"],
                                     status=check.status, run_dir=self.run_dir(name), score=check.score,
                                     reason=check.message if check.status == "unscored" else "",
                                     usage=check.usage, sides=check.sides)
        if check.score is not None:
            self.stages[name] = dict(check.score.get("stages") or {})

    def keep(self, run: RunSpec) -> bool:
        """With ``resume``: keep a finished, scored run that verifies completely (else it runs again)."""
        if not self.config.resume:
            return False
        path = self.run_dir(run)
        if read_kept(run, path, self.config.policy) is None:
            return False
        check = check_run(path, self.index)
        if check.status != "scored" or check.entry is None or check.entry["seed"] != run.seed:
            self.dropped[run.name] = f"{check.message}; run again"
            return False
        self.resumed.append(run.name)
        self._adopt(run.name, check)
        return True

    def notes(self) -> list[str]:
        """What happened to runs found in the folder, for the user."""
        out = []
        if self.kept_from_before:
            out.append(f"kept {len(self.kept_from_before)} verified run(s) from before, outside this selection "
                       "(listed in summary.json as kept_from_before)")
        for name, why in self.dropped.items():
            out.append(f"run {name} from before failed verification ({why}); removed")
        return out

    def collect(self, run: RunSpec, outcome: RunOutcome) -> None:
        """Take one finished run (writing its artifacts if they came back as bytes)."""
        run_dir = self.run_dir(run)
        if outcome.files is not None:
            write_files(run_dir, outcome.files)
        self.executed.append(outcome)
        row = result_row(run.task, repeat=run.repeat, seed=run.seed, status=outcome.status,
                         run_dir=run_dir, score=outcome.score, reason=outcome.reason,
                         usage=outcome.usage, wall_s=outcome.wall_s, sides=outcome.sides)
        self.rows[run.key] = row
        self.entries[run.key] = _entry_on_disk(run, run_dir, outcome, self.task_hash(run.task))
        if outcome.status == "scored":
            self.stages[run.key] = outcome.stages
        self.bar.update(row)

    def write_manifest(self, *, final: bool) -> str:
        """The manifest: every run with its entry (planned runs not finished yet: ``missing``)."""
        entries = []
        for name, spec in self.planned.items():
            if name in self.entries:
                entries.append(self.entries[name])
            else:
                assert isinstance(spec, RunSpec)
                entries.append({"name": name, "task_id": spec.task.task_id, "task_hash": self.task_hash(spec.task),
                                "seed": spec.seed, "repeat": spec.repeat, "status": "missing"})
        return write_manifest(self.config.out, self.header, entries, final=final)

    def finish(self, wall_s: float, *, interrupted: bool = False) -> dict[str, Any]:
        """Write and return the summary of every run collected so far."""
        cfg = self.config
        root = self.write_manifest(final=True)
        ordered = [self.rows[n] for n in self.planned if n in self.rows]
        stages = [self.stages[n] for n in self.planned if n in self.stages]
        extra = {"repeats": cfg.repeats, "backend": cfg.backend, "concurrency": cfg.concurrency,
                 "interrupted": interrupted, "timing": self.timing(wall_s), "root_digest": root,
                 "suite": self.header["suite"], "kept_from_before": sorted(self.kept_from_before),
                 "resumed": sorted(self.resumed), "dropped_from_before": dict(sorted(self.dropped.items()))}
        if cfg.policies is not None:
            extra.update(counterparties=cfg.counterparties, policies=dict(cfg.policies))
        summary = summarise(ordered, env_id=cfg.env_id, policy=cfg.policy, split=cfg.split, seed=cfg.seed,
                            stages={"all": stages}, planned=len(self.planned), extra=extra, policies=cfg.policies)
        write_summary(cfg.out, ordered, summary)
        return summary

    def timing(self, wall_s: float) -> dict[str, Any]:
        """Slot utilisation of this invocation: busy time of slots / (slots x wall time); the CPU time this
        process spent meanwhile (``cpu_s``), and the part of it in the kernel (``system_s``: creating
        the run folders and files, which follows the file system's load)."""
        done, start, end = self.executed, self.cpu_at, self.cpu_end
        busy = sum(o.wall_s for o in done)
        model = sum(float(o.usage.get("latency_s") or 0.0) for o in done)
        slots = self.config.concurrency
        return {
            "runs_executed": len(done), "wall_s": round(wall_s, 3), "busy_s": round(busy, 3),
            "model_s": round(model, 3), "slots": slots, "processes": self.processes,
            "slot_utilisation": round(busy / (slots * wall_s), 4) if done and wall_s > 0 else None,
            "overhead_s_per_run": round((busy - model) / len(done), 4) if done else None,
            "tail_s": round(wall_s - (max(o.started_at for o in done) - self.started_at), 3) if done else None,
            "cpu_s": round(end[0] + end[1] - start[0] - start[1], 3), "system_s": round(end[1] - start[1], 3),
        }


def cpu_times() -> tuple[float, float]:
    """(user, system) CPU seconds of this process so far: to the microsecond where ``getrusage`` exists
    (``os.times`` counts in ticks of 10 ms)."""
    try:
        import resource
    except ImportError:  # not POSIX
        now = os.times()
        return now.user, now.system
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def _recorded_policy(path: Path) -> str | None:
    """The policy a run folder's ``run.json`` names, if any."""
    try:
        value = read_json_file(path / "run.json").get("policy")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return value if isinstance(value, str) else None


def _entry_on_disk(run: RunSpec, path: Path, outcome: RunOutcome, hashed: str) -> dict[str, Any]:
    """A finished run's manifest entry, from the artifacts it left (what verification will read)."""
    common = {"name": run.name, "task_id": run.task.task_id, "task_hash": hashed, "seed": run.seed,
              "repeat": run.repeat}
    if outcome.status == "scored":
        try:
            meta = read_json_file(path / RUN_FILE)
            sides = read_file(path / SIDES_FILE) if outcome.sides is not None else None
            return run_entry(**common, status="scored", run=meta, score_bytes=read_file(path / "score.json"),
                             sides_bytes=sides)
        except (OSError, ValueError):
            return run_entry(**common, status="unscored", reason="artifacts could not be read back")
    return run_entry(**common, status="unscored", reason=outcome.reason)
