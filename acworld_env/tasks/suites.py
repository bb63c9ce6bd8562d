"""Suites: named, ordered lists of tasks. Frozen splits load checked-in files; generated splits build fresh tasks."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from . import capability  # noqa: F401  (registers capability-v1)
from .names import SUITES, register_suite
from .task_list import TaskList

if TYPE_CHECKING:
    from .spec import TaskSpec

register_suite("large-catalog-v1")("acworld_env.tasks.large.suite:large_suite")
"""The large track's loader by path: its module (numpy, the catalog layer, the task families) is
imported when the suite is first loaded, and registers the same function under the same name."""
FROZEN_AS_SHIPPED = {"capability-v1", "large-catalog-v1"}
"""Suites whose frozen split is exactly their shipped file, when there is one: :func:`suite_tasks`
reads it lazily (no task built before it is used) instead of calling the suite's loader."""


def _check_split(name: str, split: str) -> None:
    if name not in SUITES:
        raise KeyError(f"unknown suite {name!r}; known: {', '.join(sorted(SUITES))}")
    if split not in {"frozen", "generated"}:
        raise ValueError(f"split must be 'frozen' or 'generated', not {split!r}")


def load_suite(name: str, split: str = "frozen", seed: int = 0) -> list[TaskSpec]:
    """The tasks of a suite. ``split`` is ``frozen`` (the published tasks) or ``generated`` (fresh, from ``seed``)."""
    _check_split(name, split)
    loader = SUITES[name]
    if isinstance(loader, str):
        module, _, attr = loader.partition(":")
        loader = SUITES[name] = getattr(importlib.import_module(module), attr)
    return loader(split, seed)


def suite_tasks(name: str, split: str = "frozen", seed: int = 0, pattern: str | None = None) -> TaskList:
    """The tasks of a suite as a :class:`~acworld_env.tasks.task_list.TaskList` (those whose id matches
    the glob ``pattern``, if given): what an env is made with. A shipped frozen file is read without
    building a task (each is validated when first used); any other split is loaded as by :func:`load_suite`."""
    _check_split(name, split)
    tasks = None
    if split == "frozen" and name in FROZEN_AS_SHIPPED:
        from .frozen import frozen_tasks

        tasks = frozen_tasks(name)
    if tasks is None:
        tasks = TaskList(load_suite(name, split, seed))
    return tasks if pattern is None else tasks.select(pattern)


@register_suite("demo")
def _demo_suite(split: str, seed: int) -> list[TaskSpec]:
    from .families.demo import build_demo_task

    return [build_demo_task()]
