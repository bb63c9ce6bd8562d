"""The pure transition ``F(state, event) -> delta`` and applying a delta.

A delta is a list of ``[table, key, record]`` puts (``record`` None deletes). ``F`` never
mutates its input; :func:`apply_delta` is the only writer. Handlers live in
``handlers_*`` modules and register themselves here by event type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import AcworldError
from ..core.name_tables import register_in

Delta = list[list[Any]]
Handler = Callable[["View", dict], None]

HANDLERS: dict[str, Handler] = {}


class TransitionError(AcworldError, ValueError):
    """An event the World cannot apply (unknown type or broken precondition)."""


def handles(event_type: str) -> Callable[[Handler], Handler]:
    """Register the handler of one event type."""
    return register_in(HANDLERS, event_type)


class View:
    """Copy-on-write view of a state used by handlers: reads see earlier puts of the same commit."""

    __slots__ = ("state", "puts")

    def __init__(self, state: dict) -> None:
        self.state = state
        self.puts: dict[tuple[str, str], dict | None] = {}

    def get(self, table: str, key: str) -> dict | None:
        """Current record, or None."""
        if (table, key) in self.puts:
            return self.puts[(table, key)]
        return self.state[table].get(key)

    def need(self, table: str, key: str) -> dict:
        """Current record; a missing one is a broken precondition."""
        rec = self.get(table, key)
        if rec is None:
            raise TransitionError(f"no {table} record {key!r}")
        return rec

    def edit(self, table: str, key: str) -> dict:
        """A private copy of a record that will be written back (nested values copied one level)."""
        if (table, key) in self.puts and self.puts[(table, key)] is not None:
            return self.puts[(table, key)]  # type: ignore[return-value]
        rec = self.need(table, key)
        copy = {k: (v.copy() if isinstance(v, (dict, list)) else v) for k, v in rec.items()}  # a tuple: quicker than dict | list
        self.puts[(table, key)] = copy
        return copy

    def put(self, table: str, key: str, record: dict | None) -> None:
        """Write a whole record (None deletes)."""
        self.puts[(table, key)] = record

    def new_id(self, table: str, record: dict, given: str) -> None:
        """Create a record under an id chosen by the platform and bump the table's counter."""
        if self.get(table, given) is not None:
            raise TransitionError(f"{table} record {given!r} already exists")
        counters = self.edit("counters", "ids") if self.get("counters", "ids") else {}
        if not counters:
            self.put("counters", "ids", counters)
        counters[table] = counters.get(table, 0) + 1
        self.put(table, given, record)


def transition(state: dict, events: list[dict]) -> Delta:
    """``F``: the delta a list of events (one atomic commit) makes to ``state``. Pure."""
    view = View(state)
    for event in events:
        handler = HANDLERS.get(event.get("type", ""))
        if handler is None:
            raise TransitionError(f"unknown event type {event.get('type')!r}")
        handler(view, event)
    return [[t, k, r] for (t, k), r in view.puts.items()]


def apply_delta(state: dict, delta: Delta) -> None:
    """Write a delta into a state, in place."""
    for table, key, record in delta:
        if record is None:
            state[table].pop(key, None)
        else:
            state[table][key] = record
