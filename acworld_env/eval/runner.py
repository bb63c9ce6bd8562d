"""The evaluation runner: many episodes, concurrently, with artifacts, resume and a live progress bar.

Each run is one episode in a worker thread (up to ``concurrency`` at once; ``backend="ray"``
sends them to a Ray cluster instead). Nothing is serialised behind a lock: a policy's model
calls happen in its own thread, and LLM policies get ``concurrency`` slots per endpoint.

* A run that fails for an infrastructure reason (a provider outage after retries, a crash) is
  recorded as *unscored* with its reason, never dropped.
* ``resume`` keeps finished, scored runs and reruns only missing or unscored ones.
* Ctrl-C (``KeyboardInterrupt``) stops the evaluation: runs not started are cancelled, runs in
  flight stop at their next decision (unscored, reason ``interrupted``), finished runs are kept,
  and ``summary.json`` / ``results.csv`` are written before :class:`EvalInterrupted` is raised.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..policies.llm.spec import is_llm_spec
from ..policies.specs import resolve_policy
from ..tasks.spec import TaskSpec
from .execute import PolicyFactory, RunOutcome, execute_run, write_files
from .plan import RunSpec, plan_runs, read_kept, run_dir_name, select_tasks, suite_name
from .progress import ProgressBar
from .summary import result_row, summarise, write_summary

__all__ = ["EvalConfig", "EvalInterrupted", "make_factory", "run_dir_name", "run_eval", "select_tasks",
           "suite_name"]

BACKENDS = ("local", "ray")


@dataclass
class EvalConfig:
    """What to evaluate, how, and where to write it."""

    env_id: str
    policy: str
    out: Path
    split: str = "frozen"
    seed: int = 0
    tasks: str | None = None
    concurrency: int = 4
    resume: bool = False
    policy_options: dict[str, Any] = field(default_factory=dict)
    repeats: int = 1
    backend: str = "local"
    address: str | None = None
    """Ray cluster address (``ray://host:10001``, ``auto``); None starts or joins a local instance."""
    ray_cpus_per_run: float = 1.0
    """CPUs Ray reserves per run; a fraction lets model-bound runs outnumber the cluster's CPUs."""


class EvalInterrupted(KeyboardInterrupt):
    """The evaluation was stopped; ``summary`` describes the runs kept (also written to disk)."""

    def __init__(self, summary: dict[str, Any]) -> None:
        super().__init__("evaluation interrupted")
        self.summary = summary


class EpisodeCopies:
    """Per-run copies of one policy built once (for task-independent specs such as LLM policies).

    Building an LLM policy (SDK client, skill files) costs far more than a model call; a shallow
    copy shares the client, skills and endpoint slots, and ``reset`` gives it a fresh episode.
    """

    def __init__(self, prototype: Any) -> None:
        self.prototype = prototype

    def __call__(self, task: TaskSpec, seed: int) -> Any:
        policy = copy.copy(self.prototype)
        policy.reset(seed)
        return policy


def make_factory(config: EvalConfig, probe: TaskSpec | None = None) -> PolicyFactory:
    """The policy factory of ``config``; LLM specs are built once (errors surface here) and copied per run."""
    options = dict(config.policy_options)
    llm = is_llm_spec(config.policy)
    if llm:
        options.setdefault("concurrency", config.concurrency)
    factory = resolve_policy(config.policy, **options)
    if llm and probe is not None:
        prototype = factory(probe, config.seed)
        if hasattr(prototype, "reset"):
            return EpisodeCopies(prototype)
    return factory


def run_eval(config: EvalConfig, *, progress: bool = True, factory: PolicyFactory | None = None) -> dict[str, Any]:
    """Evaluate a policy on an environment's tasks; write artifacts, ``summary.json`` and ``results.csv``.

    ``factory`` overrides the policy spec's factory (local backend only); it is how tests and
    scripts evaluate a policy object that has no registered name.
    """
    if config.backend not in BACKENDS:
        raise ValueError(f"unknown backend {config.backend!r}; use one of {', '.join(BACKENDS)}")
    if config.concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {config.concurrency}")
    tasks = select_tasks(config.env_id, config.split, config.seed, config.tasks)
    if not tasks:
        raise ValueError(f"no task of {config.env_id} matches {config.tasks!r}")
    runs = plan_runs(tasks, seed=config.seed, repeats=config.repeats)
    if config.backend == "ray" and factory is not None:
        raise ValueError("a custom policy factory cannot be shipped to Ray; name the policy by its spec")
    if config.backend == "ray":
        from .ray_backend import require_ray

        require_ray()  # fail before anything runs when Ray is missing
    state = _State(config, runs)
    todo = [r for r in runs if not state.keep(r)]
    if todo and factory is None:
        factory = make_factory(config, todo[0].task)  # a policy that cannot be built fails here, before any run
    state.bar = ProgressBar(len(runs), len(runs) - len(todo), enabled=progress)
    state.bar.seed(list(state.rows.values()))
    start = time.perf_counter()
    state.started_at = time.time()
    try:
        if config.backend == "ray" and todo:
            from .ray_backend import run_on_ray

            run_on_ray(todo, config, state.collect)
        elif todo:
            assert factory is not None
            _run_local(todo, config, factory, state.collect)
    except KeyboardInterrupt:
        state.bar.close()
        raise EvalInterrupted(state.finish(time.perf_counter() - start, interrupted=True)) from None
    except BaseException:
        state.bar.close()
        raise
    state.bar.close()
    return state.finish(time.perf_counter() - start)


def _run_local(runs: list[RunSpec], config: EvalConfig, factory: PolicyFactory,
               collect: Callable[[RunSpec, RunOutcome], None]) -> None:
    """Run in a thread pool; on ``KeyboardInterrupt`` cancel what has not started and drain the rest."""
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=config.concurrency, thread_name_prefix="acworld-run")
    futures: dict[Future[RunOutcome], RunSpec] = {
        pool.submit(execute_run, run, run_dir=config.out / "runs" / run.name, factory=factory,
                    policy_name=config.policy, env_id=config.env_id, stop=stop): run
        for run in runs}
    seen: set[Future[RunOutcome]] = set()
    try:
        for fut in as_completed(futures):
            seen.add(fut)
            collect(futures[fut], fut.result())
    except KeyboardInterrupt:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        _drain([f for f in futures if f not in seen and not f.cancelled()], futures, collect)
        raise
    finally:
        pool.shutdown(wait=False)


def _drain(pending: list[Future[RunOutcome]], futures: dict[Future[RunOutcome], RunSpec],
           collect: Callable[[RunSpec, RunOutcome], None]) -> None:
    """Record runs still in flight as they stop (a second Ctrl-C stops waiting)."""
    try:
        for fut in as_completed(pending):
            if not fut.cancelled() and fut.exception() is None:
                collect(futures[fut], fut.result())
    except KeyboardInterrupt:
        pass


class _State:
    """Rows and stage scores collected in the driver thread, in completion order."""

    def __init__(self, config: EvalConfig, runs: list[RunSpec]) -> None:
        self.config = config
        self.runs = runs
        self.rows: dict[str, dict[str, Any]] = {}
        self.stages: dict[str, dict[str, float]] = {}
        self.executed: list[RunOutcome] = []
        self.started_at = time.time()
        self.bar = ProgressBar(0, 0, enabled=False)

    def run_dir(self, run: RunSpec) -> Path:
        return self.config.out / "runs" / run.name

    def keep(self, run: RunSpec) -> bool:
        """With ``resume``: keep a finished, scored run (its row rebuilt from its artifacts)."""
        if not self.config.resume:
            return False
        score = read_kept(run, self.run_dir(run), self.config.policy)
        if score is None:
            return False
        from ..trace import read_trace
        from .summary import usage_from_trace

        try:
            usage = usage_from_trace(read_trace(self.run_dir(run) / "trace.jsonl"), run.task.actor)
        except (ValueError, OSError):  # an unreadable trace: run it again
            return False
        self.rows[run.key] = result_row(run.task, repeat=run.repeat, seed=run.seed, status="scored",
                                        run_dir=self.run_dir(run), score=score, usage=usage)
        self.stages[run.key] = dict(score.get("stages") or {})
        return True

    def collect(self, run: RunSpec, outcome: RunOutcome) -> None:
        """Take one finished run (writing its artifacts if they came back as bytes)."""
        if outcome.files is not None:
            write_files(self.run_dir(run), outcome.files)
        self.executed.append(outcome)
        row = result_row(run.task, repeat=run.repeat, seed=run.seed, status=outcome.status,
                         run_dir=self.run_dir(run), score=outcome.score, reason=outcome.reason,
                         usage=outcome.usage, wall_s=outcome.wall_s)
        self.rows[run.key] = row
        if outcome.status == "scored":
            self.stages[run.key] = outcome.stages
        self.bar.update(row)

    def finish(self, wall_s: float, *, interrupted: bool = False) -> dict[str, Any]:
        """Write and return the summary of every run collected so far."""
        cfg = self.config
        ordered = [self.rows[r.key] for r in self.runs if r.key in self.rows]
        stages = [self.stages[r.key] for r in self.runs if r.key in self.stages]
        extra = {"repeats": cfg.repeats, "backend": cfg.backend, "concurrency": cfg.concurrency,
                 "interrupted": interrupted, "timing": self.timing(wall_s)}
        summary = summarise(ordered, env_id=cfg.env_id, policy=cfg.policy, split=cfg.split, seed=cfg.seed,
                            stages={"all": stages}, planned=len(self.runs), extra=extra)
        write_summary(cfg.out, ordered, summary)
        return summary

    def timing(self, wall_s: float) -> dict[str, Any]:
        """Slot utilisation of this invocation: busy time of slots / (slots x wall time)."""
        done = self.executed
        busy = sum(o.wall_s for o in done)
        model = sum(float(o.usage.get("latency_s") or 0.0) for o in done)
        slots = self.config.concurrency
        return {
            "runs_executed": len(done), "wall_s": round(wall_s, 3), "busy_s": round(busy, 3),
            "model_s": round(model, 3), "slots": slots,
            "slot_utilisation": round(busy / (slots * wall_s), 4) if done and wall_s > 0 else None,
            "overhead_s_per_run": round((busy - model) / len(done), 4) if done else None,
            "tail_s": round(wall_s - (max(o.started_at for o in done) - self.started_at), 3) if done else None,
        }
