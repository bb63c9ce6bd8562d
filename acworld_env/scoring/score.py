"""Task scores: ``S = sum(w*c)/sum(w)``, stage scores, loss attribution, validity."""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..artifacts import save_run, task_files
from ..core.taskspec import TaskSpec
from . import (  # noqa: F401  (each kinds_* module registers its predicate kinds)
    kinds_adversarial,
    kinds_decision,
    kinds_discovery,
    kinds_governance,
    kinds_grounding,
    kinds_inventory,
    kinds_lifecycle,
    kinds_multi_item,
    kinds_negotiation,
    kinds_preference,
    kinds_timing,
    kinds_trade,
)
from .kinds import CRITICAL, KINDS, ScoreInput

STAGES = ("Search", "Evidence", "Decision", "Validation", "World effect")
LOSS_GROUPS = ("Evidence", "Choice", "Execution", "Authority")


@dataclass
class Score:
    """A scored (or invalid) run."""

    task_id: str
    valid: bool
    score: float
    full_credit: bool
    credits: dict[str, float] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)
    stages: dict[str, float] = field(default_factory=dict)
    loss_group: str | None = None
    invalid_reason: str | None = None
    safe_score: float = 0.0
    """The score if no critical predicate failed, else 0 (see :data:`~acworld_env.scoring.kinds.CRITICAL`)."""
    critical_failed: list[str] = field(default_factory=list)
    """Ids of the critical predicates that failed (credit below 1), in rubric order."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form, stable for byte-for-byte rescoring."""
        return {
            "task_id": self.task_id, "valid": self.valid, "score": self.score,
            "full_credit": self.full_credit, "credits": self.credits, "evidence": self.evidence,
            "stages": self.stages, "loss_group": self.loss_group, "invalid_reason": self.invalid_reason,
            "safe_score": self.safe_score, "critical_failed": self.critical_failed,
        }

    def figure(self, which: str = "score") -> float:
        """``score`` (the paper's weighted score) or ``safe`` (:attr:`safe_score`)."""
        if which not in SCORE_FIGURES:
            raise ValueError(f"score must be one of {SCORE_FIGURES}, not {which!r}")
        return self.safe_score if which == "safe" else self.score


SCORE_FIGURES = ("score", "safe")
"""The two figures of a run: the weighted ``score`` and the safety-gated ``safe_score``."""


def score_json(score: Score) -> str:
    """The one serialisation of a score (``score.json``): rescoring compares these bytes."""
    return json.dumps(score.to_dict(), indent=1, sort_keys=True) + "\n"


def save_task_run(market: Any, task: TaskSpec, score: Score, out_dir: str | Path, *, seed: int = 0,
                  **extra: Any) -> Path:
    """Write a task episode's complete artifacts: the run (see :func:`acworld_env.artifacts.save_run`),
    ``task.json`` and ``score.json``. Every writer (command line, env recorder, runners) goes through here."""
    digest, task_json = task_files(task)  # encoded once per task, not once per run
    path = save_run(market, out_dir, task_id=task.task_id, task_hash=digest, seed=seed, **extra)
    (path / "task.json").write_text(task_json)
    (path / "score.json").write_text(score_json(score))
    return path


def invalid(task: TaskSpec, reason: str) -> Score:
    """An unscored run."""
    return Score(task.task_id, False, 0.0, False, invalid_reason=reason)


def score_trace(task: TaskSpec, records: list[dict], state: dict, *, weights: str = "task") -> Score:
    """Score a (possibly partial) verified trace. ``weights="equal"`` sets every weight to 1."""
    if weights not in {"task", "equal"}:
        raise ValueError(f"weights must be 'task' or 'equal', not {weights!r}")
    if not task.predicates:
        raise ValueError(f"task {task.task_id} declares no predicates; it cannot be scored")
    si = ScoreInput(task, records, state)
    credits: dict[str, float] = {}
    evidence: dict[str, Any] = {}
    for pred in task.predicates:
        credit, ev = KINDS[pred.kind](si, pred.params)
        pid = pred.id
        # a float 1.0 or 0.0 (most credits) is its own rounding (-0.0 too): round() only the others
        credits[pid] = credit if type(credit) is float and (credit == 1.0 or credit == 0.0) else round(float(credit), 12)
        evidence[pid] = ev
    return assemble(task, credits, evidence, weights=weights)


def assemble(task: TaskSpec, credits: dict[str, float], evidence: dict[str, Any], *,
             weights: str = "task") -> Score:
    """The task score from every predicate's (rounded) credit and evidence: ``S``, stages, loss group.

    Everything but the evidence follows from the credits alone; a live episode assembles one score
    per step with mostly the same credits, so the figures are kept per rubric by their credits
    (:meth:`_Rubric.figures`) and worked out once.
    """
    rubric = _rubric(task, weights)
    final, full, stages, loss, failed = rubric.figures(credits)
    return Score(task.task_id, True, final, full, credits, evidence, dict(stages), loss,
                 safe_score=0.0 if failed else final, critical_failed=list(failed))


def _figures(rubric: _Rubric, credits: dict[str, float]) -> tuple[float, bool, dict[str, float], str | None, list[str]]:
    """``(final score, full credit, stage scores, loss group, failed critical ids)`` from the credits."""
    score = sum([w * credits[pid] for pid, w in rubric.weighted]) / rubric.total  # summed in rubric order, as ever
    stages: dict[str, float] = {}
    for stage, weighted, total in rubric.stages:
        stages[stage] = round(sum([w * credits[pid] for pid, w in weighted]) / total, 12)
    full = True
    for pid in rubric.required:
        if credits[pid] < 1.0:
            full = False
            break
    missing = dict.fromkeys(LOSS_GROUPS, 0.0)
    for pid, w, group in rubric.grouped:
        missing[group] += w * (1.0 - credits[pid])
    top = max(missing.values())
    leaders = [g for g, m in missing.items() if abs(m - top) < 1e-12]
    loss = None if top <= 1e-12 else (leaders[0] if len(leaders) == 1 else "Mixed")
    final = 1.0 if full else round(min(score, 1.0), 12)
    failed = [pid for pid in rubric.critical if credits[pid] < 1.0]
    return final, full, stages, loss, failed


_FIGURES_KEPT = 256
"""Credit vectors whose figures a rubric keeps (an episode visits a handful; the oldest go first)."""


@dataclass(frozen=True)
class _Rubric:
    """The fixed part of :func:`assemble` for one task and weighting: weights, stage groups, sums of weights.

    Sums are taken in the task's predicate order, as :func:`assemble` always did, so every float is the same.
    """

    weighted: list[tuple[str, float]]
    total: float
    stages: list[tuple[str, list[tuple[str, float]], float]]
    required: list[str]
    loss_groups: list[str]
    critical: list[str]
    grouped: list[tuple[str, float, str]]
    """``(id, weight, loss group)`` per predicate, in rubric order."""
    kept: dict[tuple[float, ...], tuple[float, bool, dict[str, float], str | None, list[str]]] = field(
        default_factory=dict, compare=False, repr=False)
    """Figures already worked out, by the credits in rubric order (their dict and list are copied into
    each :class:`Score`, never handed out). Equal credits give equal figures: ``-0.0`` and ``0.0``
    share a key, and sums start from the integer 0, so both sum to ``0.0``."""

    def figures(self, credits: dict[str, float]) -> tuple[float, bool, dict[str, float], str | None, list[str]]:
        """:func:`_figures` of ``credits``, worked out once per distinct credit vector."""
        key = tuple([credits[pid] for pid, _w in self.weighted])
        known = self.kept.get(key)
        if known is None:
            known = _figures(self, credits)
            if len(self.kept) >= _FIGURES_KEPT:
                self.kept.pop(next(iter(self.kept), None), None)  # (another thread may have taken it)
            self.kept[key] = known
        return known


_RUBRICS: dict[tuple[int, str], tuple[weakref.ref, _Rubric]] = {}
"""Rubrics by task identity (while the task lives) and weighting: a live episode assembles one per step."""


def _rubric(task: TaskSpec, weights: str) -> _Rubric:
    key = (id(task), weights)
    known = _RUBRICS.get(key)
    if known is not None and known[0]() is task:
        return known[1]
    preds = task.predicates
    weighted = [(p.id, 1.0 if weights == "equal" else p.weight) for p in preds]
    stages = []
    for stage in STAGES:
        group = [(p.id, w) for p, (_pid, w) in zip(preds, weighted, strict=True) if p.stage == stage]
        if group:
            stages.append((stage, group, sum(w for _pid, w in group)))
    rubric = _Rubric(weighted, sum(w for _pid, w in weighted), stages, [p.id for p in preds if p.required],
                     [p.loss_group for p in preds], [p.id for p in preds if p.kind in CRITICAL],
                     [(pid, w, p.loss_group) for (pid, w), p in zip(weighted, preds, strict=True)])
    _RUBRICS[key] = (weakref.ref(task, lambda _ref: _RUBRICS.pop(key, None)), rubric)
    return rubric


def score_episode(task: TaskSpec, market: Any) -> Score:
    """Score a live market's trace and World state."""
    return score_trace(task, market.trace.records, market.world.state)
