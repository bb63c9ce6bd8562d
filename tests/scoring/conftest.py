"""Fixtures for scoring tests; plain helpers live in scoring_kit.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from scoring_kit import MERCHANT, RandomDemoPolicy

from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy
from acworld_env.tasks.families.demo import build_demo_task
from acworld_env.tasks.spec import TaskSpec


@pytest.fixture(scope="session")
def demo_task() -> TaskSpec:
    return build_demo_task()


@pytest.fixture(scope="session")
def demo_runs(tmp_path_factory: pytest.TempPathFactory, demo_task: TaskSpec) -> dict[str, Path]:
    """Saved demo runs: reference, each mutation, a rejected-then-valid run, and random runs."""
    root = tmp_path_factory.mktemp("runs")
    runs = {"reference": run_episode(demo_task, make_policy(demo_task.reference),
                                     out_dir=root / "reference").out_dir}
    for m in demo_task.mutations:
        runs[m.id] = run_episode(demo_task, make_policy(m.policy), out_dir=root / m.id).out_dir
    fixed = make_policy({"name": "fixed", "params": {"actions": [
        {"kind": "accept_offer", "thread_id": "thr-9999"},
        {"kind": "propose_offer", "to": MERCHANT, "listing_id": "L-grinder", "unit_price": 8_000},
        {"kind": "abstain", "reason": "Too expensive."},
    ]}})
    runs["rejected_then_abstain"] = run_episode(demo_task, fixed, out_dir=root / "fixed").out_dir
    for seed in range(6):
        runs[f"random-{seed}"] = run_episode(demo_task, RandomDemoPolicy(seed), seed=seed,
                                             out_dir=root / f"random-{seed}").out_dir
    return runs


@pytest.fixture
def copy_run(tmp_path: Path, demo_runs: dict[str, Path]):
    """A private copy of a saved run, safe to tamper with."""

    def copy(name: str = "reference") -> Path:
        dest = tmp_path / name
        shutil.copytree(demo_runs[name], dest)
        return dest

    return copy
