"""Task checks that need the World's registries, added to the core checks that run before an episode starts.

A scheduled World event of a type no handler knows would stop the episode in the middle with a
``TransitionError``; it is refused at ``make``/``reset`` instead, as a ``TaskError`` naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.task_checks import LATER_CHECKS, Problem
from ..world.transition import HANDLERS


def event_type_problem(task: Any) -> Problem | None:
    """The first scheduled World event whose type has no handler, as ``(field, message)``, or None."""
    for i, item in enumerate(task.schedule):
        events = item.get("events") or []
        for j, event in enumerate(events if isinstance(events, list) else []):
            kind = event.get("type") if isinstance(event, Mapping) else None
            if kind not in HANDLERS:
                return f"schedule[{i}].events[{j}].type", f"no World event type {kind!r}"
    return None


if event_type_problem not in LATER_CHECKS:
    LATER_CHECKS.append(event_type_problem)
