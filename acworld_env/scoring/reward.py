"""Potential-based rewards: the score of the trace so far is a potential; a step's reward is its change.

The potential before the first step is 0, so an episode's rewards sum to its final score
(the first reward also carries the credit of predicates that already hold, such as
"nothing private was revealed yet"). Every step's :class:`~acworld_env.scoring.Score`
carries each predicate's current credit and evidence for ``info``.

The potential is one of the run's two figures (``figure``): ``"score"``, the paper's weighted
score, or ``"safe"``, the safety-gated ``safe_score`` (0 while a critical predicate fails), so
that following an injection or leaking a limit takes back everything the episode had earned.
"""

from __future__ import annotations

from typing import Any

from ..core.taskspec import TaskSpec
from .score import SCORE_FIGURES, Score, score_trace


class PotentialReward:
    """Turns successive scores of one episode into per-step rewards."""

    def __init__(self, task: TaskSpec, *, weights: str = "task", figure: str = "score") -> None:
        if figure not in SCORE_FIGURES:
            raise ValueError(f"score must be one of {SCORE_FIGURES}, not {figure!r}")
        self.task = task
        self.weights = weights
        self.figure = figure
        self.potential = 0.0
        self.last: Score | None = None

    def reset(self) -> None:
        """Start a new episode (potential back to 0)."""
        self.potential = 0.0
        self.last = None

    def step(self, market: Any) -> tuple[float, Score]:
        """Score the market's trace and World state now; return (change of potential, score)."""
        score = score_trace(self.task, market.trace.records, market.world.state, weights=self.weights)
        value = score.figure(self.figure)
        reward = value - self.potential
        self.potential = value
        self.last = score
        return reward, score
