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
    # no training task repeats a frozen task's request under another id (T1 mandates hold only a budget)
    train = td.generated_tasks(figures["train_seeds"], exclude=frozen).tasks
    assert set(played) <= {t.task_id for t in train}
    assert not {t.request for t in train} & {t.request for t in frozen}
    assert figures["hints"] == "structured" and 0.0 <= figures["after_without_hints"]["mean"] <= 1.0


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


class _Planned:
    """A stand-in for the learned policy: search with the hints; if nothing fits the budget, look
    without it and abstain; otherwise read candidates until one passes the hinted checks, answer it."""

    def __init__(self) -> None:
        self.f = {name: i for i, name in enumerate(td.FEATURES)}

    def act(self, phi: np.ndarray, mask: np.ndarray, rng: np.random.Generator, greedy: bool = False) -> int:
        on = {name for name, i in self.f.items() if phi[i] > 0}
        if "searches=0" in on:
            label = "search:hints"
        elif "last_search_empty" in on:
            label = "search:hints-no-budget"
        elif "results_over_budget" in on:
            label = "menu:abstain"
        elif "read_passes_checks" in on:
            label = "read.answer"
        else:
            label = "candidate.next"
        choice = td.CHOICES.index(label)
        assert mask[choice], label
        return choice


def test_action_set_reaches_full_credit_on_every_frozen_task() -> None:
    """With hints, the discovery slots can earn every predicate of every frozen T1 task."""
    tasks = td.frozen_tasks()
    env = td.ActionMenu(acworld_env.make("capability-v1", tasks=tasks, hints="structured"))
    rng = np.random.default_rng(0)
    for task in tasks:
        score, steps = td.run_episode(env, task.task_id, _Planned(), rng, seed=0)
        assert score == pytest.approx(1.0), (task.task_id, env.unwrapped.infos[env.agents[0]]["credits"])
        assert sum(r for *_, r in steps) == pytest.approx(score)
    env.close()


def test_without_hints_the_hint_slots_are_unavailable() -> None:
    """Hints off (how models are evaluated): the agent sees words only, so no slot searches with parsed filters."""
    task = td.frozen_tasks()[0]
    env = td.ActionMenu(acworld_env.make("capability-v1", tasks=[task]))
    env.reset(seed=0, options={"task_id": task.task_id})
    view = td.DiscoveryView()
    view.absorb(td.decode_observation(env.env.observe(env.agents[0])))
    actions = dict(zip(td.CHOICES, view.actions({}), strict=True))
    assert actions["search:hints"] is None and actions["search:hints-no-budget"] is None
    assert actions["search:words"] is not None
    env.close()
