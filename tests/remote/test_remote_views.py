"""The Gymnasium view and the turn-based parallel view play on a server exactly as they do locally."""

from __future__ import annotations

import json
from typing import Any

import gymnasium
import numpy as np
import pytest

import acworld_env
from acworld_env.envs import capability_v1
from acworld_env.envs.spaces import decode_observation
from acworld_env.policies.make import make_policy


def _plain(obs: dict[str, Any]) -> dict[str, Any]:
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in obs.items()}


def _gym_stream(env: Any, task: Any) -> list[Any]:
    """Every step of the reference policy through the single-agent view, in comparable form."""
    obs, info = env.reset(seed=0, options={"task_id": task.task_id})
    policy = make_policy(task.reference)
    policy.reset(0)
    rows: list[Any] = [[_plain(obs), json.dumps(info, sort_keys=True)]]
    for _ in range(200):
        obs, reward, terminated, truncated, info = env.step(policy.act(decode_observation(obs)))
        rows.append([_plain(obs), reward, terminated, truncated, json.dumps(info, sort_keys=True)])
        if terminated or truncated:
            break
    return rows


@pytest.mark.parametrize("index", [0, 33, 121])
def test_gymnasium_view_over_http_equals_the_local_view(server: tuple[str, Any], tasks: list[Any],
                                                         index: int) -> None:
    task = tasks[index % len(tasks)]
    local = gymnasium.make("acworld/capability-v1", task_id=task.task_id)
    remote = gymnasium.make("acworld/capability-v1", task_id=task.task_id, transport="http", url=server[0])
    try:
        assert remote.observation_space == local.observation_space
        want, got = _gym_stream(local, task), _gym_stream(remote, task)
        assert got == want and got[-1][2] is True  # the reference finishes: terminated
        assert sum(r[1] for r in got[1:]) == pytest.approx(1.0)
    finally:
        remote.close()
        local.close()


def test_parallel_view_over_http_equals_the_local_view(server: tuple[str, Any], tasks: list[Any]) -> None:
    task = next(t for t in tasks if "/T4/" in t.task_id)
    kwargs = {"task_id": task.task_id, "counterparties": "agents"}
    local = capability_v1.parallel_env(**kwargs)
    remote = capability_v1.parallel_env(**kwargs, transport="http", url=server[0])
    try:
        streams = []
        for env in (local, remote):
            observations, infos = env.reset(seed=0)
            rows = [sorted((a, _plain(o)) for a, o in observations.items())]
            while env.agents:
                # every live agent idles (reads its inbox) until the step limit ends the episode
                observations, rewards, terms, truncs, infos = env.step(dict.fromkeys(env.agents))
                rows.append([sorted((a, _plain(o)) for a, o in observations.items()), sorted(rewards.items()),
                             sorted(terms.items()), sorted(truncs.items())])
            streams.append(rows)
        assert streams[0] == streams[1] and len(streams[0]) > 2
    finally:
        remote.close()
        local.close()


def test_an_unknown_transport_is_refused_by_every_constructor() -> None:
    with pytest.raises(ValueError, match="transport"):
        capability_v1.env(transport="carrier-pigeon")
    with pytest.raises(ValueError, match="transport"):
        acworld_env.make("capability-v1", transport="carrier-pigeon")
