"""Task families. Importing this package registers every family's policies, builders and suites.

A family is one module with ``build(seed, frozen) -> list[TaskSpec]`` registered in
:data:`FAMILY_BUILDERS`, plus its reference and counterparty policies registered by name.
"""

from __future__ import annotations

from collections.abc import Callable

from ...core.name_tables import register_in
from ..spec import TaskSpec

FamilyBuilder = Callable[..., list[TaskSpec]]
FAMILY_BUILDERS: dict[str, FamilyBuilder] = {}


def register_family(name: str) -> Callable[[FamilyBuilder], FamilyBuilder]:
    """Register a family builder ``build(seed=..., frozen=...)``."""
    return register_in(FAMILY_BUILDERS, name)


from .. import capability  # noqa: E402,F401
from . import demo, discovery, negotiation, timing  # noqa: E402,F401
