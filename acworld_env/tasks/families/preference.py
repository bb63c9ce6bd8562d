"""T3 Preference (family ``T3_preference``): preference trade-offs and social decisions, all Buyer.

The shopper orders one listing (a real World effect) after weighing what the principal asked:
a points scheme over 2 to 6 preferences (graded by utility relative to the optimum), absolute
rules over soft wishes, verified reviews and seller records over star badges, paid or
unverified signals, signed mid-episode revisions over impostors, and each authority layer's
scope. Builders: ``preference_choice`` (weighted, hard over soft), ``preference_social``
(social evidence, noisy signals), ``preference_authority`` (updates, mandate consistency);
rubric in ``preference_rubric``; policies and shortcuts in ``preference_policy`` and
``preference_shortcuts``.
"""

from __future__ import annotations

from ..names import register_family
from ..spec import TaskSpec
from . import (
    preference_policy,  # noqa: F401  (registers the shopper and messenger policies)
    preference_shortcuts,  # noqa: F401  (registers the baseline shortcuts)
)
from .preference_build import build_tasks
from .preference_rubric import FAMILY


@register_family(FAMILY)
def build(seed: int = 0, *, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T3 tasks, or fresh ones from ``seed``."""
    return build_tasks(seed, frozen)
