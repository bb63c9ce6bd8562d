"""Plain helpers for env tests: play an episode, run a task's reference."""

from __future__ import annotations

from typing import Any

from acworld_env.envs import decode_observation
from acworld_env.policies.make import make_policy


def play(env: Any, *, policy: Any = None, seed: int = 0, options: dict | None = None,
         sample_seed: int = 0) -> dict[str, Any]:
    """One episode through the agent_iter loop; the policy (or sampled actions) drives every agent."""
    env.reset(seed=seed, options=options)
    for i, agent in enumerate(env.agents):
        env.action_space(agent).seed(sample_seed + i)
    if policy is not None:
        policy.reset(seed)
    rewards: dict[str, float] = {}
    observations, digests = [], []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        rewards[agent] = rewards.get(agent, 0.0) + reward
        if term or trunc:
            env.step(None)
            continue
        observations.append(obs["json"])
        digests.append(info["trace_digest"])
        action = policy.act(decode_observation(obs)) if policy is not None else env.action_space(agent).sample()
        env.step(action)
    raw = env.unwrapped
    return {"rewards": rewards, "observations": observations, "digests": digests, "score": raw.score,
            "trace_digest": raw.episode.market.trace.digest, "task": raw.task}


def reference(task_id: str, env: Any, seed: int = 0) -> dict[str, Any]:
    """The reference policy of ``task_id`` through ``env``."""
    task = env.unwrapped.task_by_id(task_id)
    return play(env, policy=make_policy(task.reference), seed=seed, options={"task_id": task_id})
