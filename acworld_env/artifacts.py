"""Run artifacts on disk, and their verification.

A run directory holds ``commits.sqlite`` (initial state, commits, validations),
``trace.jsonl`` (lineage), and ``run.json`` (ids and digests); scoring adds ``score.json``
and ``task.json``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .core.errors import AcworldError
from .lineage_check import lineage_problems
from .run_log import log_image
from .trace import TraceError, read_trace, verify_trace
from .world import CommitLog, LogError, ReplayError, reconstruct

if TYPE_CHECKING:
    from .core.taskspec import TaskSpec

RUN_FILE, TRACE_FILE, LOG_FILE = "run.json", "trace.jsonl", "commits.sqlite"


def read_json_file(path: Path) -> Any:
    """A JSON file's value (UTF-8); a file nested too deeply to parse is a ``ValueError``, not a ``RecursionError``."""
    text = read_file(path).decode("utf-8")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{Path(path).name} is nested too deeply to be an artifact") from None


def read_file(path: Path) -> bytes:
    """A file's bytes, as ``Path.read_bytes`` gives them, with no file object (a run's small files are read
    back once each: the buffered-file layer cost more than the read)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


_TASK_FILES: dict[int, tuple[weakref.ref, tuple[str, str]]] = {}
"""``task_files`` by task identity, while the task lives."""


def task_files(task: TaskSpec) -> tuple[str, str]:
    """``(content hash, task.json text)`` of a task, encoded once per task object.

    Tasks are frozen models, and an evaluation saves every run of a task (and lists it in its
    manifest) with the same object; encoding a task twice per run (canonically for its hash,
    indented for ``task.json``) cost more than writing all of a run's small files.
    """
    key = id(task)
    known = _TASK_FILES.get(key)
    if known is not None and known[0]() is task:
        return known[1]
    from .core.taskspec import task_hash

    files = (task_hash(task), task.model_dump_json(indent=1) + "\n")
    _TASK_FILES[key] = (weakref.ref(task, lambda _ref: _TASK_FILES.pop(key, None)), files)
    return files


def save_run(market: Any, out_dir: str | Path, **extra: Any) -> Path:
    """Write a finished episode's artifacts into ``out_dir``; return the directory."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / LOG_FILE
    world = market.world
    if world.log is None or Path(world.log.path).resolve() != log_path.resolve():
        validations = [r.validation.to_dict() for r in market.trace.records if r.commit is not None]
        write_new_file(log_path, log_image(world.initial_state, world.commits, validations))
    else:
        world.log.seal()
    market.trace.write(out / TRACE_FILE)
    run = {
        "state_digest": world.state_digest(), "event_digest": world.event_digest,
        "trace_digest": market.trace.digest, "commits": len(world.commits),
        "proposals": sum(1 for r in market.trace.records if r.envelope is not None), **extra,
    }
    write_file(out / RUN_FILE, (json.dumps(run, indent=2, sort_keys=True) + "\n").encode())
    return out


_WRITE = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def write_file(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """Write ``data`` as the whole file ``path`` (created, or truncated when it exists; with ``exclusive``
    a file already there is an error), with the permissions ``open`` gives.

    The same bytes as ``Path.write_bytes`` with three system calls and no file object: a run writes
    several small files, and the buffered-file layer around each cost more than its write.
    """
    fd = os.open(path, _WRITE | (os.O_EXCL if exclusive else os.O_TRUNC), 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def write_new_file(path: Path, data: bytes) -> None:
    """:func:`write_file` into a new file: one already at ``path`` is removed first (not rewritten in place)."""
    try:
        write_file(path, data, exclusive=True)
    except FileExistsError:
        path.unlink()
        write_file(path, data, exclusive=True)


def read_log(log_path: Path) -> tuple[dict | None, list[dict], dict[str, dict]]:
    """``(initial state, commits, validations)`` of a saved commit log, opened read-only.

    Reading leaves nothing behind in the run's folder (no ``-wal`` or ``-shm`` files).
    """
    log = CommitLog(log_path, readonly=True)
    try:
        return log.get_meta("initial_state"), log.commits(), log.validations()
    finally:
        log.close()


@dataclass
class Verification:
    """Outcome of verifying one run directory."""

    path: Path
    ok: bool
    message: str
    commits: int = 0
    state_digest: str = ""
    event_digest: str = ""


def verify_run(run_dir: str | Path) -> Verification:
    """Reconstruct a run and check digests, validation citations and the trace chain. Never raises."""
    path = Path(run_dir)
    try:
        run = read_json_file(path / RUN_FILE)
    except FileNotFoundError:
        return Verification(path, False, f"missing artifact {RUN_FILE}")
    except ValueError as exc:  # not JSON, not UTF-8, or nested too deeply
        return Verification(path, False, f"{RUN_FILE} is not valid JSON ({exc})")
    if not isinstance(run, dict):
        return Verification(path, False, f"{RUN_FILE} is not a JSON object")
    try:
        if not (path / LOG_FILE).exists():
            return Verification(path, False, f"missing artifact {LOG_FILE}")
        initial, commits, validations = read_log(path / LOG_FILE)
        if initial is None:
            return Verification(path, False, "commit log has no initial state")
        rebuilt = reconstruct(initial, commits, validations)
        records = read_trace(path / TRACE_FILE)
        trace_digest = verify_trace(records)
        lineage = lineage_problems(records, commits, validations, run.get("proposals"), run.get("seed"))
    except FileNotFoundError as exc:
        return Verification(path, False, f"missing artifact {Path(exc.filename or '').name}")
    except TraceError as exc:
        return Verification(path, False, str(exc) if TRACE_FILE in str(exc) else f"{TRACE_FILE}: {exc}")
    except (ReplayError, LogError) as exc:
        return Verification(path, False, str(exc))
    except RecursionError:
        return Verification(path, False, "malformed artifact: a value is nested too deeply")
    except (KeyError, TypeError, AttributeError, ValueError, sqlite3.Error) as exc:
        return Verification(path, False, f"malformed artifact: {type(exc).__name__}: {exc}")
    stored, recorded = len(commits), run.get("commits")
    checks = [
        (not isinstance(recorded, int) or stored >= recorded,
         f"commit {stored + 1}: missing ({stored} commits stored, {recorded} recorded in {RUN_FILE})"),
        (not isinstance(recorded, int) or stored <= recorded,
         f"commit {(recorded or 0) + 1}: not recorded in {RUN_FILE} ({stored} commits stored, {recorded} recorded)"),
        (stored == recorded, f"{stored} commits stored, {recorded!r} recorded in {RUN_FILE}"),
        (rebuilt.state_digest == run.get("state_digest"), f"final state digest differs from the one in {RUN_FILE}"),
        (rebuilt.event_digest == run.get("event_digest"), f"event-chain digest differs from the one in {RUN_FILE}"),
        (trace_digest == run.get("trace_digest"), f"{TRACE_FILE} digest differs from the one in {RUN_FILE}"),
    ]
    traced = {r.commit: r for r in records if r.commit is not None}
    for c in commits:
        rec = traced.get(c["seq"])
        if rec is None or rec.validation.validation_id != c["validation_id"] or not rec.validation.accepted:
            checks.append((False, f"commit {c['seq']}: no accepted validation in the trace cites it"))
            break
        if rec.actor != c["actor"]:
            checks.append((False, f"commit {c['seq']}: actor binding broken"))
            break
    checks.extend((False, p) for p in lineage)
    for ok, msg in checks:
        if not ok:
            return Verification(path, False, msg, len(commits))
    return Verification(path, True, "ok", len(commits), rebuilt.state_digest, rebuilt.event_digest)


class NoRuns(AcworldError, ValueError):
    """A folder that does not exist or holds no run."""


def runs_under(root: str | Path) -> list[Path]:
    """The runs under ``root``; :class:`NoRuns` with a readable message when there are none."""
    root = Path(root)
    if not root.exists():
        raise NoRuns(f"{root} does not exist")
    runs = find_runs(root)
    if not runs:
        raise NoRuns(f"no run ({RUN_FILE}) under {root}")
    return runs


def find_runs(root: str | Path) -> list[Path]:
    """Every run directory under ``root`` (including ``root`` itself)."""
    root = Path(root)
    return sorted(p.parent for p in root.rglob(RUN_FILE))
