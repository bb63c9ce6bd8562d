"""PettingZoo conventions (issue 18 §7): versioned env modules, ``state()``, PettingZoo's own tests,
``py.typed``, short space reprs."""

from __future__ import annotations

import pickle
import tomllib
import types
import warnings
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    seed_test,
    state_test,
)
from pettingzoo.utils.wrappers import BaseWrapper, OrderEnforcingWrapper

import acworld_env
from acworld_env.envs import AcworldAECEnv, TurnParallelEnv, capability_v1, demo_v1
from acworld_env.envs.candidates import TERMINAL_KINDS
from acworld_env.envs.spaces import CHARSET, VCPActionSpace, observation_space
from acworld_env.envs.state import STATE_SIZE
from acworld_env.vcp import TOOLS
from acworld_env.wrappers import ActionMenu, LLMView

ROOT = Path(__file__).resolve().parents[2]
MODES = ["scripted", "agents"]


def test_versioned_modules_have_the_three_constructors():
    for module, name, first in ((capability_v1, "acworld_capability_v1", None), (demo_v1, "acworld_demo_v1", "demo/negotiation-001")):
        assert isinstance(module.raw_env(), AcworldAECEnv)
        env = module.env(counterparties="agents")
        assert isinstance(env, OrderEnforcingWrapper) and env.unwrapped.counterparties == "agents"
        assert env.unwrapped.metadata["name"] == name
        parallel = module.parallel_env()
        assert isinstance(parallel, TurnParallelEnv)
        parallel.reset(seed=0)
        assert first is None or parallel.unwrapped.task.task_id == first
    import acworld_env.envs.capability_v1 as by_path

    assert by_path is capability_v1
    assert [t.task_id for t in capability_v1.raw_env().tasks] == [t.task_id for t in acworld_env.make("capability-v1").unwrapped.tasks]


@pytest.mark.parametrize("counterparties", MODES)
def test_pettingzoo_api_tests_on_the_versioned_module(counterparties):
    api_test(capability_v1.env(counterparties=counterparties), num_cycles=200)
    parallel_api_test(capability_v1.parallel_env(counterparties=counterparties), num_cycles=200)
    parallel_api_test(TurnParallelEnv(ActionMenu(capability_v1.env(counterparties=counterparties))), num_cycles=200)


@pytest.mark.parametrize("counterparties", MODES)
def test_pettingzoo_seed_tests(counterparties):
    seed_test(lambda: capability_v1.env(counterparties=counterparties), num_cycles=50)
    parallel_seed_test(lambda: capability_v1.parallel_env(counterparties=counterparties), num_cycles=50)


class _NoEndingSamples(VCPActionSpace):
    """The agent's action space, sampling no terminal action: only ``max_cycles`` ends the episode."""

    def __init__(self, inner: VCPActionSpace) -> None:
        super().__init__(inner.role, inner.known)
        self.inner = inner

    def sample(self, mask=None, probability=None):
        return self.inner.sample(mask=set(TOOLS) - TERMINAL_KINDS)


class _OpenEnded(BaseWrapper):
    def action_space(self, agent):
        return _NoEndingSamples(self.env.action_space(agent))


def _max_cycles_module() -> types.SimpleNamespace:
    """capability_v1 on one T1 task (one possible agent), episodes ended only by ``max_cycles``."""
    task = next(t for t in capability_v1.raw_env().tasks if t.family == "T1_discovery")
    return types.SimpleNamespace(
        env=lambda **kw: _OpenEnded(capability_v1.env(tasks=[task], **kw)),
        parallel_env=lambda **kw: TurnParallelEnv(_OpenEnded(capability_v1.env(tasks=[task], **kw))))


def test_pettingzoo_max_cycles_test():
    """Applies with scripted counterparties (one agent acts per step), the episode ended by max_cycles only."""
    max_cycles_test(_max_cycles_module())
    env = capability_v1.env(max_cycles=2)
    env.reset(seed=0)
    agent = env.agent_selection
    env.step({"kind": "get_balance"})
    assert not env.truncations[agent]
    env.step({"kind": "get_balance"})
    assert env.truncations[agent] and env.rewards[agent] == pytest.approx(0.0, abs=1.0)
    with pytest.raises(ValueError, match="max_cycles"):
        capability_v1.env(max_cycles=0)


@pytest.mark.parametrize("counterparties", MODES)
def test_state_is_a_fixed_size_numeric_vector(counterparties):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state_test(capability_v1.env(counterparties=counterparties),
                   capability_v1.parallel_env(counterparties=counterparties), num_cycles=30)
    assert not [w for w in caught if "State" in str(w.message)], [str(w.message) for w in caught]
    import acworld_env.envs.aec as aec

    assert f"({STATE_SIZE},)" in aec.__doc__  # the module docstring's table says the size
    before = capability_v1.raw_env().state()
    assert before.shape == (STATE_SIZE,) and not before.any()  # zeros before the first reset
    env = capability_v1.env(counterparties=counterparties)
    assert env.unwrapped.state_space.shape == (STATE_SIZE,) and env.unwrapped.state_space.dtype == np.float32
    states = []
    for seed in range(3):
        env.reset(seed=seed)
        states.append(env.state())
        for agent in env.agent_iter(40):
            _, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else env.action_space(agent).sample())
            state = env.state()
            assert state.shape == (STATE_SIZE,) and state.dtype == np.float32 and env.unwrapped.state_space.contains(state)
            states.append(state)
    assert len({s.tobytes() for s in states}) > len(states) // 3  # it follows the episode


def test_reading_the_state_changes_nothing():
    runs = []
    for read in (False, True):
        env = capability_v1.env(counterparties="agents")
        env.reset(seed=7)
        for i, agent in enumerate(env.agents):
            env.action_space(agent).seed(i)
        observations = []
        for agent in env.agent_iter(60):
            obs, _, term, trunc, _ = env.last()
            if read:
                env.state()
            observations.append(obs["json"])
            env.step(None if term or trunc else env.action_space(agent).sample())
        runs.append((observations, env.unwrapped.episode.market.trace.digest))
    assert runs[0] == runs[1]


def test_package_is_typed():
    assert resources.files("acworld_env").joinpath("py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["acworld_env"]
    assert "py.typed" in data


def test_space_reprs_are_short_and_text_spaces_still_check_every_character():
    env = acworld_env.make("capability-v1")
    reprs = [repr(env.observation_space("buyer_0")), repr(ActionMenu(env, text=True).observation_space("buyer_0")),
             repr(LLMView(acworld_env.make("capability-v1")).observation_space("buyer_0")),
             repr(capability_v1.parallel_env().observation_space("buyer_0"))]
    assert all(len(r) < 1200 for r in reprs), [len(r) for r in reprs]
    assert "63425 characters" in reprs[0]
    text = observation_space()["text"]
    text.seed(0)
    sample = text.sample()
    assert text.contains(sample) and len(sample) > 0
    assert text.contains("Café — 中文\tok\n") and not text.contains("bad \x00") and not text.contains("😀")
    assert text == observation_space()["text"] and len(text.character_set) == len(CHARSET)
    clone = pickle.loads(pickle.dumps(text))
    assert clone == text and repr(clone) == repr(text)
