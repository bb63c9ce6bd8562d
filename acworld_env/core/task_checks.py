"""Checks of a task's free-form data (numbers, world records, scheduled items, predicate parameters).

:func:`~acworld_env.core.taskspec.first_problem` runs these after the reference checks, so a task
written by hand fails when it is read or made (``make``, ``reset``), naming the field, instead of
raising ``KeyError`` or ``ValueError`` in the middle of an episode. Each function returns the first
problem as ``(field path, message)``, or None.
"""

from __future__ import annotations

import importlib
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .predicate_params import REQUIRED_PARAMS, Need

TaskSpec = Any
"""A :class:`~acworld_env.core.taskspec.TaskSpec` (not imported: that module imports this one)."""
Problem = tuple[str, str]
"""``(field, message)``."""

MAX_TASK_INT = 10**15
"""Largest magnitude of any integer in a task (cents: ten trillion dollars); larger ones are refused
before anything formats, hashes or adds them."""
COUNTED_FIELDS = {"actors": ("balance", "held"), "listings": ("price", "stock")}
"""World records whose fields the transition adds and compares: they must be whole numbers from 0."""


def _fine(value: Any) -> bool:
    """Whether every number under ``value`` is in range and finite, and every value JSON data (no paths built)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is int:
            if not -MAX_TASK_INT <= item <= MAX_TASK_INT:
                return False
        elif kind is float:
            if not math.isfinite(item):
                return False
        elif kind is not str and kind is not bool and item is not None:
            return False  # a subclass or another type: the slow walk says what and where
    return True


def number_problem(value: Any, path: str) -> Problem | None:
    """The first integer beyond :data:`MAX_TASK_INT`, non-finite number or non-JSON value under ``value``.

    Iterative (a deeply nested value cannot exhaust the stack); field paths are built only after a
    quick walk found something.
    """
    if _fine(value):
        return None
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        if isinstance(item, int):
            if not -MAX_TASK_INT <= item <= MAX_TASK_INT:
                return where, f"integer out of range (at most {MAX_TASK_INT:,} in magnitude)"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return where, "not a finite number"
        elif isinstance(item, Mapping):
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in reversed(item.items()))
        elif isinstance(item, list | tuple):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(item))))
        else:
            return where, f"a {type(item).__name__} is not JSON data"
    return None


def numbers_problem(task: TaskSpec) -> Problem | None:
    """:func:`number_problem` over every free-form field of ``task``."""
    places: list[tuple[str, Any]] = [
        ("initial_state", task.initial_state), ("mandate", task.mandate), ("difficulty", task.difficulty),
        ("counterparty_mandates", task.counterparty_mandates), ("schedule", task.schedule),
        ("settings", task.settings), ("oracle", task.oracle), ("reference.params", task.reference.params),
        ("sealed", task.sealed), ("counterparty_sealed", task.counterparty_sealed),
    ]
    places += [(f"predicates[{i}].params", p.params) for i, p in enumerate(task.predicates)]
    places += [(f"counterparty_rubrics.{a}[{i}].params", p.params)
               for a, rubric in task.counterparty_rubrics.items() for i, p in enumerate(rubric)]
    places += [(f"counterparties[{i}].policy.params", c.policy.params) for i, c in enumerate(task.counterparties)]
    places += [(f"mutations[{i}].policy.params", m.policy.params) for i, m in enumerate(task.mutations)]
    for path, value in places:
        problem = number_problem(value, path)
        if problem is not None:
            return problem
    return None


def records_problem(task: TaskSpec) -> Problem | None:
    """A balance, held amount, price or stock in ``initial_state`` that is not a whole number from 0."""
    for table, fields in COUNTED_FIELDS.items():
        records = task.initial_state.get(table) or {}
        if not isinstance(records, Mapping):
            return f"initial_state.{table}", "must be a mapping of id to record"
        for key, rec in records.items():
            if not isinstance(rec, Mapping):
                return f"initial_state.{table}.{key}", "must be a record (an object)"
            for name in fields:
                got = rec.get(name, 0)
                if isinstance(got, bool) or not isinstance(got, int) or got < 0:
                    return f"initial_state.{table}.{key}.{name}", f"must be a whole number from 0, not {got!r:.40}"
    return None


def schedule_problem(task: TaskSpec) -> Problem | None:
    """A scheduled item whose notices or events the market could not deliver or commit."""
    actors = task.initial_state.get("actors") or {}
    for i, item in enumerate(task.schedule):
        notices, events = item.get("notices", []), item.get("events", [])
        if not isinstance(notices, list):
            return f"schedule[{i}].notices", "must be a list of notices"
        for j, notice in enumerate(notices):
            where = f"schedule[{i}].notices[{j}]"
            if not isinstance(notice, Mapping):
                return where, "must be an object"
            to = notice.get("to")
            if not isinstance(to, str):
                return f"{where}.to", "missing: a notice needs the actor it is delivered to"
            if to not in actors:
                return f"{where}.to", f"{to!r} is not an actor of initial_state.actors"
        if not isinstance(events, list):
            return f"schedule[{i}].events", "must be a list of World events"
        for j, event in enumerate(events):
            if not isinstance(event, Mapping) or not isinstance(event.get("type"), str):
                return f"schedule[{i}].events[{j}].type", "missing: a World event needs its type"
    return None


def _missing(params: Mapping[str, Any], needs: Iterable[Need]) -> str | None:
    """The first need of ``needs`` that ``params`` lacks, named for a message."""
    for need in needs:
        names = (need,) if isinstance(need, str) else need
        if not any(n in params for n in names):
            return " or ".join(repr(n) for n in names)
    return None


def params_problem(task: TaskSpec) -> Problem | None:
    """A predicate lacking a parameter its kind needs, or naming a World table that does not exist."""
    rubrics = [("predicates", task.predicates)]
    rubrics += [(f"counterparty_rubrics.{a}", r) for a, r in task.counterparty_rubrics.items()]
    for base, rubric in rubrics:
        for i, p in enumerate(rubric):
            missing = _missing(p.params, REQUIRED_PARAMS.get(p.kind, ()))
            if missing is not None:
                return f"{base}[{i}].params", f"predicate kind {p.kind!r} needs the parameter {missing}"
            table = p.params.get("table")
            if "table" in p.params and (not isinstance(table, str) or table not in task.initial_state):
                tables = ", ".join(sorted(k for k in task.initial_state if k != "meta"))
                return f"{base}[{i}].params.table", f"no World table {table!r} (tables: {tables})"
    return None


LATER_CHECKS: list[Callable[[Any], Problem | None]] = []
"""Checks that need a registry of a higher layer (the World's event types): that layer appends them, and
:func:`~acworld_env.core.taskspec.check_runnable` runs them before an episode starts."""
LATER_MODULES: list[str] = []
"""Modules that append to :data:`LATER_CHECKS` when imported, named by a layer that does not import them
yet (they import the World): :func:`later_problem` imports them before its first run."""


_LATER_LOCK = threading.Lock()
"""Runs of many episodes at once reach :func:`later_problem` together: one imports, the others wait."""


def later_problem(task: TaskSpec) -> Problem | None:
    """The first problem one of :data:`LATER_CHECKS` finds, or None."""
    if LATER_MODULES:
        with _LATER_LOCK:
            while LATER_MODULES:
                importlib.import_module(LATER_MODULES[0])
                LATER_MODULES.pop(0)
    for check in LATER_CHECKS:
        problem = check(task)
        if problem is not None:
            return problem
    return None


def data_problem(task: TaskSpec, *, numbers: bool = True) -> Problem | None:
    """The first problem of ``task``'s free-form data, or None (``numbers=False``: no range check)."""
    return ((numbers_problem(task) if numbers else None) or records_problem(task) or schedule_problem(task)
            or params_problem(task))
