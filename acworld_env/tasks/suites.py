"""Suites: named, ordered lists of tasks. Frozen splits load checked-in files; generated splits build fresh tasks."""

from __future__ import annotations

import importlib

from . import capability  # noqa: F401  (registers capability-v1)
from .names import SUITES, register_suite
from .spec import TaskSpec

register_suite("large-catalog-v1")("acworld_env.tasks.large.suite:large_suite")
"""The large track's loader by path: its module (numpy, the catalog layer, the task families) is
imported when the suite is first loaded, and registers the same function under the same name."""


def load_suite(name: str, split: str = "frozen", seed: int = 0) -> list[TaskSpec]:
    """The tasks of a suite. ``split`` is ``frozen`` (the published tasks) or ``generated`` (fresh, from ``seed``)."""
    if name not in SUITES:
        raise KeyError(f"unknown suite {name!r}; known: {', '.join(sorted(SUITES))}")
    if split not in {"frozen", "generated"}:
        raise ValueError(f"split must be 'frozen' or 'generated', not {split!r}")
    loader = SUITES[name]
    if isinstance(loader, str):
        module, _, attr = loader.partition(":")
        loader = SUITES[name] = getattr(importlib.import_module(module), attr)
    return loader(split, seed)


@register_suite("demo")
def _demo_suite(split: str, seed: int) -> list[TaskSpec]:
    from .families.demo import build_demo_task

    return [build_demo_task()]
