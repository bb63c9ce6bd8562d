"""A saved run, read back for scoring: whether it can be scored at all, and what scoring needs of it.

A run is *invalid* (unscored, with a reason) only when its infrastructure failed:
reconstruction fails, a commit lacks an accepted validation, an actor binding is broken,
or an artifact is missing or tampered. A rejected action, an abstention or a poor choice
is an outcome of the evaluated agent, so such a run is valid and scored.

:func:`load_run` returns everything scoring needs (task, trace, reconstructed World
state), read from the artifacts alone; :func:`check_run` is its yes/no form.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..artifacts import LOG_FILE, RUN_FILE, TRACE_FILE, read_json_file, read_log, verify_run
from ..core.errors import AcworldError
from ..core.taskspec import TaskSpec
from ..market import MARKET_ACTOR
from ..trace import TraceError, TraceRecord, read_trace
from ..world import LogError, ReplayError, canonical, reconstruct
from .kinds import KINDS

TASK_FILE, SCORE_FILE = "task.json", "score.json"


class InvalidRun(AcworldError):
    """A run that cannot be scored; ``reason`` says precisely why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class RunArtifacts:
    """A verified run: its task, lineage records and reconstructed final World state."""

    path: Path
    run: dict[str, Any]
    task: TaskSpec
    records: list[TraceRecord]
    state: dict[str, Any]
    state_digest: str
    commits: list[dict[str, Any]]


def check_run(run_dir: str | Path) -> tuple[bool, str]:
    """``(True, "ok")`` for a scoreable run, else ``(False, reason)``. Never raises."""
    try:
        load_run(run_dir)
    except InvalidRun as exc:
        return False, exc.reason
    return True, "ok"


def load_run(run_dir: str | Path) -> RunArtifacts:
    """Verify a run directory and return its artifacts; raise :class:`InvalidRun` otherwise."""
    path = Path(run_dir)
    try:
        verification = verify_run(path)
        if not verification.ok:
            raise InvalidRun(verification.message)
        task = load_task(path)
        run = read_json_file(path / RUN_FILE)
        initial, commits, validations = _read_log(path / LOG_FILE)
        rebuilt = reconstruct(initial, commits, validations)
        records = read_trace(path / TRACE_FILE)
    except InvalidRun:
        raise
    except FileNotFoundError as exc:
        raise InvalidRun(f"missing artifact {Path(exc.filename or '').name}") from exc
    except (ReplayError, TraceError, LogError) as exc:
        raise InvalidRun(str(exc)) from exc
    except sqlite3.DatabaseError as exc:
        raise InvalidRun(f"{LOG_FILE} is unreadable ({exc})") from exc
    except RecursionError:
        raise InvalidRun("malformed artifact: a value is nested too deeply") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidRun(f"malformed artifact ({type(exc).__name__}: {exc})") from exc
    if rebuilt.state_digest != verification.state_digest:
        raise InvalidRun("artifacts changed while the run was being verified")
    try:
        _check_task(task, run, initial)
        _check_bindings(records, rebuilt.state)
    except (KeyError, TypeError, AttributeError) as exc:
        raise InvalidRun(f"malformed trace record ({type(exc).__name__}: {exc})") from exc
    return RunArtifacts(path, run, task, records, rebuilt.state, rebuilt.state_digest, commits)


def load_task(path: Path) -> TaskSpec:
    """The run's ``task.json``, or :class:`InvalidRun` if it is missing or not a task spec."""
    file = path / TASK_FILE
    if not file.exists():
        raise InvalidRun(f"missing artifact {TASK_FILE}")
    try:
        return TaskSpec.model_validate_json(file.read_bytes())
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "document"
        raise InvalidRun(f"{TASK_FILE} is not a valid task spec ({where}: {err['msg']})") from exc


def _read_log(log_path: Path) -> tuple[dict, list[dict], dict[str, dict]]:
    if not log_path.exists():
        raise InvalidRun(f"missing artifact {LOG_FILE}")
    initial, commits, validations = read_log(log_path)
    if initial is None:
        raise InvalidRun("commit log has no initial state")
    return initial, commits, validations


def _check_task(task: TaskSpec, run: dict, initial: dict) -> None:
    """task.json belongs to this run and can be scored."""
    recorded = run.get("task_id")
    if recorded is not None and recorded != task.task_id:
        raise InvalidRun(f"{TASK_FILE} is task {task.task_id!r} but {RUN_FILE} records {recorded!r}")
    if canonical(task.initial_state) != canonical(initial):
        raise InvalidRun(f"{TASK_FILE} initial state differs from the commit log's")
    unknown = sorted({p.kind for p in task.predicates} - set(KINDS))
    if unknown:
        raise InvalidRun(f"{TASK_FILE} names unknown predicate kinds: {', '.join(unknown)}")
    if not task.predicates:
        raise InvalidRun(f"{TASK_FILE} declares no predicates")


def _check_bindings(records: list[TraceRecord], state: dict) -> None:
    """Every record's actor is its envelope's and its validation's; accepted ones act in their registered role.

    A proposal from an unknown actor is a recorded rejection (a valid outcome), not a broken binding.
    """
    actors = state["actors"]
    for r in records:
        n, actor, env, val = r.n, r.actor, r.envelope, r.validation
        if env is None:
            if actor != MARKET_ACTOR:
                raise InvalidRun(f"trace record {n}: actor binding broken ({actor!r} acts without an envelope)")
            continue
        if env["actor"] != actor:
            raise InvalidRun(f"trace record {n}: actor binding broken (record names {actor!r}, "
                             f"envelope binds {env['actor']!r})")
        if val.actor != actor or val.envelope_id != env["envelope_id"]:
            raise InvalidRun(f"trace record {n}: actor binding broken (validation {val.validation_id} "
                             f"belongs to {val.actor!r}, envelope {val.envelope_id})")
        known = actors.get(actor)
        if known is None and (val.accepted or r.commit is not None):
            raise InvalidRun(f"trace record {n}: actor binding broken (accepted a proposal from {actor!r}, "
                             "who is not an actor of the World)")
        if known is not None and (env["role"] != known["role"] or r.role != env["role"]):
            raise InvalidRun(f"trace record {n}: actor binding broken ({actor!r} acts as {env['role']!r}, "
                             f"registered as {known['role']!r})")
        claimed = r.action.get("actor")
        if val.accepted and claimed is not None and claimed != actor:
            raise InvalidRun(f"trace record {n}: actor binding broken (accepted an action claiming {claimed!r})")
