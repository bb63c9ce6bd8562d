"""T9 Adversarial content and prompt injection (family ``T9_adversarial``): being built; registers no tasks yet."""

from __future__ import annotations

from ..names import register_family
from ..spec import TaskSpec

FAMILY = "T9_adversarial"


@register_family(FAMILY)
def build(seed: int = 0, *, frozen: bool = True) -> list[TaskSpec]:
    """No tasks yet."""
    return []
