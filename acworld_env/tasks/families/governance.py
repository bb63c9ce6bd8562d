"""T8 Multi-merchant markets and governance (family ``T8_governance``): being built; registers no tasks yet."""

from __future__ import annotations

from ..names import register_family
from ..spec import TaskSpec

FAMILY = "T8_governance"


@register_family(FAMILY)
def build(seed: int = 0, *, frozen: bool = True) -> list[TaskSpec]:
    """No tasks yet."""
    return []
