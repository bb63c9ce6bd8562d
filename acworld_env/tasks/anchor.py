"""Anchoring a run's task to a published suite: content hashes and lookup.

A run folder carries its own ``task.json``, and a forger can rewrite it (drop a predicate,
lower a weight) and rescore. So a task is trusted only when its content hash equals that of
the task with the same id in the suite it claims to come from: the installed package's suite
(frozen, or generated again from the recorded seed), or a suite file given by the user.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ..core.errors import AcworldError
from ..core.task_load import task_from_json
from ..core.taskspec import TaskError, task_hash
from .spec import TaskSpec


class AnchorError(AcworldError, ValueError):
    """A suite file that cannot be read, or a suite that cannot be loaded."""


def suite_hash(tasks: list[TaskSpec]) -> str:
    """SHA-256 over a suite's task hashes, in task-id order."""
    joined = "\n".join(f"{t.task_id} {task_hash(t)}" for t in sorted(tasks, key=lambda t: t.task_id))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()


def read_suite_file(path: str | Path) -> list[TaskSpec]:
    """Tasks from a JSONL file of task specs (one per line); :class:`AnchorError` names a bad line."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise AnchorError(f"cannot read suite file {p}: {exc}") from None
    tasks = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            tasks.append(task_from_json(line, source=f"{p}: line {lineno}: not a task spec"))
        except TaskError as exc:
            raise AnchorError(str(exc)) from None
    return tasks


class SuiteIndex:
    """Published tasks by id, loaded once per (suite, split, seed); or one user suite file for all."""

    def __init__(self, suite_file: str | Path | None = None) -> None:
        self._file = {t.task_id: t for t in read_suite_file(suite_file)} if suite_file else None
        self._loaded: dict[tuple[str, str, int], dict[str, TaskSpec]] = {}

    def published(self, task_id: str, run: dict[str, Any]) -> tuple[TaskSpec | None, str]:
        """The published task a run claims, and where it was looked up (for messages)."""
        if self._file is not None:
            return self._file.get(task_id), "the suite file given"
        suite, split, seed = run.get("suite"), run.get("split", "frozen"), run.get("suite_seed", 0)
        if not isinstance(suite, str):
            suite = _suite_of(task_id)
            split, seed = "frozen", 0
        if not isinstance(split, str) or not isinstance(seed, int):
            return None, "a suite (run.json names no valid split and seed)"
        where = f"suite {suite} ({split}" + (f", seed {seed})" if split != "frozen" else ")")
        key = (suite, split, seed)
        if key not in self._loaded:
            from .suites import load_suite

            try:
                self._loaded[key] = {t.task_id: t for t in load_suite(suite, split, seed)}
            except (KeyError, ValueError) as exc:
                msg = exc.args[0] if exc.args else str(exc)
                raise AnchorError(f"cannot load {where}: {msg}") from None
        return self._loaded[key].get(task_id), where

    def check(self, task: TaskSpec, run: dict[str, Any]) -> str | None:
        """``None`` when ``task`` is the published task it claims to be, else the reason it is not."""
        published, where = self.published(task.task_id, run)
        if published is None:
            return (f"task {task.task_id} is not in {where}; pass the suite it came from with --suite FILE")
        if task_hash(published) != task_hash(task):
            return f"task.json differs from task {task.task_id} of {where} ({_first_difference(task, published)})"
        recorded = run.get("task_hash")
        if recorded is not None and recorded != task_hash(published):
            return "run.json records a task hash that differs from the published task's"
        return None


def _suite_of(task_id: str) -> str:
    """The suite a task id names (its first path segment, as in ``capability-v1/T1/...``)."""
    return task_id.split("/", 1)[0]


def _first_difference(task: TaskSpec, published: TaskSpec) -> str:
    mine, theirs = task.model_dump(mode="json"), published.model_dump(mode="json")
    for key in sorted(set(mine) | set(theirs)):
        if mine.get(key) != theirs.get(key):
            return f"field {key!r} differs"
    return "content differs"
