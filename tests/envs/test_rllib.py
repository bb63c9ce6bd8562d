"""The RLlib adapter's multi-agent conventions (issue 18 §4), checked without torch; a PPO smoke test
runs when ``torch`` and ``ray.rllib`` import."""

from __future__ import annotations

import numpy as np
import pytest

import acworld_env
from acworld_env.wrappers.rllib import ALL, AcworldRLlibEnv, policy_by_role


def _play(env: AcworldRLlibEnv, seed: int, rng: np.random.Generator) -> dict:
    obs, infos = env.reset(seed=seed)
    assert len(obs) == 1 and set(infos) == set(obs)
    playing, ended, paid, steps = set(env.agents), set(), {}, 0
    while True:
        (agent,) = [a for a in obs if a not in ended and a in env.agents]  # exactly one agent is asked to act
        for a, o in obs.items():
            assert env.get_observation_space(a).contains(o), a
            assert o["action_mask"].dtype == np.float32 and o["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        steps += 1
        assert set(rewards) == set(infos) == set(obs) <= playing
        assert set(obs) <= set(env.agents), "RLlib's check: every id returned is among the env's agents"
        assert not (set(obs) & ended), "an agent that ended received data again"
        done_now = set(terms) - {ALL}
        assert done_now == set(truncs) - {ALL} and done_now <= set(obs)
        for a, r in rewards.items():
            paid[a] = paid.get(a, 0.0) + r
        ended |= {a for a in done_now if terms[a] or truncs[a]}
        if terms[ALL] or truncs[ALL]:
            assert terms[ALL] != truncs[ALL], (terms, truncs)  # exactly one says how the episode ended
            assert not env.par.agents and set(env.agents) == set(obs)  # the last step's agents, then none
            assert ended == playing
            return {"paid": paid, "steps": steps, "agents": playing, "task": env.par.unwrapped.task,
                    "score": env.par.unwrapped.score.score, "by_answer": terms[ALL]}
        assert env.par.agents


def test_rllib_conventions_over_a_mixed_suite():
    env = AcworldRLlibEnv({"counterparties": "agents"})
    suite = acworld_env.make("capability-v1", counterparties="agents").unwrapped
    everyone = {a for t in suite.tasks for a in suite._actors_of(t)}
    assert set(env.possible_agents) == everyone and len(everyone) >= 3
    assert set(env.observation_spaces) == set(env.action_spaces) == everyone
    possible = list(env.possible_agents)
    rng = np.random.default_rng(0)
    agent_sets = set()
    for seed in range(16):
        out = _play(env, seed, rng)
        assert env.possible_agents == possible  # never grows with the task played
        agent_sets.add(frozenset(out["agents"]))
        actor = out["task"].actor
        assert out["paid"][actor] == pytest.approx(out["score"], abs=1e-9)  # no reward held back or lost
        for a, r in out["paid"].items():  # every agent is paid its own score (its rubric), nothing held back
            assert r == pytest.approx(env.par.unwrapped.score_of(a).score, abs=1e-9), a
    assert len(agent_sets) >= 2  # tasks with different actors, one agent-id space
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step({})


def test_scripted_counterparties_and_state():
    env = AcworldRLlibEnv({"env_id": "demo-v1"})
    obs, _ = env.reset(seed=0)
    assert list(obs) == ["buyer_0"] == env.possible_agents
    assert env.state().shape == env.par.state_space.shape
    out = _play(env, 0, np.random.default_rng(1))
    assert out["agents"] == {"buyer_0"}


def test_an_agent_outside_the_fixed_possible_agents_is_refused():
    env = AcworldRLlibEnv({"counterparties": "agents", "tasks": "*/T4/*"})
    assert set(env.possible_agents) == {"buyer_0", "merchant_0"}
    t10 = next(t for t in acworld_env.make("capability-v1").unwrapped.tasks if t.family == "T10_timing")
    with pytest.raises(ValueError, match="possible_agents fixed at construction"):
        env.reset(seed=0, options={"task": t10})


def test_policy_by_role():
    env = AcworldRLlibEnv({"counterparties": "agents"})
    mapping = policy_by_role(env)
    assert {mapping(a) for a in env.possible_agents} == {"buyer", "merchant"}
    assert all(mapping(a, None, worker=None) == env.roles[a] for a in env.possible_agents)


def test_rllib_ppo_trains_one_iteration():
    pytest.importorskip("torch", reason="RLlib training needs torch, which is not installed")
    pytest.importorskip("ray.rllib", reason="ray.rllib does not import here (e.g. dm-tree missing)")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env = AcworldRLlibEnv({"counterparties": "agents"})
    assert isinstance(env, MultiAgentEnv)
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [32]})
    config = (PPOConfig()
              .environment(AcworldRLlibEnv, env_config={"counterparties": "agents"})
              .multi_agent(policies={"buyer", "merchant"}, policy_mapping_fn=policy_by_role(env))
              .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(("buyer", "merchant"),
                                                                                        module)))
              .env_runners(num_env_runners=0)
              .training(train_batch_size=128, minibatch_size=64, num_epochs=1))
    algo = (getattr(config, "build_algo", None) or config.build)()
    try:
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 128
    finally:
        algo.stop()
        import ray

        ray.shutdown()
