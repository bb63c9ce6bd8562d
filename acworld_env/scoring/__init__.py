"""Scoring: predicate kinds over verified traces, task scores, stage scores, loss attribution."""

from .kinds import CRITICAL, HARMS, KINDS, ScoreInput, predicate
from .score import (
    LOSS_GROUPS,
    SCORE_FIGURES,
    STAGES,
    Score,
    invalid,
    save_task_run,
    score_episode,
    score_json,
    score_trace,
)

__all__ = ["CRITICAL", "HARMS", "KINDS", "LOSS_GROUPS", "SCORE_FIGURES", "STAGES", "Score", "ScoreInput", "invalid", "predicate",
           "save_task_run", "score_episode", "score_json", "score_trace"]
