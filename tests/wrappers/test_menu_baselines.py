"""The trivial menu policies of the baseline gate: what they play, that they are seeded, and the gate's line."""

from __future__ import annotations

from acworld_env.envs.candidates import menu_actions
from acworld_env.envs.known import Known
from acworld_env.eval.baseline_gate import MENU_MEAN, BaselineRun, gate_failures, run_baselines
from acworld_env.eval.rollout import run_episode
from acworld_env.tasks.suites import load_suite
from acworld_env.wrappers.menu_baselines import MenuSlotPolicy


def _tasks() -> list:
    tasks = load_suite("capability-v1", "frozen", 0)
    return [next(t for t in tasks if t.family == f) for f in ("T1_discovery", "T7_lifecycle", "T10_timing")]


def test_menu_first_plays_the_first_open_slot_and_menu_random_is_seeded():
    task = _tasks()[0]
    policy = MenuSlotPolicy()
    policy.reset()
    obs = {"actor": task.actor, "role": task.role, "request": task.request, "mandate": task.mandate, "inbox": [],
           "step": 0, "max_steps": task.max_steps, "last_result": None}
    known = Known(actor=task.actor, role=task.role)
    known.feed(obs)
    first = next(a for a in menu_actions(known) if a is not None)
    assert policy.act(obs) == first
    runs = [[run_episode(t, MenuSlotPolicy(random=True, seed=3), seed=3).score.score for t in _tasks()]
            for _ in range(2)]
    assert runs[0] == runs[1]
    firsts = {str(MenuSlotPolicy(random=True, seed=s).act(dict(obs))) for s in range(8)}
    assert len(firsts) > 1  # the seed decides which open slot is played


def test_the_gate_runs_both_menu_baselines_and_fails_one_over_the_line():
    names = {r.baseline for r in run_baselines(_tasks(), seeds=2)}
    assert {"menu:first", "menu:random"} <= names
    at, over = BaselineRun("T1_discovery", "menu:random"), BaselineRun("T1_discovery", "menu:first")
    at.scores, over.scores = {"a": MENU_MEAN}, {"a": MENU_MEAN + 0.01}
    assert gate_failures([at]) == []
    assert gate_failures([over]) == ["T1_discovery / menu:first: mean 0.210 > 0.2 (a trivial menu policy)"]
