"""Frozen suite files: JSONL of task specs shipped inside the package, read once and built lazily.

A frozen file is read once per process (again if it changes on disk) and kept as raw lines. Each
task's id and cast (its evaluated actor, every actor's role) are read off its line cheaply; the
:class:`~acworld_env.core.taskspec.TaskSpec` is validated from the line the first time the task is
used (an env's ``reset``, iteration, :func:`load_frozen`), once per process, and shared by every
env (specs are frozen models). A line that does not validate raises a
:class:`~acworld_env.core.taskspec.TaskError` naming the file, line, task and field when that
task is first used, before any episode of it runs.
"""

from __future__ import annotations

import json
import re
import threading
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from .task_list import Cast, TaskList, cast_of

if TYPE_CHECKING:
    from .spec import TaskSpec


def frozen_path(suite: str) -> Path:
    """Where a suite's frozen file lives inside the installed package."""
    return Path(str(resources.files("acworld_env") / "data" / "tasks" / f"{suite}.jsonl"))


def dump_tasks(tasks: list[TaskSpec]) -> str:
    """Canonical JSONL text of a task list (byte-identical for identical tasks)."""
    return "".join(json.dumps(t.model_dump(mode="json"), sort_keys=True, ensure_ascii=False,
                              separators=(",", ":")) + "\n" for t in tasks)


_HEAD = re.compile(rb'\{"actor":"([A-Za-z0-9_.+-]+)",')
_TAIL = re.compile(rb',"task_id":"([A-Za-z0-9_.+/-]+)"\}$')
_ACTORS = b',"initial_state":{"actors":'
"""How a canonical line (sorted keys, no spaces) starts, ends and holds its actors."""
_DECODER = json.JSONDecoder()


def split_lines(data: bytes) -> list[tuple[int, bytes]]:
    """``(line number, line)`` of every non-blank line (lines end at ``\\n``, ``\\r\\n`` or ``\\r``)."""
    return [(n, line) for n, line in enumerate(data.splitlines(), start=1)
            if line[:1] == b"{" or line.decode("utf-8", "replace").strip()]


def _quick_cast(line: bytes) -> tuple[str, Cast] | None:
    """``(task id, cast)`` read off a canonical line without parsing it all, or None when the line is not
    in that shape (it is then validated at once). A task built later is checked against this reading."""
    head, tail, at = _HEAD.match(line), _TAIL.search(line), line.find(_ACTORS)
    if head is None or tail is None or at < 0:
        return None
    start = at + len(_ACTORS)
    end = line.find(b"}}", start)  # the end of the actors when their records are flat
    if end < 0:
        return None
    try:
        actors, _ = _DECODER.raw_decode(line[start:end + 2].decode("utf-8"))
    except ValueError:  # not flat records: a cut inside the actors
        return None
    actor = head.group(1).decode("ascii")
    if not isinstance(actors, dict) or actor not in actors:
        return None
    roles = {a: rec.get("role") for a, rec in actors.items() if isinstance(rec, dict)}
    if len(roles) != len(actors) or not all(r in ("buyer", "merchant") for r in roles.values()):
        return None
    return tail.group(1).decode("ascii"), Cast(actor, roles)


class FrozenFile:
    """One frozen JSONL file: raw lines with their ids and casts; each spec built on first use.

    A :class:`~acworld_env.tasks.task_list.TaskSource`. Thread-safe: a spec is built once.
    """

    def __init__(self, path: Path, stamp: tuple[int, int], data: bytes) -> None:
        self.path, self.stamp = path, stamp
        self.lines = split_lines(data)
        self._specs: list[TaskSpec | None] = [None] * len(self.lines)
        self._ids: list[str] = []
        self._casts: list[Cast] = []
        self._lock = threading.Lock()
        for i, (_, line) in enumerate(self.lines):
            quick = _quick_cast(line)
            if quick is None:  # not a canonical line: validate it now (a TaskError names what is wrong)
                spec = self._specs[i] = self._build(i)
                quick = spec.task_id, cast_of(spec)
            self._ids.append(quick[0])
            self._casts.append(quick[1])

    def __len__(self) -> int:
        return len(self.lines)

    def task_id(self, index: int) -> str:
        """The id of task ``index`` (read off its line)."""
        return self._ids[index]

    def cast(self, index: int) -> Cast:
        """The cast of task ``index`` (read off its line)."""
        return self._casts[index]

    def spec(self, index: int) -> TaskSpec:
        """Task ``index``, validated from its line on the first call; :class:`TaskError` if it does not."""
        spec = self._specs[index]
        if spec is None:
            with self._lock:
                spec = self._specs[index]
                if spec is None:
                    spec = self._build(index)
                    self._check_read(index, spec)
                    self._specs[index] = spec
        return spec

    def specs(self) -> list[TaskSpec]:
        """Every task, built."""
        return [self.spec(i) for i in range(len(self))]

    def _build(self, index: int) -> TaskSpec:
        from ..core.task_load import task_from_json

        lineno, line = self.lines[index]
        return task_from_json(line, source=f"{self.path}: line {lineno}: not a task spec")

    def _check_read(self, index: int, spec: TaskSpec) -> None:
        """The built task agrees with the id and cast read off its line (announced when the env was made)."""
        from ..core.taskspec import TaskError

        lineno, _ = self.lines[index]
        read = self._casts[index]
        if self._ids[index] != spec.task_id:
            field, seen = "task_id", repr(self._ids[index])
        elif read != cast_of(spec):
            field, seen = "initial_state.actors", f"evaluated {read.actor!r}, roles {dict(read.roles)}"
        else:
            return
        raise TaskError(spec.task_id, field, f"differs from what a first reading of the line found ({seen}); "
                        "a frozen line must be canonical JSON", source=f"{self.path}: line {lineno}")

    def __getstate__(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


_FILES: dict[Path, FrozenFile] = {}
"""Read frozen files by path: task specs are frozen models, so every env of a process shares them
(a vector env, a server making an env per episode)."""
_LOAD_LOCK = threading.Lock()


def frozen_file(suite: str) -> FrozenFile | None:
    """The suite's frozen file, read on first use (again if it changed on disk); None when none is shipped."""
    path = frozen_path(suite)
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _LOAD_LOCK:
        hit = _FILES.get(path)
        if hit is None or hit.stamp != stamp:
            hit = _FILES[path] = FrozenFile(path, stamp, path.read_bytes())
        return hit


def frozen_tasks(suite: str) -> TaskList | None:
    """The frozen tasks of a suite as a :class:`TaskList` (none built yet), or None when none are shipped."""
    file = frozen_file(suite)
    return None if file is None or not len(file) else TaskList(file)


def load_frozen(suite: str) -> list[TaskSpec]:
    """The frozen tasks of a suite, every one built, or an empty list when none are shipped.

    Each call returns a new list of the same, immutable task specs; the first bad line raises its
    :class:`~acworld_env.core.taskspec.TaskError`.
    """
    file = frozen_file(suite)
    return [] if file is None else file.specs()


def _read_tasks(path: Path) -> list[TaskSpec]:
    """Every task spec of a JSONL file, read afresh (no cache); a line that does not validate is a
    :class:`~acworld_env.core.taskspec.TaskError` naming the file, line, task and field."""
    from ..core.task_load import task_from_json

    return [task_from_json(line, source=f"{path}: line {lineno}: not a task spec")
            for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if line.strip()]
