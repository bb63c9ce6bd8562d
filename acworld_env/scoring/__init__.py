"""Scoring: predicate kinds over verified traces, task scores, stage scores, loss attribution."""

from .kinds import KINDS, ScoreInput, predicate
from .score import (
    LOSS_GROUPS,
    STAGES,
    Score,
    invalid,
    save_task_run,
    score_episode,
    score_json,
    score_trace,
)

__all__ = ["KINDS", "LOSS_GROUPS", "STAGES", "Score", "ScoreInput", "invalid", "predicate",
           "save_task_run", "score_episode", "score_json", "score_trace"]
