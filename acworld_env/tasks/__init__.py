"""Tasks: the frozen spec, family builders, suites.

The spec names below resolve on first use (importing them builds the pydantic task models), so an
env can be made from a frozen suite without building a task model; the World's checks join those
run before an episode the first time an episode checks a task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.task_checks import LATER_MODULES

if TYPE_CHECKING:
    from .spec import CounterpartySpec, MutationSpec, PolicyRef, PredicateSpec, TaskSpec

__all__ = ["CounterpartySpec", "MutationSpec", "PolicyRef", "PredicateSpec", "TaskSpec"]

if "acworld_env.tasks.world_checks" not in LATER_MODULES:
    LATER_MODULES.append("acworld_env.tasks.world_checks")


def __getattr__(name: str) -> Any:
    """The spec classes of :data:`__all__`, imported on first use."""
    if name in __all__:
        from . import spec

        return getattr(spec, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
