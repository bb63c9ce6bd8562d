"""The tasks layer's name tables: what task data and the command line refer to by name.

* :data:`POLICIES`: policy name -> constructor. Tasks name their reference, counterparty and
  mutation policies (``PolicyRef``); :func:`acworld_env.policies.make.make_policy` builds them.
  A constructor may be given as its ``"module:attr"`` path, imported on first use (like a
  Gymnasium entry point).
* :data:`SHORTCUTS`: family -> name -> factory of a surface-only shortcut script (the
  baseline gate runs them).
* :data:`FAMILY_BUILDERS`: family -> builder ``build(seed=..., frozen=...) -> tasks``.
* :data:`SUITES`: suite -> loader ``(split, seed) -> tasks``.

The tables sit apart from the modules that fill them, so a family registers its builder,
policies and shortcuts without importing the policies layer above it, and no module imports
a module that imports it back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.name_tables import register_in

if TYPE_CHECKING:
    from ..core.taskspec import TaskSpec

PolicyConstructor = Callable[..., Any]
"""A policy class, or a function, called with a ``PolicyRef``'s ``params`` to build one policy."""
POLICIES: dict[str, PolicyConstructor | str] = {}
"""Policy name -> constructor, or its ``"module:attr"`` path."""


def register_policy(name: str) -> Callable[[PolicyConstructor], PolicyConstructor]:
    """Register a policy constructor under ``name`` (third-party packages may add their own)."""
    return register_in(POLICIES, name)  # type: ignore[arg-type]


ShortcutFactory = Callable[[], Any]
"""Builds one surface-only shortcut script (no arguments)."""
SHORTCUTS: dict[str, dict[str, ShortcutFactory]] = {}
"""Family -> shortcut name -> factory of a policy."""


def register_shortcut(family: str, name: str) -> Callable[[ShortcutFactory], ShortcutFactory]:
    """Register a surface-only shortcut script for ``family`` under ``name``."""
    return register_in(SHORTCUTS.setdefault(family, {}), name)


FamilyBuilder = Callable[..., "list[TaskSpec]"]
FAMILY_BUILDERS: dict[str, FamilyBuilder] = {}
"""Family name -> builder ``build(seed=..., frozen=...)``."""


def register_family(name: str) -> Callable[[FamilyBuilder], FamilyBuilder]:
    """Register a family builder ``build(seed=..., frozen=...)``."""
    return register_in(FAMILY_BUILDERS, name)


SuiteLoader = Callable[[str, int], "list[TaskSpec]"]
SUITES: dict[str, SuiteLoader | str] = {}
"""Suite name -> loader ``(split, seed) -> tasks``, or its ``"module:attr"`` path (imported by
:func:`acworld_env.tasks.suites.load_suite` on first use)."""


def register_suite(name: str) -> Callable[[SuiteLoader], SuiteLoader]:
    """Register a loader ``(split, seed) -> tasks`` (or its ``"module:attr"`` path) under a suite name."""
    return register_in(SUITES, name)
