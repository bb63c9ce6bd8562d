"""PettingZoo and Gymnasium conformance of make("capability-v1") and its single-agent view."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

import acworld_env
from acworld_env.wrappers import parallel_env


def test_pettingzoo_api_test():
    api_test(acworld_env.make("capability-v1"), num_cycles=300)


def test_pettingzoo_api_test_self_play():
    api_test(acworld_env.make("capability-v1", counterparties="agents"), num_cycles=300)


@pytest.mark.parametrize("counterparties", ["scripted", "agents"])
def test_pettingzoo_seed_test(counterparties):
    seed_test(lambda: acworld_env.make("capability-v1", counterparties=counterparties), num_cycles=100)


def test_pettingzoo_render_test():
    render_test(lambda render_mode=None: acworld_env.make("capability-v1", render_mode=render_mode))


def test_parallel_api_test():
    parallel_api_test(parallel_env("capability-v1"), num_cycles=100)
    parallel_api_test(parallel_env("capability-v1", counterparties="agents"), num_cycles=100)


def test_gymnasium_check_env_on_single_agent_view():
    env = gymnasium.make("acworld/capability-v1")
    check_env(env.unwrapped)
    assert gymnasium.make("acworld/demo-v1").unwrapped.aec.tasks[0].task_id == "demo/negotiation-001"


def test_gym_view_plays_and_refuses_steps_after_the_end():
    env = gymnasium.make("acworld/demo-v1").unwrapped
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["evaluated"]
    obs, reward, terminated, truncated, info = env.step({"kind": "finish"})
    assert terminated and not truncated and reward == pytest.approx(info["score"])
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step({"kind": "finish"})


def test_ansi_render_is_the_transcript():
    env = acworld_env.make("demo-v1", render_mode="ansi")
    env.reset(seed=0)
    env.step({"kind": "propose_offer", "to": "merchant_0", "listing_id": "L-grinder", "unit_price": 8000})
    text = env.render()
    assert text.startswith("demo/negotiation-001") and "propose_offer" in text and "$80.00" in text
