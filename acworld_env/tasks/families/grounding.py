"""T2 Grounding (family ``T2_grounding``): being built; registers no tasks yet."""

from __future__ import annotations

from ..names import register_family
from ..spec import TaskSpec

FAMILY = "T2_grounding"


@register_family(FAMILY)
def build(seed: int = 0, *, frozen: bool = True) -> list[TaskSpec]:
    """No tasks yet."""
    return []
