"""Rewards from the task score: potential-based (the default), terminal-only or success-only, and the
info fields.

The potential is :class:`acworld_env.scoring.reward.PotentialReward` (the score of the trace so
far, 0 before the first step); this module adds the terminal and success modes and the info dict.
"""

from __future__ import annotations

from typing import Any, Literal

from ..scoring import Score
from ..scoring.reward import PotentialReward
from ..tasks.spec import TaskSpec

RewardMode = Literal["potential", "terminal", "success"]
REWARD_MODES = ("potential", "terminal", "success")
"""What a learner sees: ``potential`` a dense signal (each predicate's credit as it is earned, taken back
when it is lost), ``terminal`` the graded score once, ``success`` only whether the task was solved."""


class EpisodeReward:
    """One episode's rewards in the chosen mode: tracks the task score of a live market.

    ``potential``: each step's reward is the change of the score since the previous step,
    starting from 0 at reset, so an episode's rewards sum to its final score.
    ``terminal``: 0 until the evaluated actor is done, then the whole score once.
    ``success``: 0 until the evaluated actor is done, then 1 if the task is fully solved (full credit,
    and with ``figure="safe"`` no critical predicate failed), else 0: the outcome-only signal of most
    LLM RL, which tells a learner nothing about partial progress.
    ``figure``: the score paid, ``"score"`` (weighted) or ``"safe"`` (``safe_score``: 0 while any
    critical predicate fails).
    """

    def __init__(self, task: TaskSpec, mode: RewardMode = "potential", figure: str = "score") -> None:
        if mode not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, not {mode!r}")
        self.mode = mode
        self.tracker = PotentialReward(task, figure=figure)
        self.paid = False
        self.score: Score | None = None

    def update(self, market: Any, done: bool) -> float:
        """Rescore the market; return the evaluated actor's reward for this step."""
        reward, self.score = self.tracker.step(market)
        if self.mode == "potential":
            return reward
        if done and not self.paid:
            self.paid = True
            value = self.score.figure(self.tracker.figure)
            if self.mode == "success":
                return 1.0 if self.score.full_credit and value >= 1.0 else 0.0
            return value
        return 0.0

    def info(self) -> dict[str, Any]:
        """Score fields for the evaluated actor's info."""
        s = self.score
        if s is None:
            return {}
        return {"score": s.score, "safe_score": s.safe_score, "critical_failed": list(s.critical_failed),
                "full_credit": s.full_credit, "credits": dict(s.credits),
                "evidence": dict(s.evidence), "stages": dict(s.stages), "loss_group": s.loss_group}
