"""market-v1: agents with private mandates, deterministic clearing, welfare, rewards, both APIs."""

from __future__ import annotations

import itertools
import json
import statistics

import numpy as np
import pytest

import acworld_env
from acworld_env.open_market import MarketConfig, MarketConfigError, OpenMarket
from acworld_env.open_market.agents import play, policies, truthful
from acworld_env.open_market.clearing import clear, priority
from acworld_env.open_market.reference import reference_allocation
from acworld_env.open_market.welfare import optimum
from acworld_env.world import reconstruct

STUDY_SEED = 33


def _run(kind: str, seed: int, n: int = 5, m: int = 5, k: int = 2, cap: int = 1) -> OpenMarket:
    env = acworld_env.make("market-v1", buyers=n, merchants=m, seed=seed, k=k, max_capacity=cap)
    play(env, policies(kind, env.possible_agents, seed))
    return env.market


@pytest.mark.parametrize("seed", [STUDY_SEED, 0, 7])
def test_truthful_agents_reproduce_the_reference_allocation(seed: int) -> None:
    market = _run("truthful", seed)
    ref = reference_allocation(MarketConfig(5, 5, seed, 2))
    assert market.clearing.assignment == ref.assignment
    assert market.clearing.choice == ref.choice
    assert sorted(market.completed_trades()) == sorted(ref.assignment.items())


def test_the_study_market_has_five_trades_one_fallback_and_reports_ratios() -> None:
    market = _run("truthful", STUDY_SEED)
    w = market.welfare()
    assert w.trades == 5 and len(market.clearing.fallbacks) == 1 and market.clearing.contested
    assert 0 < w.realised <= w.exposed_optimum <= w.global_optimum
    assert w.ratio_exposed == 1.0 and 0.95 < w.ratio_global < 1.0
    rebuilt = reconstruct(market.market.world.initial_state, market.market.world.commits)
    assert rebuilt.state_digest == market.market.world.state_digest()


def test_random_agents_realise_less_welfare_than_truthful_ones() -> None:
    truthful_r = [_run("truthful", s).welfare().ratio_global for s in range(6)]
    random_r = [_run("random", s).welfare().ratio_global for s in range(6)]
    assert statistics.fmean(random_r) < statistics.fmean(truthful_r) - 0.2


def test_every_trade_goes_through_vcp_the_platform_and_the_world() -> None:
    market = _run("truthful", STUDY_SEED)
    records = market.market.trace.records
    kinds = [r.kind for r in records if r.accepted and r.commit is not None]
    for kind in ("update_listing", "place_order", "authorize_payment", "capture_payment", "allocate_inventory",
                 "ship_order"):
        assert kinds.count(kind) == (5 if kind != "update_listing" else 5)
    assert len(market.market.world.commits) == len(kinds)
    for r in records:
        assert r.envelope is not None and r.envelope["actor"] == r.actor


def test_aec_and_parallel_views_reach_the_same_world() -> None:
    aec = _run("truthful", 4)
    par = acworld_env.make("market-v1", buyers=5, merchants=5, seed=4, parallel=True)
    obs, _ = par.reset()
    total = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        obs, rewards, *_ = par.step({a: truthful(o) for a, o in obs.items()})
        for a, r in rewards.items():
            total[a] += r
    assert par.market.market.world.state_digest() == aec.market.world.state_digest()
    assert par.market.clearing.assignment == aec.clearing.assignment
    assert total == pytest.approx(par.market.scores)


def test_aec_rewards_sum_to_each_agents_rubric_score() -> None:
    env = acworld_env.make("market-v1", buyers=4, merchants=3, seed=2)
    env.reset()
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        env.step(None if term or trunc else truthful(obs))
    scores = env.market.scores
    assert total == pytest.approx(scores)
    assert all(0.0 <= s <= 1.0 for s in scores.values()) and max(scores.values()) == 1.0


def test_observations_are_private_to_each_agent() -> None:
    market = OpenMarket(MarketConfig(3, 3, 5, 2))
    b0, b1 = market.mandates.buyers[0], market.mandates.buyers[1]
    obs = market.observe("buyer_0000")
    assert obs["mandate"]["values"] == b0.values and obs["mandate"]["budget"] == b0.budget
    text = json.dumps(obs)
    assert f'"budget": {b1.budget}' not in text and "cost" not in text
    mobs = json.dumps(market.observe("merchant_0001"))
    assert "values" not in mobs and "budget" not in mobs


def test_a_buyer_ranks_only_its_own_candidates_and_bad_actions_are_recorded_rejections() -> None:
    market = OpenMarket(MarketConfig(2, 2, 1, 1))
    for m in market.merchants:
        market.act(m, "not json at all")
    assert all(not r["accepted"] for m in market.merchants for r in market.last[m])
    outsider = next(lid for lid in ("L-open_0000", "L-open_0001") if lid not in market.exposure["buyer_0000"])
    assert market.act("buyer_0000", {"rank": [outsider]})[0]["accepted"] is False
    assert market.act("buyer_0001", {"rank": "L-open_0000"})[0]["accepted"] is False
    assert market.clearing.assignment == {}
    assert market.phase == "pay"
    with pytest.raises(MarketConfigError, match="not merchant_0000's turn"):
        market.act("merchant_0000", None)


@pytest.mark.parametrize("kwargs, message", [
    ({"buyers": 0}, "buyers must be"), ({"merchants": "5"}, "merchants must be"), ({"k": 0}, "k \\(candidates"),
    ({"seed": -1}, "seed must be"), ({"phases": ["trade"]}, "unknown phase"),
])
def test_bad_configuration_is_a_clear_error(kwargs: dict, message: str) -> None:
    with pytest.raises(MarketConfigError, match=message):
        acworld_env.make("market-v1", **kwargs).reset()


def test_clearing_tie_break_and_fallback_are_deterministic() -> None:
    order = priority(0, ["a", "b", "c"])
    rankings = {"a": ["L1", "L2"], "b": ["L1", "L2"], "c": ["L1"]}
    result = clear(rankings, {"L1": 1, "L2": 1}, order)
    assert result.assignment[order[0]] == "L1"
    assert result.fallbacks == [b for b in order[1:] if rankings[b] == ["L1", "L2"]][:1]
    assert clear(rankings, {"L1": 1, "L2": 1}, order) == result


@pytest.mark.parametrize("cap", [[1, 1, 1], [2, 1, 0], [3, 2, 1]])
def test_the_optimum_is_exact_against_brute_force(cap: list[int]) -> None:
    rng = np.random.default_rng(sum(cap))
    surplus = rng.integers(-50, 100, size=(4, 3))
    allowed = rng.random((4, 3)) < 0.8
    total, pairs = optimum(surplus, allowed, np.array(cap))
    best = 0
    for choice in itertools.product(range(-1, 3), repeat=4):  # -1: the Buyer does not trade
        use = [choice.count(j) for j in range(3)]
        if all(u <= c for u, c in zip(use, cap, strict=True)):
            best = max(best, sum(max(0, surplus[i, j]) if allowed[i, j] else 0 for i, j in enumerate(choice) if j >= 0))
    assert total == best
    assert sum(int(surplus[i, j]) for i, j in pairs) == total


@pytest.mark.slow
def test_a_100_by_100_market_runs_in_one_process() -> None:
    market = _run("truthful", 0, n=100, m=100, k=5, cap=2)
    w = market.welfare()
    assert w.trades >= 90 and w.ratio_global > 0.85
    rebuilt = reconstruct(market.market.world.initial_state, market.market.world.commits)
    assert rebuilt.state_digest == market.market.world.state_digest()


@pytest.mark.filterwarnings("ignore")
def test_pettingzoo_api_tests_pass_for_both_views() -> None:
    from pettingzoo.test import api_test, parallel_api_test

    api_test(acworld_env.make("market-v1", buyers=3, merchants=3, seed=1), num_cycles=50)
    parallel_api_test(acworld_env.make("market-v1", buyers=3, merchants=3, seed=1, parallel=True), num_cycles=50)
