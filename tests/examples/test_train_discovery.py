"""The discovery training example learns: frozen T1 score rises clearly, with a clean train/test split."""

from __future__ import annotations

import fnmatch
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import acworld_env

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_discovery", ROOT / "examples" / "train_discovery.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


td = _load()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """One small training run (a few seconds), its figures and the JSON it wrote."""
    out = tmp_path_factory.mktemp("train") / "figures.json"
    figures = td.main(["--episodes", "400", "--seed", "0", "--eval-rollouts", "3", "--quiet", "--out", str(out)])
    return figures, out


def test_after_training_is_clearly_higher(run: tuple[dict[str, Any], Path]) -> None:
    figures, _ = run
    before, after = figures["before"]["mean"], figures["after"]["mean"]
    assert after - before >= 0.3, (before, after)
    assert 0.0 <= before <= 1.0 and 0.0 <= after <= 1.0
    assert set(figures["after"]["per_capability"]) == {
        "basic_feasible_discovery", "best_feasible_selection", "correct_abstention",
        "hard_constraint_filtering", "query_reformulation"}


def test_evaluation_uses_only_frozen_t1_and_training_only_generated(run: tuple[dict[str, Any], Path]) -> None:
    figures, _ = run
    frozen = td.frozen_tasks()
    evaluated = figures["eval_task_ids"]
    assert evaluated == [t.task_id for t in frozen] and len(evaluated) == 20
    assert all(fnmatch.fnmatch(i, "capability-v1/T1/*") for i in evaluated)
    assert set(figures["after_per_task"]) == set(evaluated)
    played = figures["train_task_ids_played"]
    assert played and all(fnmatch.fnmatch(i, "generated-*/T1/*") for i in played)
    assert not set(played) & set(evaluated)
    # no training task repeats a frozen task's request under another id
    train = td.generated_tasks(figures["train_seeds"], exclude=frozen).tasks
    frozen_mandates = {json.dumps(t.mandate, sort_keys=True) for t in frozen}
    assert set(played) <= {t.task_id for t in train}
    assert not {json.dumps(t.mandate, sort_keys=True) for t in train} & frozen_mandates


def test_figures_written_as_json(run: tuple[dict[str, Any], Path]) -> None:
    figures, out = run
    assert json.loads(out.read_text()) == figures
    assert figures["episodes"] == 400 and figures["seed"] == 0


def test_deterministic_given_seed() -> None:
    argv = ["--episodes", "40", "--seed", "3", "--eval-rollouts", "1", "--train-seeds", "1-2", "--quiet"]
    first, second = td.main(argv), td.main(argv)
    for figures in (first, second):
        figures.pop("wall_seconds")
    assert first == second


class _Scripted:
    """Plays a fixed sequence of :data:`CHOICES` labels (a stand-in for the learned policy)."""

    def __init__(self, labels: list[str]) -> None:
        self.queue = [td.CHOICES.index(label) for label in labels]

    def act(self, phi: np.ndarray, mask: np.ndarray, rng: np.random.Generator, greedy: bool = False) -> int:
        choice = self.queue.pop(0)
        assert mask[choice], td.CHOICES[choice]
        return choice


def test_action_set_reaches_full_credit_on_every_frozen_task() -> None:
    """The discovery slots keep the mandate's constraints and can earn every predicate."""
    tasks = td.frozen_tasks()
    env = td.ActionMenu(acworld_env.make("capability-v1", tasks=tasks))
    rng = np.random.default_rng(0)
    for task in tasks:
        if task.capability == "correct_abstention":
            labels = ["search:mandate+price_asc", "menu:abstain"]
        else:
            labels = ["search:mandate+phrase" if task.mandate.get("phrase") else "search:mandate",
                      "search:mandate+price_asc", "result[0].get", "read.answer"]
        score, steps = td.run_episode(env, task.task_id, _Scripted(labels), rng, seed=0)
        assert score == pytest.approx(1.0), (task.task_id, env.unwrapped.infos[env.agents[0]]["credits"])
        assert sum(r for *_, r in steps) == pytest.approx(score)
    env.close()
