"""The validity gate of a suite: references earn full credit, mutations lower exactly what they declare,
and every trace reconstructs and rescores identically."""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..artifacts import verify_run
from ..policies.make import make_policy
from ..tasks.spec import TaskSpec, task_dir_name
from .rollout import run_episode


@dataclass
class FamilyReport:
    """Counts of one family."""

    tasks: int = 0
    references_full: int = 0
    mutations: int = 0
    mutations_ok: int = 0
    traces_verified: int = 0
    rescored_identical: int = 0
    identities: int = 0
    failures: list[str] = field(default_factory=list)


def _rescore_identical(run_dir: Path) -> bool:
    from ..scoring.rescore import rescore_run, score_json

    return score_json(rescore_run(run_dir)) == (run_dir / "score.json").read_text()


def validate_tasks(tasks: list[TaskSpec], *, workdir: Path | None = None) -> dict[str, FamilyReport]:
    """Run every reference and mutation of ``tasks`` and check them; reports by family.

    Each task's runs go to a folder named by :func:`~acworld_env.core.taskspec.task_dir_name`; a task id
    that could climb out of ``workdir`` (``..``, ``/abs``) raises ``TaskError`` before anything is written."""
    reports: dict[str, FamilyReport] = defaultdict(FamilyReport)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(workdir or tmp)
        for task in tasks:
            rep = reports[task.family]
            rep.tasks += 1
            base = root / task_dir_name(task.task_id)
            ref = run_episode(task, make_policy(task.reference), out_dir=base / "reference")
            if ref.score.full_credit and ref.score.score == 1.0:
                rep.references_full += 1
            else:
                low = {k: v for k, v in ref.score.credits.items() if v < 1}
                rep.failures.append(f"{task.task_id}: reference scored {ref.score.score:.3f} {low}")
            if identity_holds(task, ref.score):
                rep.identities += 1
            else:
                rep.failures.append(f"{task.task_id}: score {ref.score.score} is not the sum of its stage contributions")
            for run_dir in [base / "reference"]:
                _check_artifacts(run_dir, task, rep)
            for i, mut in enumerate(task.mutations):
                rep.mutations += 1
                out = base / f"mutation-{i}"
                res = run_episode(task, make_policy(mut.policy), out_dir=out)
                lowered = sorted(k for k, v in res.score.credits.items() if v < ref.score.credits[k])
                if lowered == sorted(mut.lowers) and res.score.score < 1.0:
                    rep.mutations_ok += 1
                else:
                    rep.failures.append(f"{mut.id}: lowered {lowered}, declared {sorted(mut.lowers)}, "
                                        f"score {res.score.score:.3f}")
                _check_artifacts(out, task, rep)
    return dict(reports)


def identity_holds(task: TaskSpec, score: object) -> bool:
    """The process-score identity: the score equals the sum of its stage contributions (each stage's score
    times the stage's share of the predicate weight)."""
    weights: dict[str, float] = defaultdict(float)
    for p in task.predicates:
        weights[p.stage] += p.weight
    total = sum(weights.values())
    stages = getattr(score, "stages", {})
    if not total or set(stages) != set(weights):
        return False
    return abs(sum(stages[k] * w / total for k, w in weights.items()) - getattr(score, "score", -1.0)) < 1e-9


def _check_artifacts(run_dir: Path, task: TaskSpec, rep: FamilyReport) -> None:
    v = verify_run(run_dir)
    if v.ok:
        rep.traces_verified += 1
    else:
        rep.failures.append(f"{task.task_id} {run_dir.name}: reconstruction failed: {v.message}")
    if _rescore_identical(run_dir):
        rep.rescored_identical += 1
    else:
        rep.failures.append(f"{task.task_id} {run_dir.name}: rescore differs from the saved score")


def predicate_stats(tasks: list[TaskSpec]) -> dict[str, float]:
    """Predicate count and the weight range within tasks."""
    weights = [p.weight for t in tasks for p in t.predicates]
    return {"tasks": len(tasks), "predicates": len(weights), "min_weight": min(weights),
            "max_weight": max(weights), "mutations": sum(len(t.mutations) for t in tasks)}
