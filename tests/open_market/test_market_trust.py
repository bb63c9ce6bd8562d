"""market-v1 keeps private numbers private: opening prices and the welfare report (issue 30, items 11-12)."""

from __future__ import annotations

import json

import pytest

import acworld_env
from acworld_env.open_market import MarketConfig
from acworld_env.open_market.agents import truthful
from acworld_env.open_market.mandates import OPENING_MARKUP_BP, draw, initial_state


def _opening(seed: int, merchants: int = 200) -> list[tuple[int, int]]:
    """(cost, opening price) of every listing of a market drawn from ``seed``."""
    mandates = draw(MarketConfig(3, merchants, seed, 2))
    listings = initial_state(mandates)["listings"]
    return [(mm.cost, listings[mm.listing_id]["price"]) for mm in mandates.merchants]


@pytest.mark.parametrize("seed", [0, 1, 33])
def test_no_fixed_ratio_recovers_costs_from_opening_prices(seed: int) -> None:
    pairs = _opening(seed)
    ratios = sorted({price / cost for cost, price in pairs})
    assert ratios[-1] / ratios[0] > 1.5
    lo, hi = (1 + b / 10_000 for b in OPENING_MARKUP_BP)
    assert all(lo - 1e-9 <= price / cost <= hi + 1e-9 for cost, price in pairs)
    for r in [2.0, *ratios]:  # any one ratio, the old fixed 2x included: within 1 % for few listings
        hits = sum(abs(price / r - cost) <= 0.01 * cost for cost, price in pairs)
        assert hits <= 0.1 * len(pairs), f"ratio {r:.4f} recovers {hits} of {len(pairs)} costs"


def test_opening_prices_are_drawn_from_the_seed() -> None:
    assert _opening(5) == _opening(5)
    assert [p for _, p in _opening(5)] != [p for _, p in _opening(6)]
    a = acworld_env.make("market-v1", buyers=3, merchants=4, seed=9)
    b = acworld_env.make("market-v1", buyers=3, merchants=4, seed=9)
    a.reset()
    b.reset()
    assert a.market.market.world.initial_state == b.market.market.world.initial_state


def test_a_merchant_that_does_not_quote_keeps_its_drawn_opening_price() -> None:
    env = acworld_env.make("market-v1", buyers=3, merchants=3, seed=2)
    env.reset()
    while env.market.phase == "quote":
        env.step(None)
    for mm in env.market.mandates.merchants:
        assert env.market.quotes[mm.listing_id] == mm.opening_price != 2 * mm.cost


def _final_infos(parallel: bool) -> tuple[dict[str, dict], object]:
    env = acworld_env.make("market-v1", buyers=5, merchants=5, seed=33, k=2, parallel=parallel)
    if not parallel:
        env.reset()
        final: dict[str, dict] = {}
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                final[agent] = info
            env.step(None if term or trunc else truthful(obs))
        return final, env
    obs, infos = env.reset()
    while env.agents:
        obs, _, _, _, infos = env.step({a: truthful(o) for a, o in obs.items()})
    return infos, env


@pytest.mark.parametrize("parallel", [False, True])
def test_each_agent_gets_its_own_surplus_and_the_host_the_welfare_report(parallel: bool) -> None:
    infos, env = _final_infos(parallel)
    market = env.market
    state = market.market.world.state
    for agent, info in infos.items():
        assert set(info) == {"phase", "score", "my_turn", "surplus"}, info
        text = json.dumps(info)
        assert "welfare" not in text and "optimum" not in text
        expected = 0
        for oid in market.orders:
            o = state["orders"][oid]
            if agent == o["buyer"]:
                expected += market.mandates.buyer(agent).values[o["merchant"]] - o["total"]
            elif agent == o["merchant"]:
                expected += o["total"] - market.mandates.merchant(agent).cost
        assert info["surplus"] == expected
    report = env.welfare_report()
    assert report["welfare"] == market.welfare().to_dict()
    assert report["surplus"] == {a: i["surplus"] for a, i in infos.items()}
    assert sum(report["surplus"].values()) == report["welfare"]["realised"] > 0
