"""The env's order-enforcing wrapper behaves as PettingZoo's (issue 32: it only reads fields directly).

:class:`acworld_env.envs.order_enforcing.OrderEnforcing` overrides ``last`` and ``agent_iter``; before a reset it
must fail as ``OrderEnforcingWrapper`` fails, and after one give the same values, agent by agent.
"""

from __future__ import annotations

from typing import Any

import pytest
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import acworld_env
from acworld_env.envs.aec import AcworldAECEnv
from acworld_env.envs.order_enforcing import OrderEnforcing
from acworld_env.envs.spaces import decode_observation
from acworld_env.policies.make import make_policy


def _outcome(fn: Any) -> tuple[str, str]:
    try:
        fn()
    except Exception as exc:  # the failure is the behaviour under test
        return type(exc).__name__, str(exc)
    return "ok", ""


@pytest.mark.parametrize("call", [lambda e: e.last(), lambda e: next(iter(e.agent_iter())),
                                  lambda e: e.agent_selection, lambda e: e.observe("buyer_0")])
def test_before_reset_it_fails_as_the_base_wrapper_fails(call: Any) -> None:
    ours, base = OrderEnforcing(AcworldAECEnv()), OrderEnforcingWrapper(AcworldAECEnv())
    assert _outcome(lambda: call(ours)) == _outcome(lambda: call(base))
    assert _outcome(lambda: call(ours))[0] != "ok"


def _play(env: Any, task_id: str) -> list[tuple]:
    env.reset(seed=0, options={"task_id": task_id})
    policy = make_policy(env.unwrapped.task.reference)
    policy.reset(0)
    seen = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        seen.append((agent, obs["json"], obs["text"], reward, term, trunc, info["trace_digest"], info.get("score")))
        env.step(None if term or trunc else policy.act(decode_observation(obs)))
    return seen


def test_an_episode_yields_the_same_agents_and_values() -> None:
    ours = acworld_env.make("capability-v1")
    assert isinstance(ours, OrderEnforcing) and str(ours) == str(ours.unwrapped)
    base = OrderEnforcingWrapper(AcworldAECEnv(suite="capability-v1", name="acworld_capability_v1"))
    for task in ours.unwrapped.tasks[::40]:
        assert _play(ours, task.task_id) == _play(base, task.task_id)


def test_iterating_without_stepping_is_refused() -> None:
    env = acworld_env.make("capability-v1")
    env.reset(seed=0)
    agents = iter(env.agent_iter())
    next(agents)
    with pytest.raises(AssertionError, match="need to call step"):
        next(agents)
