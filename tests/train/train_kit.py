"""Helpers of the training-framework tests: reference action sequences and their local runs."""

from __future__ import annotations

import json
from typing import Any

import acworld_env
from acworld_env.envs.spaces import decode_observation
from acworld_env.policies.make import make_policy
from acworld_env.vcp.union import IDLE_ACTION

PARITY_TASKS = ["capability-v1/T1/buyer/basic_feasible_discovery/01",
                "capability-v1/T2/merchant/evidence_backed_response/01",
                "capability-v1/T7/buyer/buyer_return_refund/01"]
"""Three families, both roles: the parity and verifiers tests play their references."""


def reference_actions(task_id: str) -> list[dict[str, Any]]:
    """The reference policy's actions on ``task_id`` (episode seed 0), as JSON objects."""
    env = acworld_env.make("capability-v1")
    raw = env.unwrapped
    policy = make_policy(raw.task_by_id(task_id).reference)
    env.reset(seed=0, options={"task_id": task_id})
    policy.reset(0)
    actions: list[dict[str, Any]] = []
    for _agent in env.agent_iter(max_iter=500):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = policy.act(decode_observation(obs))
        action = IDLE_ACTION if action is None else action
        action = json.loads(json.dumps(action.model_dump(mode="json") if hasattr(action, "model_dump") else action))
        actions.append(action)
        env.step(action)
    return actions


def local_run(task_id: str, actions: list[dict[str, Any]], reward: str = "potential") -> dict[str, Any]:
    """Replay ``actions`` on a local env: trace digest, score, credits, the step rewards."""
    env = acworld_env.make("capability-v1", reward=reward)
    raw = env.unwrapped
    env.reset(seed=0, options={"task_id": task_id})
    rewards = []
    for action in actions:
        env.last()
        env.step(action)
        rewards.append(raw.rewards.get(raw.task.actor, 0.0))
    info = raw.infos[raw.task.actor]
    return {"trace_digest": raw.episode.market.trace.digest, "score": raw.score.score, "credits": info["credits"],
            "stages": info["stages"], "rewards": rewards}


def request_marker(task_id: str) -> str:
    """A piece of the task's request text, which the first turn of any conversation about it quotes."""
    env = acworld_env.make("capability-v1")
    raw = env.unwrapped
    env.reset(seed=0, options={"task_id": task_id})
    return str(raw.raw_observation(raw.task.actor)["request"])[:80]

