"""Frozen suite files: JSONL of task specs shipped inside the package."""

from __future__ import annotations

import json
import threading
from importlib import resources
from pathlib import Path

from ..core.task_load import task_from_json
from .spec import TaskSpec


def frozen_path(suite: str) -> Path:
    """Where a suite's frozen file lives inside the installed package."""
    return Path(str(resources.files("acworld_env") / "data" / "tasks" / f"{suite}.jsonl"))


def dump_tasks(tasks: list[TaskSpec]) -> str:
    """Canonical JSONL text of a task list (byte-identical for identical tasks)."""
    return "".join(json.dumps(t.model_dump(mode="json"), sort_keys=True, ensure_ascii=False,
                              separators=(",", ":")) + "\n" for t in tasks)


_LOADED: dict[Path, tuple[tuple[int, int], list[TaskSpec]]] = {}
"""Parsed frozen files by path, with the (mtime, size) they were read at: task specs are frozen
models, so every env of a process can share them (a vector env, a server making an env per episode)."""
_LOAD_LOCK = threading.Lock()


def load_frozen(suite: str) -> list[TaskSpec]:
    """The frozen tasks of a suite, or an empty list when none are shipped.

    The file is read and validated once per process (again if it changes on disk); each call
    returns a new list of the same, immutable task specs.
    """
    path = frozen_path(suite)
    try:
        stat = path.stat()
    except FileNotFoundError:
        return []
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _LOAD_LOCK:
        hit = _LOADED.get(path)
        if hit is None or hit[0] != stamp:
            hit = _LOADED[path] = (stamp, _read_tasks(path))
        return list(hit[1])


def _read_tasks(path: Path) -> list[TaskSpec]:
    """Every task spec of a JSONL file; a line that does not validate is a
    :class:`~acworld_env.core.taskspec.TaskError` naming the file, line, task and field."""
    return [task_from_json(line, source=f"{path}: line {lineno}: not a task spec")
            for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if line.strip()]
