"""T3 Preference: the plan of frozen tasks and the family builder (registered from ``preference``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..spec import TaskSpec
from .preference_authority import consistency, update
from .preference_choice import hard_over_soft, weighted
from .preference_rubric import Draft, to_task
from .preference_social import noisy, social

PLAN: list[tuple[str, int, Callable[[np.random.Generator, int], Draft]]] = [
    ("hard_over_soft", 4, hard_over_soft), ("mandate_consistency", 2, consistency),
    ("noisy_social_signals", 3, noisy), ("preference_update", 3, update),
    ("social_evidence", 4, social), ("weighted_soft_preferences", 4, weighted),
]


def build_tasks(seed: int = 0, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T3 tasks, or fresh ones drawn from ``seed`` (ids ``generated-<seed>/T3/...``)."""
    rng = np.random.default_rng([3, 2026] if frozen else [3, seed, 11])
    prefix = "capability-v1/T3" if frozen else f"generated-{seed}/T3"
    offset = 0 if frozen else 1 + seed % 5
    return [to_task(f"{prefix}/buyer/{cap}/{i + 1:02d}", make(rng, i + offset))
            for cap, count, make in PLAN for i in range(count)]
