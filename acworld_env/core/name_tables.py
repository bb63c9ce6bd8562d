"""Name tables: every registry (event handlers, platform rules, predicate kinds, policies, task
families, suites) is a plain dict from a name to a function, filled by :func:`register_in`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable[..., object])


def register_in(table: dict[str, F], name: str) -> Callable[[F], F]:
    """A decorator storing its function in ``table`` under ``name`` and returning it unchanged."""

    def register(fn: F) -> F:
        table[name] = fn
        return fn

    return register
