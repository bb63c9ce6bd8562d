"""T5 predicate kinds and pricing: each passes where it must and fails where it must."""

from __future__ import annotations

from typing import Any

import pytest

from acworld_env.episode import Episode
from acworld_env.scoring.kinds import KINDS, ScoreInput
from acworld_env.scoring.multi_item_pricing import (
    cart_problems,
    fee_match,
    graded,
    price_quote,
    tier_price,
)
from acworld_env.tasks.families.multi_item import build

TASKS = build(0, frozen=True)
FEES = [{"name": "shipping", "rule": "flat", "amount": 995, "waived_from_subtotal": 10_000},
        {"name": "handling", "rule": "per_line", "amount": 150},
        {"name": "small-order fee", "rule": "below_subtotal", "amount": 400, "below": 3_000},
        {"name": "tax", "rule": "percent_of_subtotal", "basis_points": 825}]
LISTINGS = {
    "L-1": {"price": 1_000, "merchant": "m", "terms": {"checkout_fees": FEES, "quantity_pricing": [
        {"min_quantity": 1, "unit_price": 1_000}, {"min_quantity": 5, "unit_price": 900}]}},
    "L-2": {"price": 2_000, "merchant": "m", "terms": {"checkout_fees": FEES, "bundle_prices": [
        {"with_listing": "L-1", "unit_price": 1_700}], "requires": ["L-3"]}},
    "L-3": {"price": 500, "merchant": "m", "terms": {"checkout_fees": FEES, "incompatible_with": ["L-4"]}},
    "L-4": {"price": 700, "merchant": "m", "terms": {"checkout_fees": FEES, "incompatible_with": ["L-3"]}},
}


def test_pricing_tiers_bundles_and_fees_in_integer_cents() -> None:
    assert tier_price(LISTINGS["L-1"], 4) == 1_000 and tier_price(LISTINGS["L-1"], 5) == 900
    q = price_quote(LISTINGS, [("L-1", 5), ("L-2", 1)])
    assert [x["unit_price"] for x in q["lines"]] == [900, 1_700]  # tier reached; bundle partner on the quote
    assert q["subtotal"] == 6_200
    # shipping charged (under $100), handling 2 lines, no small-order fee (>= $30), tax 8.25 % half up
    assert q["fees"] == [{"name": "shipping", "amount": 995}, {"name": "handling", "amount": 300},
                         {"name": "tax", "amount": 512}]
    assert q["total"] == 6_200 + 995 + 300 + 512
    alone = price_quote(LISTINGS, [("L-2", 1)])
    assert alone["lines"][0]["unit_price"] == 2_000  # no partner, no bundle price
    assert {f["name"] for f in alone["fees"]} == {"shipping", "handling", "small-order fee", "tax"}
    big = price_quote(LISTINGS, [("L-1", 12)])
    assert "shipping" not in {f["name"] for f in big["fees"]}  # waived from $100


def test_cart_rules_and_grading() -> None:
    needs = [{"item": "a", "candidates": ["L-1"], "min": 2, "max": 6},
             {"item": "b", "candidates": ["L-2", "L-4"], "min": 1, "max": 1}]
    assert cart_problems(LISTINGS, {"L-1": 5, "L-2": 1, "L-3": 1}, needs) == []
    assert cart_problems(LISTINGS, {"L-1": 5, "L-2": 1}, needs)  # accessory missing
    assert cart_problems(LISTINGS, {"L-1": 7, "L-4": 1}, needs)  # above the maximum
    assert cart_problems(LISTINGS, {"L-1": 2, "L-2": 1, "L-4": 1, "L-3": 1}, needs)  # two for one need, clash
    assert graded(100, 100, 50) == 1.0 and graded(125, 100, 50) == 0.5 and graded(200, 100, 50) == 0.0
    assert fee_match([{"name": "small-order fee", "amount": 400}], [{"name": "Small order fee", "amount": 400}]) == (1, 1)
    assert fee_match([{"name": "tax", "amount": 5}], [{"name": "tax", "amount": 5}, {"name": "rush", "amount": 9}]) \
        == (1, 2)


def test_listing_view_shows_published_terms() -> None:
    task = next(t for t in TASKS if t.capability == "quantity_tiers")
    ep = Episode(task)
    lid = task.predicates[1].params["needs"][0]["candidates"][0]
    res = ep.act("buyer_0", {"kind": "get_listing", "listing_id": lid})
    assert res.accepted and res.result["terms"]["quantity_pricing"][0]["min_quantity"] == 1
    assert res.result["terms"]["notes"] and res.result["terms"]["checkout_fees"]


def _run(task: Any, actions: list[dict[str, Any]]) -> ScoreInput:
    ep = Episode(task)
    for a in actions:
        ep.act(task.actor, a)
    return ScoreInput(task, ep.market.trace.records, ep.market.world.state)


def _credit(si: ScoreInput, pid: str) -> float:
    spec = next(p for p in si.task.predicates if p.id == pid)
    return KINDS[spec.kind](si, spec.params)[0]


def _buyer_actions(task: Any, cart: dict[str, int], read: bool = True, pay: bool = True) -> list[dict[str, Any]]:
    listings = task.initial_state["listings"]
    acts = [{"kind": "get_listing", "listing_id": lid} for lid in sorted(cart)] if read else []
    merchants = sorted({listings[lid]["merchant"] for lid in cart})
    for n, m in enumerate(merchants, start=1):
        lines = [{"listing_id": lid, "quantity": q} for lid, q in sorted(cart.items()) if listings[lid]["merchant"] == m]
        quote = price_quote(listings, [(x["listing_id"], x["quantity"]) for x in lines])
        acts += [{"kind": "request_quote", "merchant_id": m, "lines": lines},
                 {"kind": "accept_quote", "quote_id": f"quo-{n:04d}"},
                 {"kind": "place_order", "quote_id": f"quo-{n:04d}"}]
        if pay:
            acts.append({"kind": "authorize_payment", "order_id": f"ord-{n:04d}", "amount": quote["total"]})
    return acts


@pytest.mark.parametrize("cap", ["multi_item_cart", "total_budget"])
def test_buyer_kinds_pass_and_fail(cap: str) -> None:
    task = next(t for t in TASKS if t.capability == cap)
    best = task.oracle["optimal_cart"]
    si = _run(task, _buyer_actions(task, best))
    assert {p.id: _credit(si, p.id) for p in task.predicates} == {p.id: 1.0 for p in task.predicates}
    nothing = _run(task, [])
    assert all(_credit(nothing, p.id) == 0.0 for p in task.predicates)
    unread = _run(task, _buyer_actions(task, best, read=False, pay=False))
    assert _credit(unread, "listings_read") == 0.0 and _credit(unread, "checkout_complete") == 0.0
    assert _credit(unread, "cart_optimal") == 1.0  # the cart itself is right
    extra = dict(best)
    extra.update({lid: 1 for n in task.predicates[1].params["needs"] for lid in n["candidates"]})
    everything = _run(task, _buyer_actions(task, extra))
    assert _credit(everything, "cart_feasible") == 0.0 and _credit(everything, "cart_optimal") == 0.0
    if cap == "total_budget":
        assert _credit(everything, "within_budget") == 0.0


def _merchant_actions(task: Any, tweak: dict[str, Any] | None = None, total_delta: int = 0) -> list[dict[str, Any]]:
    from acworld_env.tasks.families.multi_item_policy import quote_payload

    listings = task.initial_state["listings"]
    req = task.counterparties[0].policy.params["lines"]
    q = quote_payload(listings, [(x["listing_id"], x["quantity"]) for x in req], tweak)
    acts = [{"kind": "get_listing", "listing_id": x["listing_id"]} for x in req]
    acts.append({"kind": "issue_quote", "request_id": "qrq-0001", "lines": q["lines"], "fees": q["fees"],
                 "total": q["total"] + total_delta})
    if total_delta:
        acts.append({**acts[-1], "total": q["total"]})
    acts.append({"kind": "capture_payment", "payment_id": "pay-0001", "amount": q["total"]})
    return acts


MERCHANT_KINDS = ("read_before_quote", "quote_matches_terms", "quote_first_try", "quote_settled")
"""The kinds the merchant test below checks, each passing on the reference and failing on an empty trace."""


def test_merchant_kinds_pass_and_fail() -> None:
    task = next(t for t in TASKS if t.capability == "merchant_tier_quote")
    assert set(MERCHANT_KINDS) <= {p.kind for p in task.predicates}
    si = _run(task, _merchant_actions(task))
    assert all(_credit(si, p.id) == 1.0 for p in task.predicates)
    assert si.state["orders"]["ord-0001"]["captured"] == si.state["orders"]["ord-0001"]["total"]
    nothing = _run(task, [])
    assert all(_credit(nothing, p.id) == 0.0 for p in task.predicates)
    line = task.counterparties[0].policy.params["lines"][-1]["listing_id"]
    wrong = _run(task, _merchant_actions(task, {"line": line, "unit_price": 1}))
    assert _credit(wrong, "quote_lines") < 1 and _credit(wrong, "quote_subtotal") == 0.0
    assert _credit(wrong, "quote_total") == 0.0 and _credit(wrong, "quote_first_try") == 1.0
    retried = _run(task, _merchant_actions(task, total_delta=100))
    assert _credit(retried, "quote_first_try") == 0.0
    assert all(_credit(retried, p.id) == 1.0 for p in task.predicates if p.id != "quote_first_try")
    dropped = next(t for t in TASKS if t.capability == "merchant_total_quote")
    fee = price_quote(dropped.initial_state["listings"], [
        (x["listing_id"], x["quantity"]) for x in dropped.counterparties[0].policy.params["lines"]])["fees"][-1]
    si = _run(dropped, _merchant_actions(dropped, {"drop_fee": fee["name"]}))
    assert _credit(si, "quote_fees") < 1 and _credit(si, "quote_total") == 0.0 and _credit(si, "quote_lines") == 1.0
