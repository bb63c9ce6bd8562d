"""A suite's tasks as an ordered sequence whose specs are built on first use.

An environment needs, when it is made, only each task's id and its cast (the evaluated actor and
the role of every actor: its ``possible_agents``). :class:`TaskList` gives those without building a
single :class:`~acworld_env.core.taskspec.TaskSpec`; indexing or iterating builds (and validates)
a task the first time it is reached. A frozen suite file supplies ids and casts from its raw lines
(:mod:`acworld_env.tasks.frozen`); any other list of specs reads them off the specs.

Nothing here imports pydantic: making an env costs no task model until a task is played.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, overload

if TYPE_CHECKING:
    from ..core.taskspec import TaskSpec

    class TaskSource(Protocol):
        """Where a :class:`TaskList` gets its tasks: ids and casts cheaply, specs on demand."""

        def __len__(self) -> int: ...

        def task_id(self, index: int) -> str:
            """The id of task ``index``, without building it."""

        def cast(self, index: int) -> Cast:
            """The cast of task ``index``, without building it."""

        def spec(self, index: int) -> TaskSpec:
            """Task ``index``, built and validated on the first call (the same object afterwards)."""


class Cast:
    """Who a task puts on stage: its evaluated actor and every actor's role, in ``initial_state`` order."""

    __slots__ = ("actor", "roles")

    def __init__(self, actor: str, roles: Mapping[str, str]) -> None:
        self.actor, self.roles = actor, roles

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Cast) and self.actor == other.actor
                and list(self.roles.items()) == list(other.roles.items()))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Cast({self.actor!r}, {dict(self.roles)!r})"

    def agents(self, every: bool) -> list[str]:
        """The agents an outside loop controls: the evaluated actor, then (``every``) every other actor."""
        return [self.actor, *(a for a in self.roles if a != self.actor)] if every else [self.actor]


def cast_of(task: TaskSpec) -> Cast:
    """The cast of a built task."""
    actors = task.initial_state["actors"]
    return Cast(task.actor, {a: rec["role"] for a, rec in actors.items()})


class SpecSource:
    """A :class:`TaskSource` over specs already built (an explicit list, a generated split)."""

    def __init__(self, specs: Sequence[TaskSpec]) -> None:
        self.specs = list(specs)

    def __len__(self) -> int:
        """Number of tasks."""
        return len(self.specs)

    def task_id(self, index: int) -> str:
        """The id of task ``index``."""
        return self.specs[index].task_id

    def cast(self, index: int) -> Cast:
        """The cast of task ``index``."""
        return cast_of(self.specs[index])

    def spec(self, index: int) -> TaskSpec:
        """Task ``index``."""
        return self.specs[index]


class TaskList(Sequence["TaskSpec"]):
    """An ordered, read-only list of tasks (a :class:`~collections.abc.Sequence` of ``TaskSpec``).

    Iterating or indexing builds tasks as they are reached; :meth:`ids`, :meth:`casts`,
    :meth:`find` and :meth:`select` need none built. Equal to a list of the same specs.
    """

    def __init__(self, source: TaskSource | Sequence[TaskSpec], rows: Sequence[int] | None = None) -> None:
        self.source: TaskSource = source if hasattr(source, "cast") else SpecSource(source)  # type: ignore[arg-type]
        self.rows = list(range(len(self.source))) if rows is None else list(rows)
        self._index: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> TaskSpec: ...

    @overload
    def __getitem__(self, index: slice) -> TaskList: ...

    def __getitem__(self, index: int | slice) -> TaskSpec | TaskList:
        if isinstance(index, slice):
            return TaskList(self.source, self.rows[index])
        return self.source.spec(self.rows[index])

    def __iter__(self) -> Iterator[TaskSpec]:
        spec = self.source.spec
        for row in self.rows:
            yield spec(row)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TaskList | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TaskList({len(self)} tasks)"

    def ids(self) -> list[str]:
        """Every task id, in order (no task built)."""
        return [self.source.task_id(row) for row in self.rows]

    def casts(self) -> list[Cast]:
        """Every task's cast, in order (no task built)."""
        return [self.source.cast(row) for row in self.rows]

    def find(self, task_id: str) -> TaskSpec | None:
        """The task with ``task_id`` (the last one, should an id repeat), built on first use; None if absent."""
        if self._index is None:
            self._index = {self.source.task_id(row): row for row in self.rows}
        row = self._index.get(task_id)
        return None if row is None else self.source.spec(row)

    def select(self, pattern: str) -> TaskList:
        """The tasks whose id matches the glob ``pattern`` (``"*/T1/*"``), in order."""
        return TaskList(self.source, [row for row in self.rows if fnmatch.fnmatch(self.source.task_id(row), pattern)])

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the built specs (a process that unpickles it has no cache to share)."""
        return TaskList, (list(self),)
