"""The client env behaves exactly like the local env: spaces, observations, rewards, infos, digests."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import acworld_env
from acworld_env.envs.spaces import decode_observation
from acworld_env.policies.make import make_policy
from acworld_env.remote.client import RemoteAECEnv, RemoteEnvError
from acworld_env.remote.parity import play


def _stream(env: Any, policy_for: Any, *, seed: int | None = 0, options: dict | None = None,
            meta: bool = False) -> list[Any]:
    """Every ``last()`` of one episode, plus each step's action, in plain comparable form."""
    env.reset(seed=seed, options=options)
    policies: dict[str, Any] = {}
    rows = []
    for agent in env.agent_iter(max_iter=3000):
        obs, reward, term, trunc, info = env.last()
        rows.append([agent, {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in obs.items()},
                     reward, term, trunc, json.dumps(info, sort_keys=True, default=str)])
        if term or trunc:
            env.step(None)
            continue
        if agent not in policies:
            policies[agent] = policy_for(env, agent)
        action = policies[agent].act(decode_observation(obs))
        if meta:
            env.unwrapped.annotate({"model": "test", "latency_s": 0.5})
        env.step(action)
    return rows


def _reference(env: Any, agent: str) -> Any:
    """The task's reference for its actor, the task's scripted policy for a counterparty agent."""
    scripted = {c.actor: c.policy for c in _TASK.counterparties}
    if agent != _TASK.actor and agent not in scripted:
        return _Idle()
    policy = make_policy(_TASK.reference if agent == _TASK.actor else scripted[agent])
    policy.reset(0)
    return policy


class _Idle:
    """An actor with no scripted policy: idles (reads its inbox) every turn."""

    def act(self, obs: dict[str, Any]) -> None:
        return None


_TASK: Any = None


@pytest.mark.parametrize("index", [0, 21, 45])
def test_same_stream_as_the_local_env(server: tuple[str, Any], tasks: list[Any], index: int) -> None:
    global _TASK
    _TASK = task = tasks[index % len(tasks)]
    local = acworld_env.make("capability-v1", task_id=task.task_id)
    remote = acworld_env.make("capability-v1", transport="http", url=server[0], task_id=task.task_id)
    try:
        assert remote.possible_agents == local.possible_agents
        for a in local.possible_agents:
            assert remote.observation_space(a) == local.observation_space(a)
            assert remote.action_space(a) == local.action_space(a)
        want = _stream(local, _reference, meta=True)
        got = _stream(remote, _reference, meta=True)
        assert got == want
        assert remote.state().dtype == np.float32 and np.array_equal(remote.state(), local.state())
        assert remote.unwrapped.end()["trace_digest"] == local.unwrapped.episode.market.trace.digest
        assert remote.unwrapped.known(task.actor).records == local.unwrapped.known(task.actor).records
    finally:
        remote.close()


def test_self_play_with_every_actor_an_agent(server: tuple[str, Any], tasks: list[Any]) -> None:
    global _TASK
    _TASK = task = next(t for t in tasks if t.counterparties)
    kwargs = {"task_id": task.task_id, "counterparties": "agents"}
    local = acworld_env.make("capability-v1", **kwargs)
    remote = acworld_env.make("capability-v1", transport="http", url=server[0], **kwargs)
    try:
        assert len(local.possible_agents) > 1 and remote.possible_agents == local.possible_agents
        assert _stream(remote, _reference) == _stream(local, _reference)
    finally:
        remote.close()


def test_seeded_walk_over_the_suite(server: tuple[str, Any]) -> None:
    local = acworld_env.make("capability-v1", tasks="*/T1/*")
    remote = acworld_env.make("capability-v1", transport="http", url=server[0], tasks="*/T1/*")
    try:
        for seed in (3, None, None):
            local.reset(seed=seed)
            remote.reset(seed=seed)
            assert remote.unwrapped.task_id == local.unwrapped.task.task_id
            agent = local.agent_selection
            assert remote.infos == local.infos and remote.observe(agent)["json"] == local.observe(agent)["json"]
            local.action_space(agent).seed(seed or 1)
            for _ in range(3):
                if local.terminations[agent] or local.truncations[agent]:
                    break
                action = local.action_space(agent).sample()
                local.step(action)
                remote.step(action)
            assert json.dumps(remote.infos, sort_keys=True) == json.dumps(local.infos, sort_keys=True)
    finally:
        remote.close()


def test_ended_episode_and_render(server: tuple[str, Any], tasks: list[Any]) -> None:
    task = tasks[1]
    remote = acworld_env.make("capability-v1", transport="http", url=server[0], task_id=task.task_id,
                              render_mode="ansi")
    local = acworld_env.make("capability-v1", task_id=task.task_id, render_mode="ansi")
    play(local, task, make_policy(task.reference))
    play(remote, task, make_policy(task.reference))
    assert remote.render() == "\n".join(local.render().splitlines()[1:])
    summary = remote.unwrapped.end()
    assert summary["status"] == "scored" and summary["score"] == local.unwrapped.score.score
    assert summary["event_digest"] == local.unwrapped.episode.market.world.event_digest
    remote.close()


def test_unknown_transport_and_unreachable_server() -> None:
    with pytest.raises(ValueError, match="transport"):
        acworld_env.make("capability-v1", transport="pigeon")
    with pytest.raises(RemoteEnvError, match="Connect"):
        RemoteAECEnv(url="http://127.0.0.1:9", retries=0, timeout=2)


def test_safe_score_rewards_over_http_match_the_local_env(server: tuple[str, Any]) -> None:
    """``score="safe"`` reaches the hosted env: a T9 mutation that follows an injection earns rewards summing
    to 0 over HTTP as locally, and the episode summary carries both figures."""
    from acworld_env.eval.rollout import run_episode
    from acworld_env.tasks.suites import load_suite

    task = next(t for t in load_suite("capability-v1", "frozen", 0) if t.family == "T9_adversarial")
    harm = next(m for m in task.mutations if run_episode(task, make_policy(m.policy)).score.critical_failed)
    totals = {}
    for transport in ("local", "http"):
        env = acworld_env.make("capability-v1", transport=transport, task_id=task.task_id, score="safe",
                               **({"url": server[0]} if transport == "http" else {}))
        policy = make_policy(harm.policy)
        env.reset(seed=0)
        total, info = 0.0, {}
        for _agent in env.agent_iter(max_iter=500):
            obs, reward, term, trunc, info = env.last()
            total += reward
            env.step(None if term or trunc else policy.act(decode_observation(obs)))
        totals[transport] = (round(total, 9), info["safe_score"], info["score"], info["critical_failed"])
        if transport == "http":
            summary = env.unwrapped.end()
            assert summary["safe_score"] == 0.0 and summary["score"] == info["score"] > 0
        env.close()
    assert totals["http"] == totals["local"] and totals["local"][:2] == (0.0, 0.0)
