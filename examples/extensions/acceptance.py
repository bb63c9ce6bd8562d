"""Acceptance of the three extension seams, three configurations each (nine in all).

Each configuration loads an example extension from this folder (nothing in ``acworld_env`` knows
it), runs a small market through ``Market.submit``, and checks: the extension's effect, the
platform's validity checks on misuse (each a recorded rejection with no commit, or a World
refusal that changes nothing), and reconstruction of the World from its commits with both
digests equal. Prints one JSON object per configuration.

    PYTHONPATH=examples/extensions python examples/extensions/acceptance.py [--seam action|domain|event]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acworld_env.market import Market
from acworld_env.world import (
    ReplayError,
    TransitionError,
    add_actor,
    empty_state,
    listing_record,
    reconstruct,
)


def _rebuilds(market: Market) -> bool:
    w = market.world
    vals = {r.validation.validation_id: r.validation.to_dict() for r in market.trace.records if r.commit is not None}
    rebuilt = reconstruct(w.initial_state, w.commits, vals)
    links = all(w.commits[r.commit - 1]["validation_id"] == r.validation.validation_id
                for r in market.trace.records if r.commit is not None)
    return rebuilt.state_digest == w.state_digest() and rebuilt.event_digest == w.event_digest and links


def _refused(market: Market, actor: str, action: dict, code: str) -> bool:
    before = len(market.world.commits)
    r = market.submit(actor, action)
    return (not r.accepted) and r.code == code and len(market.world.commits) == before


def _settle(market: Market, buyer: str, merchant: str, lid: str) -> dict:
    res = market.submit(buyer, {"kind": "place_order", "merchant_id": merchant, "lines": [{"listing_id": lid}]})
    oid, total = res.result["order_id"], res.result["total"]
    pid = market.submit(buyer, {"kind": "authorize_payment", "order_id": oid, "amount": total}).result["payment_id"]
    for a in ({"kind": "capture_payment", "payment_id": pid, "amount": total},
              {"kind": "allocate_inventory", "order_id": oid}, {"kind": "ship_order", "order_id": oid}):
        market.submit(merchant, a)
    return market.world.state["orders"][oid]


# -- seam 1: a platform tool (VCP action + rule) ----------------------------------------------
def action_config(name: str, price: int, percents: list[int]) -> dict[str, Any]:
    import acw_discounts

    acw_discounts.register()
    state = empty_state()
    add_actor(state, "B", "buyer", balance=1_000_000)
    for m in ("M1", "M2"):
        add_actor(state, m, "merchant")
    state["listings"]["L1"] = listing_record("M1", price, 5)
    state["listings"]["L2"] = listing_record("M2", price, 5)
    market = Market(state, sealed={"M1": [4321]})
    expected = price
    for p in percents:
        r = market.submit("M1", {"kind": "set_discount", "listing_id": "L1", "percent": p})
        expected = price - price * p // 100
    effect = r.accepted and market.world.state["listings"]["L1"]["price"] == expected
    checks = {
        "effect": effect,
        "not_owner": _refused(market, "M2", {"kind": "set_discount", "listing_id": "L1", "percent": 5}, "not_owner"),
        "role_forbidden": _refused(market, "B", {"kind": "set_discount", "listing_id": "L1", "percent": 5},
                                   "role_forbidden"),
        "bounds": _refused(market, "M1", {"kind": "set_discount", "listing_id": "L1", "percent": 95}, "invalid_field"),
        "privacy": _refused(market, "M1", {"kind": "set_discount", "listing_id": "L1", "percent": 5,
                                           "note": "cannot go below $43.21"}, "privacy_leak"),
        "downstream_order_at_discount": _settle(market, "B", "M1", "L1")["total"] == expected,
        "reconstructed": _rebuilds(market),
    }
    return {"seam": "action", "config": name, "checks": checks}


# -- seam 2: a product domain (catalog department + attributes) -------------------------------
def domain_config(name: str, listings: int, merchants: int, seed: int, query: dict[str, Any],
                  match: Callable[[dict], bool]) -> dict[str, Any]:
    import acw_bikes

    from acworld_env.catalog import Catalog
    from acworld_env.catalog.synth import SynthConfig, synthesize

    dept = acw_bikes.register()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bikes.sqlite"
        synthesize(SynthConfig(listings=listings, merchants=merchants, seed=seed, departments=(acw_bikes.KEY,),
                               messy=False, name=f"bikes-{seed}"), path, workers=1)
        catalog = Catalog.open(path)
        state = empty_state(catalog_hash=catalog.content_hash)
        add_actor(state, "B", "buyer", balance=10**9)
        ids = sorted({x.merchant_id for x in catalog.search({"page_size": 50}).items})
        for m in {f"m{i:03d}" for i in range(merchants)} | set(ids):
            add_actor(state, m, "merchant")
        market = Market(state, catalog=catalog)
        found = market.submit("B", {"kind": "search_listings", **query, "in_stock": True, "sort": "price_asc"})
        items = found.result["items"] if found.accepted else []
        types = {t.name for t in dept.types}
        views = [catalog.get(x["listing_id"]) for x in items]
        first = views[0] if views else None
        order = _settle(market, "B", first.merchant_id, first.listing_id) if first else {}
        checks = {
            "search_finds_the_domain": bool(items) and all(v.category in types for v in views),
            "attribute_filter_holds": bool(views) and all(match(v.attributes | {"category": v.category}) for v in views),
            "order_settles": order.get("status") == "shipped" and order.get("captured") == order.get("total"),
            "unknown_listing": _refused(market, "B", {"kind": "place_order", "merchant_id": ids[0],
                                                      "lines": [{"listing_id": "no-such-bike"}]}, "unknown_listing"),
            "inverted_range_refused": _refused(market, "B", {"kind": "search_listings",
                                                             "attributes": {"gears": {"min": 30, "max": 1}}},
                                               "bad_query_bad_value"),
            "reconstructed": _rebuilds(market),
        }
    return {"seam": "domain", "config": name, "checks": checks}


# -- seam 3: a World event with its handler ---------------------------------------------------
def event_config(name: str, price: int, rate: int) -> dict[str, Any]:
    import acw_loyalty

    acw_loyalty.register()
    state = acw_loyalty.extend_state(empty_state())
    add_actor(state, "B", "buyer", balance=1_000_000)
    add_actor(state, "M", "merchant")
    state["listings"]["L1"] = listing_record("M", price, 5)
    award = acw_loyalty.award("B", "ord-0001", price, rate)
    market = Market(state, schedule=[{"id": "loyalty-1", "round": 1, "events": [award]}])
    _settle(market, "B", "M", "L1")
    market.advance()
    got = market.world.state[acw_loyalty.TABLE].get("B", {})
    market.submit("B", {"kind": "place_order", "merchant_id": "M", "lines": [{"listing_id": "L1"}]})

    def refused(event: dict) -> bool:
        before, digest = len(market.world.commits), market.world.state_digest()
        val = {"validation_id": "val-ext", "actor": "market", "accepted": True}
        try:
            market.world.commit("market", val, [event])
        except TransitionError:
            return len(market.world.commits) == before and market.world.state_digest() == digest
        return False

    tampered = [dict(c) for c in market.world.commits]
    last = next(i for i, c in enumerate(tampered) if c["body"]["events"][0]["type"] == acw_loyalty.EVENT)
    tampered[last] = {**tampered[last], "body": {**tampered[last]["body"], "events": [{**award, "points": 10**6}]}}
    try:
        reconstruct(market.world.initial_state, tampered)
        tamper_caught = False
    except ReplayError:
        tamper_caught = True
    checks = {
        "effect": got == {"points": award["points"], "orders": ["ord-0001"]},
        "duplicate_refused": refused(award),
        "unshipped_refused": refused(acw_loyalty.award("B", "ord-0002", price, rate)),
        "other_buyer_refused": refused({**award, "buyer": "M"}),
        "tamper_caught": tamper_caught,
        "reconstructed": _rebuilds(market),
    }
    return {"seam": "event", "config": name, "checks": checks}


def configurations() -> dict[str, list[Callable[[], dict[str, Any]]]]:
    """Three configurations per seam."""
    return {
        "action": [lambda: action_config("10% off", 5_000, [10]),
                   lambda: action_config("25% then 40% of the reference", 12_345, [25, 40]),
                   lambda: action_config("90% off a $1.99 listing", 199, [90])],
        "domain": [lambda: domain_config("electric bikes", 40, 4, 0, {"attributes": {"electric": True}},
                                         lambda a: a.get("electric") is True),
                   lambda: domain_config("20+ gears", 30, 3, 1, {"attributes": {"gears": {"min": 20}}},
                                         lambda a: a.get("gears", 0) >= 20),
                   lambda: domain_config("helmets", 24, 2, 2, {"category": "Helmets"},
                                         lambda a: a["category"] == "Helmets")],
        "event": [lambda: event_config("1 point per dollar", 4_999, 1),
                  lambda: event_config("5 points per dollar", 12_000, 5),
                  lambda: event_config("10 points per dollar", 150, 10)],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seam", choices=["action", "domain", "event"], default=None)
    args = ap.parse_args(argv)
    ok = True
    for seam, configs in configurations().items():
        if args.seam not in (None, seam):
            continue
        for make in configs:
            result = make()
            result["ok"] = all(result["checks"].values())
            ok &= result["ok"]
            print(json.dumps(result, sort_keys=True))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
