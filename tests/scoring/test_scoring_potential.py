"""The score of a trace prefix is a potential: per-step rewards sum to the final score (to 1e-9)."""

from __future__ import annotations

import copy

import pytest
from scoring_kit import RandomDemoPolicy

from acworld_env.episode import Episode
from acworld_env.eval.rollout import IDLE_ACTION, run_episode
from acworld_env.policies.make import make_policy
from acworld_env.scoring import score_episode, score_trace
from acworld_env.scoring.reward import PotentialReward

RANDOM_SEEDS = range(40)


def play(task, policy, seed: int) -> tuple[list[float], float]:
    """Step an episode, scoring the trace after every step; check the potential properties."""
    ep = Episode(task, seed=seed)
    policy.reset(seed)
    tracker = PotentialReward(task)
    actor, prev, rewards, snapshots = task.actor, 0.0, [], []
    while not ep.finished(actor) and not ep.truncated(actor):
        action = policy.act(ep.observe(actor))
        ep.act(actor, IDLE_ACTION if action is None else action)
        now = score_trace(task, ep.market.trace.records, ep.market.world.state)
        rewards.append(now.score - prev)
        prev = now.score
        reward, info = tracker.step(ep.market)
        assert reward == rewards[-1]
        assert set(info.credits) == {p.id for p in task.predicates}
        snapshots.append((len(ep.market.trace.records), copy.deepcopy(ep.market.world.state), now.score))
    final = score_episode(task, ep.market).score
    assert sum(rewards) == pytest.approx(final, abs=1e-9)
    records = ep.market.trace.records
    for k, st, value in snapshots:  # each prefix's score depends on that prefix and its state only
        assert score_trace(task, copy.deepcopy(records[:k]), st).score == value
    return rewards, final


def test_reference_episode_rewards_sum_to_full_credit(demo_task):
    rewards, final = play(demo_task, make_policy(demo_task.reference), seed=0)
    assert final == 1.0 and sum(rewards) == pytest.approx(1.0, abs=1e-9)
    assert len(rewards) > 3


def test_mutation_episodes(demo_task):
    for m in demo_task.mutations:
        _, final = play(demo_task, make_policy(m.policy), seed=0)
        assert final < 1.0


def test_random_episodes_rewards_sum_to_final_score(demo_task):
    finals, negative = set(), 0
    for seed in RANDOM_SEEDS:
        rewards, final = play(demo_task, RandomDemoPolicy(seed), seed)
        finals.add(final)
        negative += any(r < 0 for r in rewards)
        assert final == run_episode(demo_task, RandomDemoPolicy(seed), seed=seed).score.score
    assert len(finals) >= 3, finals  # the random episodes reach different scores
    assert negative, "no episode lost credit: a leak should lower the potential"


def test_potential_reward_reset(demo_task):
    tracker = PotentialReward(demo_task)
    ep = Episode(demo_task, seed=0)
    first, _ = tracker.step(ep.market)
    again, _ = tracker.step(ep.market)
    assert again == 0.0
    tracker.reset()
    assert tracker.step(ep.market)[0] == first
