"""Registry: versioned ids, latest-version resolution, third-party registration, Gymnasium ids."""

from __future__ import annotations

import gymnasium
import pytest
from pettingzoo import AECEnv

import acworld_env
from acworld_env.env_registry import REGISTRY, parse_id, resolve


def test_builtin_ids_are_listed_and_make_aec_envs():
    assert {"capability-v1", "demo-v1"} <= set(acworld_env.list_envs())
    env = acworld_env.make("capability-v1")
    assert isinstance(env, AECEnv)
    assert env.unwrapped.metadata["name"] == "acworld_capability_v1"
    assert env.unwrapped.tasks


def test_unversioned_id_resolves_to_latest():
    def factory(**kwargs):
        return kwargs

    acworld_env.register_env("toymarket-v1", factory, kwargs={"v": 1}, gym=False)
    acworld_env.register_env("toymarket-v3", factory, kwargs={"v": 3}, gym=False)
    try:
        assert acworld_env.make("toymarket") == {"v": 3}
        assert acworld_env.make("toymarket-v1", extra=2) == {"v": 1, "extra": 2}
        assert resolve("acworld/toymarket-v3").env_id == "toymarket-v3"
    finally:
        REGISTRY.pop("toymarket-v1"), REGISTRY.pop("toymarket-v3")


def test_unknown_and_malformed_ids():
    with pytest.raises(KeyError, match="did you mean capability-v1"):
        acworld_env.make("capabilty-v1")
    with pytest.raises(ValueError, match="malformed"):
        parse_id("bad id!")
    with pytest.raises(ValueError, match="carry a version"):
        acworld_env.register_env("noversion", lambda **kw: None)
    with pytest.raises(ValueError, match="already registered"):
        acworld_env.register_env("capability-v1", lambda **kw: None)


def test_third_party_registration_with_entry_point_string_and_gym_view():
    acworld_env.register_env("thirdparty/demo-copy-v2", "acworld_env.envs.aec:env",
                             kwargs={"suite": "demo"}, description="a copy of the demo")
    try:
        env = acworld_env.make("thirdparty/demo-copy")
        env.reset(seed=0)
        assert env.agents == ["buyer_0"]
        genv = gymnasium.make("thirdparty/demo-copy-v2")
        obs, info = genv.reset(seed=0)
        assert info["task_id"] == "demo/negotiation-001"
    finally:
        REGISTRY.pop("thirdparty/demo-copy-v2")
        gymnasium.registry.pop("thirdparty/demo-copy-v2")


def test_make_options_are_checked():
    with pytest.raises(ValueError, match="counterparties"):
        acworld_env.make("demo-v1", counterparties="nobody")
    with pytest.raises(ValueError, match="reward"):
        acworld_env.make("demo-v1", reward="dense")
    with pytest.raises(KeyError, match="no task"):
        acworld_env.make("demo-v1", task_id="nope")
