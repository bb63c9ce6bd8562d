"""Shared builders for the foundation tests: a small market and helpers that submit and check."""

from __future__ import annotations

from typing import Any

from acworld_env.market import Market, StepResult
from acworld_env.world import add_actor, empty_state, listing_record

BUYERS = ("b1", "b2")
MERCHANTS = ("m1", "m2")
ACTORS = BUYERS + MERCHANTS
BUYER_CEILING = 9_500
MERCHANT_FLOOR = 9_000


def small_state() -> dict:
    """Two buyers, two merchants, five listings (one paused)."""
    state = empty_state()
    for b in BUYERS:
        add_actor(state, b, "buyer", balance=500_000)
    for m in MERCHANTS:
        add_actor(state, m, "merchant")
    state["listings"]["L1"] = listing_record("m1", 1_000, 5, title="Burr grinder", category="Coffee",
                                             claims={"burr": "steel"})
    state["listings"]["L2"] = listing_record("m1", 2_500, 2, title="Kettle", category="Coffee")
    state["listings"]["L3"] = listing_record("m2", 4_000, 3, title="Scale", category="Coffee")
    state["listings"]["L4"] = listing_record("m2", 700, 10, title="Filters", category="Coffee")
    state["listings"]["L5"] = listing_record("m2", 900, 10, title="Old stock", status="paused")
    return state


def make_market(**settings: Any) -> Market:
    """A market over :func:`small_state`; b1 seals a $95 ceiling, m1 a $90 floor."""
    return Market(small_state(), sealed={"b1": [BUYER_CEILING], "m1": [MERCHANT_FLOOR]},
                  mandates={"b1": {"max_unit_price": BUYER_CEILING}}, settings=settings)


def ok(m: Market, actor: str, raw: Any) -> StepResult:
    """Submit and require acceptance."""
    r = m.submit(actor, raw)
    assert r.accepted, (actor, raw, r.code, r.message)
    return r


def rejected(m: Market, actor: str, raw: Any, code: str) -> StepResult:
    """Submit, require a rejection with ``code``, and check that nothing changed but the trace."""
    commits, digest, head = len(m.world.commits), m.world.state_digest(), m.world.event_digest
    records = len(m.trace.records)
    r = m.submit(actor, raw)
    assert not r.accepted, (actor, raw, "unexpectedly accepted")
    assert r.code == code, (r.code, r.message)
    assert r.message, "a rejection must say why"
    assert r.commit_seq is None
    assert len(m.world.commits) == commits, "a rejection committed"
    assert m.world.state_digest() == digest and m.world.event_digest == head
    assert len(m.trace.records) == records + 1, "a rejection must leave a lineage record"
    rec = m.trace.records[-1]
    assert rec["actor"] == actor and rec["commit"] is None and rec["delta"] == []
    assert rec["validation"]["accepted"] is False and rec["validation"]["code"] == code
    return r


def list_order(m: Market, buyer: str, merchant: str, listing: str, qty: int = 1) -> tuple[str, int]:
    """Place a list-price order; return its id and total."""
    r = ok(m, buyer, {"kind": "place_order", "merchant_id": merchant,
                      "lines": [{"listing_id": listing, "quantity": qty}]})
    return r.result["order_id"], r.result["total"]


def pay(m: Market, buyer: str, merchant: str, order_id: str, total: int) -> str:
    """Authorise and capture the whole total; return the payment id."""
    pid = ok(m, buyer, {"kind": "authorize_payment", "order_id": order_id, "amount": total}).result["payment_id"]
    ok(m, merchant, {"kind": "capture_payment", "payment_id": pid, "amount": total})
    return pid


def ship(m: Market, merchant: str, order_id: str) -> str:
    """Allocate and ship; return the shipment id."""
    ok(m, merchant, {"kind": "allocate_inventory", "order_id": order_id})
    return ok(m, merchant, {"kind": "ship_order", "order_id": order_id}).result["shipment_id"]


def delivered_order(m: Market, buyer: str = "b1", merchant: str = "m1", listing: str = "L1",
                    qty: int = 1) -> dict[str, Any]:
    """Run an order from placement to confirmed delivery; return its ids."""
    oid, total = list_order(m, buyer, merchant, listing, qty)
    pid = pay(m, buyer, merchant, oid, total)
    sid = ship(m, merchant, oid)
    ok(m, buyer, {"kind": "confirm_delivery", "shipment_id": sid})
    return {"order_id": oid, "payment_id": pid, "shipment_id": sid, "total": total}


def open_thread(m: Market, buyer: str = "b1", merchant: str = "m1", listing: str = "L1",
                price: int = 800) -> str:
    """Buyer opens a negotiation; return the thread id."""
    return ok(m, buyer, {"kind": "propose_offer", "to": merchant, "listing_id": listing,
                         "unit_price": price}).result["thread_id"]


def trace_validations(m: Market) -> dict[str, dict]:
    """The validations cited by commits, as recorded in the lineage trace."""
    return {r["validation"]["validation_id"]: r["validation"] for r in m.trace.records
            if r["commit"] is not None}
