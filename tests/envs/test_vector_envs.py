"""Gymnasium vector envs run the single-agent view for many steps across auto-resets (issue 18 §6).

A vector env stacks each ``info`` key into an array, so every key must keep its type from reset
on; ``info["validation"]`` used to be ``None`` at reset and a dict later, which crashed
``SyncVectorEnv`` and ``AsyncVectorEnv`` at the first auto-reset.
"""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

import acworld_env  # noqa: F401  (registers the Gymnasium ids)
from acworld_env.envs.info import SCALARS, fixed_info
from acworld_env.wrappers import GymActionMenu

IDLE = {"kind": "get_inbox", "unread_only": True}
N_ENVS, N_STEPS = 3, 60


def _vcp_env() -> gymnasium.Env:
    return gymnasium.make("acworld/capability-v1")


def _menu_env() -> gymnasium.Env:
    return GymActionMenu(gymnasium.make("acworld/capability-v1").unwrapped)


def _schema(info: dict) -> dict:
    """Every leaf key of a vector info with its array dtype kind."""
    out = {}
    for key, value in info.items():
        if isinstance(value, dict):
            out.update({f"{key}.{k}": v for k, v in _schema(value).items()})
        else:
            out[key] = np.asarray(value).dtype.kind
    return out


def _run(vec: gymnasium.vector.VectorEnv, actions) -> int:
    """Step ``vec`` N_STEPS times; check the info schema never changes; return how many episodes ended."""
    try:
        obs, info = vec.reset(seed=0)
        schema = _schema(info)
        assert "validation.kind" in schema and "credits" in schema
        ended = 0
        for i in range(N_STEPS):
            obs, rewards, terminated, truncated, info = vec.step(actions(i, obs))
            assert _schema(info) == schema, i
            assert rewards.dtype.kind == "f" and terminated.dtype == bool
            ended += int(np.sum(terminated | truncated))
        for credits in info["credits"]:
            assert isinstance(json.loads(credits), dict)
        return ended
    finally:
        vec.close()


def _vcp_actions(i: int, obs) -> tuple:
    return tuple({"kind": "finish"} if (i + k) % 6 == 5 else IDLE for k in range(N_ENVS))


def _menu_actions(rng: np.random.Generator):
    def choose(i: int, obs) -> np.ndarray:
        return np.array([rng.choice(np.flatnonzero(mask)) for mask in obs["action_mask"]])
    return choose


@pytest.mark.parametrize("vector_cls", [SyncVectorEnv, AsyncVectorEnv])
def test_vector_env_runs_across_auto_resets(vector_cls):
    ended = _run(vector_cls([_vcp_env] * N_ENVS), _vcp_actions)
    assert ended >= N_ENVS * (N_STEPS // 7)  # many auto-resets happened, each with the same info schema


@pytest.mark.parametrize("vector_cls", [SyncVectorEnv, AsyncVectorEnv])
def test_vector_menu_env_runs_across_auto_resets(vector_cls):
    ended = _run(vector_cls([_menu_env] * N_ENVS), _menu_actions(np.random.default_rng(0)))
    assert ended >= 1


def test_single_env_info_has_the_same_keys_and_types_at_every_step():
    env = _vcp_env()
    kinds = None
    for seed in range(4):
        _, info = env.reset(seed=seed)
        steps = [info]
        done = False
        while not done:
            _, _, term, trunc, info = env.step({"kind": "get_balance"} if len(steps) < 3 else {"kind": "finish"})
            steps.append(info)
            done = term or trunc
        for info in steps:
            shape = {k: type(v) for k, v in info.items()} | {f"v.{k}": type(v) for k, v in info["validation"].items()}
            kinds = kinds or shape
            assert shape == kinds
    assert set(SCALARS) <= set(kinds) and kinds["validation"] is dict


def test_fixed_info_of_a_step_keeps_its_content():
    raw = {"task_id": "t", "actor": "buyer_0", "role": "buyer", "evaluated": True, "step": 2,
           "validation": {"kind": "get_listing", "accepted": False, "code": "unknown_listing", "message": "no",
                          "result": {"items": [1]}, "commit_seq": None, "replayed": False, "validation_id": "v1"},
           "trace_digest": "d", "episode_seed": 4, "hints": "off", "score": 1, "full_credit": True,
           "credits": {"a": 1.0}, "evidence": {"a": ["x"]}, "stages": {}, "loss_group": None}
    info = fixed_info(raw)
    assert info["validation"]["code"] == "unknown_listing" and info["validation"]["commit_seq"] == -1
    assert json.loads(info["validation"]["result"]) == {"items": [1]}
    assert info["score"] == 1.0 and isinstance(info["score"], float) and info["loss_group"] == ""
    assert json.loads(info["evidence"]) == {"a": ["x"]}
    assert set(fixed_info({})) == set(info) and fixed_info({})["validation"]["kind"] == ""
