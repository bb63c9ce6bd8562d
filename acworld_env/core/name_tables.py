"""The one way names are registered: event handlers, platform rules, predicate kinds, policies,
task families and suites all map a name to a function in a plain dict."""

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
