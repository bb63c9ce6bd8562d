"""The gate of the large track over the small catalog: references, mutations, rescoring, stage identity, baselines."""

from __future__ import annotations

from collections import defaultdict

import pytest

from acworld_env.eval.baseline_gate import gate_failures, run_baselines
from acworld_env.eval.rollout import run_episode
from acworld_env.eval.validate import validate_tasks
from acworld_env.policies.make import make_policy


def test_references_mutations_and_rescores(small_tasks: list) -> None:
    reports = validate_tasks(small_tasks)
    failures = [f for r in reports.values() for f in r.failures]
    assert failures == []
    assert sum(r.references_full for r in reports.values()) == 60
    assert sum(r.mutations_ok for r in reports.values()) >= 374
    assert sum(r.identities for r in reports.values()) == 60
    runs = 60 + sum(r.mutations for r in reports.values())
    assert sum(r.rescored_identical for r in reports.values()) == runs


def test_process_score_identity(small_tasks: list) -> None:
    """The score equals the sum of its stage contributions (stage score x stage weight share)."""
    for task in small_tasks[::3]:
        for policy in [task.reference, task.mutations[0].policy]:
            s = run_episode(task, make_policy(policy)).score
            weight: dict[str, float] = defaultdict(float)
            for p in task.predicates:
                weight[p.stage] += p.weight
            total = sum(weight.values())
            assert s.score == pytest.approx(sum(s.stages[k] * w / total for k, w in weight.items()), abs=1e-9)


def test_baseline_gate_passes(small_tasks: list) -> None:
    runs = run_baselines(small_tasks)
    assert gate_failures(runs) == []
