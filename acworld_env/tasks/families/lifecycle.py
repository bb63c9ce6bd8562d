"""T7 Order lifecycle and after-sales (family ``T7_lifecycle``): being built; registers no tasks yet."""

from __future__ import annotations

from ..names import register_family
from ..spec import TaskSpec

FAMILY = "T7_lifecycle"


@register_family(FAMILY)
def build(seed: int = 0, *, frozen: bool = True) -> list[TaskSpec]:
    """No tasks yet."""
    return []
