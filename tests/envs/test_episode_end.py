"""Episode ends are clean for every library (issue 18 §3).

When the episode ends every agent ends in the same step; a finished agent is stepped out with
PettingZoo's dead step; after the end nothing raises (the menu used to raise ``KeyError:
'buyer_0'`` once the last agent was stepped out); the parallel view empties ``agents``.
"""

from __future__ import annotations

import numpy as np
import pytest

import acworld_env
from acworld_env.envs import capability_v1
from acworld_env.wrappers import N_ACTIONS, ActionMenu, GymActionMenu, LLMView, to_parallel
from acworld_env.wrappers.menu import InvalidMenuAction

MIXED = "capability-v1/T10/merchant/*"
"""Self-play tasks with four actors of both roles, the evaluated actor a merchant."""


def _task_ids(pattern: str) -> list[str]:
    env = acworld_env.make("capability-v1", tasks=pattern).unwrapped
    return [t.task_id for t in env.tasks]


def test_every_agent_ends_in_the_step_that_ends_the_evaluated_actor():
    env = acworld_env.make("capability-v1", counterparties="agents")
    multi = 0
    for seed in range(12):
        env.reset(seed=seed)
        evaluated = env.unwrapped.task.actor
        for i, agent in enumerate(env.agents):
            env.action_space(agent).seed(seed * 10 + i)
        for agent in env.agent_iter(400):
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(env.action_space(agent).sample())
            if evaluated in env.terminations and (env.terminations[evaluated] or env.truncations[evaluated]):
                assert all(env.terminations[a] or env.truncations[a] for a in env.agents), env.unwrapped.task.task_id
                multi += len(env.agents) > 1
                break
    assert multi >= 6


@pytest.mark.parametrize("wrap", [lambda e: e, ActionMenu, LLMView], ids=["aec", "menu", "llm"])
def test_stepping_after_the_end_is_a_no_op(wrap):
    for task_id in _task_ids(MIXED)[:2] + _task_ids("capability-v1/T4/buyer/*")[:1]:
        env = wrap(acworld_env.make("capability-v1", counterparties="agents", task_id=task_id))
        env.reset(seed=0)
        first = env.agent_selection
        env.step({"kind": "finish"} if wrap is not ActionMenu else _finish_slot(env, first))
        assert env.terminations[first] and all(env.truncations[a] for a in env.agents if a != first)
        if wrap is ActionMenu or wrap is LLMView:
            env.step(3 if wrap is ActionMenu else {"kind": "finish"})  # the views take any action as the dead step
        else:
            with pytest.raises(ValueError, match="only valid action is None"):  # PettingZoo's rule for AEC envs
                env.step({"kind": "finish"})
        while env.agents:
            env.step(None)
        trace = len(env.unwrapped.episode.market.trace.records)
        for action in (None, 0, {"kind": "finish"}):
            env.step(action)  # warns, changes nothing
        assert env.agents == [] and len(env.unwrapped.episode.market.trace.records) == trace
        assert env.unwrapped.step(None) is None  # the raw env too


def _finish_slot(env: ActionMenu, agent: str) -> int:
    return next(i for i, label, _ in env.describe(agent) if label == "finish")


def test_menu_parallel_self_play_with_mixed_roles_reaches_the_end_without_errors():
    """The reported case: ActionMenu, counterparties="agents", both roles; fixed-size actions for every agent."""
    env = to_parallel(ActionMenu(acworld_env.make("capability-v1", counterparties="agents", tasks="*/T10/*")))
    rng = np.random.default_rng(0)
    roles, steps = set(), 0
    for seed in range(8):
        obs, infos = env.reset(seed=seed)
        roles.add(env.unwrapped.task.initial_state["actors"][env.unwrapped.task.actor]["role"])
        while env.agents:
            playing = set(env.agents)
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) if a in obs else 0
                       for a in env.possible_agents}
            obs, rewards, terms, truncs, infos = env.step(actions)
            assert set(obs) == set(rewards) == set(terms) == set(truncs) == set(infos) == playing
            assert set(env.agents) == {a for a in playing if not (terms[a] or truncs[a])}
            steps += 1
        assert all(terms[a] or truncs[a] for a in terms)
        assert env.step({a: 0 for a in env.possible_agents}) == ({}, {}, {}, {}, {})
    assert roles == {"buyer", "merchant"} and steps > 16


def test_parallel_end_empties_agents_and_ends_everyone_together():
    env = capability_v1.parallel_env(counterparties="agents", tasks="capability-v1/T4/*")
    env.reset(seed=1)
    evaluated = env.unwrapped.task.actor
    assert len(env.agents) == 2
    obs, rewards, terms, truncs, infos = env.step({evaluated: {"kind": "abstain", "reason": "not today"}})
    assert terms[evaluated] and all(truncs[a] for a in terms if a != evaluated)
    assert env.agents == [] and set(terms) == {evaluated, *[a for a in terms if a != evaluated]}
    assert rewards[evaluated] == pytest.approx(env.unwrapped.score.score)


def test_missing_action_of_the_active_agent_is_the_idle_action():
    env = capability_v1.parallel_env()
    obs, infos = env.reset(seed=0)
    agent = env.agents[0]
    assert infos[agent]["active_agent"] == agent
    env.step({})
    assert env.unwrapped.infos[agent]["validation"]["kind"] == "get_inbox"


@pytest.mark.parametrize("bad", [N_ACTIONS, -1, 10**6, 1.5, "3", None.__class__, True])
def test_out_of_range_menu_index_is_a_clear_error(bad):
    env = ActionMenu(acworld_env.make("demo-v1"))
    env.reset(seed=0)
    with pytest.raises(InvalidMenuAction, match=r"Discrete\(\d+\)"):
        env.step(bad)
    assert env.unwrapped.episode.steps["buyer_0"] == 0  # nothing was submitted
    env.step(np.int64(0))
    env.step(np.array(0))
    assert env.unwrapped.episode.steps["buyer_0"] == 2


def test_gym_menu_out_of_range_index_is_a_clear_error():
    import gymnasium

    env = GymActionMenu(gymnasium.make("acworld/demo-v1").unwrapped)
    env.reset(seed=0)
    with pytest.raises(InvalidMenuAction, match="outside"):
        env.step(N_ACTIONS)
    assert isinstance(InvalidMenuAction("x"), ValueError)
