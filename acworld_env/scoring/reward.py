"""Potential-based rewards: the score of the trace so far is a potential; a step's reward is its change.

The potential before the first step is 0, so an episode's rewards sum to its final score
(the first reward also carries the credit of predicates that already hold, such as
"nothing private was revealed yet"). Every step's :class:`~acworld_env.scoring.Score`
carries each predicate's current credit and evidence for ``info``.
"""

from __future__ import annotations

from typing import Any

from ..core.taskspec import TaskSpec
from .score import Score, score_trace


class PotentialReward:
    """Turns successive scores of one episode into per-step rewards."""

    def __init__(self, task: TaskSpec, *, weights: str = "task") -> None:
        self.task = task
        self.weights = weights
        self.potential = 0.0
        self.last: Score | None = None

    def reset(self) -> None:
        """Start a new episode (potential back to 0)."""
        self.potential = 0.0
        self.last = None

    def step(self, market: Any) -> tuple[float, Score]:
        """Score the market's trace and World state now; return (change of potential, score)."""
        score = score_trace(self.task, market.trace.records, market.world.state, weights=self.weights)
        reward = score.score - self.potential
        self.potential = score.score
        self.last = score
        return reward, score
