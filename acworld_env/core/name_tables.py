"""Name tables: every registry (event handlers, platform rules, predicate kinds, policies, task
families, suites) is a plain dict from a name to a function, filled by :func:`register_in`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .errors import AcworldError

F = TypeVar("F", bound=Callable[..., object])


class NameTaken(AcworldError, ValueError):
    """Two different functions registered under one name (the second would silently replace the first)."""


def register_in(table: dict[str, F], name: str) -> Callable[[F], F]:
    """A decorator storing its function in ``table`` under ``name`` and returning it unchanged.

    A name already holding a *different* function is an error (:class:`NameTaken`), so two
    families can never shadow each other's predicate kind, rule or policy by accident. The
    same function registered again (a module imported twice) is accepted.
    """

    def register(fn: F) -> F:
        old = table.get(name)
        if old is not None and old is not fn and _origin(old) != _origin(fn):
            raise NameTaken(f"{name!r} is already registered to {_origin(old)}; {_origin(fn)} needs another name")
        table[name] = fn
        return fn

    return register


def _origin(fn: object) -> str:
    """``module.qualname`` of a registered object (a ``"module:attr"`` string stands for itself)."""
    if isinstance(fn, str):
        return fn.replace(":", ".")
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
