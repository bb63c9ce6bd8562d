"""The pure transition F(state, events) -> delta, one handler family at a time.

Every call goes through :func:`step`, which also proves that ``transition`` leaves its input
untouched and that its delta holds fresh records (applying it cannot alias the old state).
"""

from __future__ import annotations

import copy

import pytest
from foundation_kit import small_state

from acworld_env.world import (
    TransitionError,
    World,
    apply_delta,
    canonical,
    listing_record,
    state_digest,
    transition,
)
from acworld_env.world.state import clone


def step(state: dict, *events: dict) -> dict:
    """Apply ``events`` as one commit; check purity; return the new state."""
    before, before_bytes = copy.deepcopy(state), canonical(state)
    delta = transition(state, list(events))
    assert state == before and canonical(state) == before_bytes, "transition mutated its input"
    assert canonical(transition(state, list(events))) == canonical(delta), "transition is not deterministic"
    for table, key, record in delta:
        assert record is None or record is not state[table].get(key), f"{table}/{key} aliases the input"
    after = clone(state)
    apply_delta(after, delta)
    return after


def refused(state: dict, *events: dict, match: str) -> None:
    before = copy.deepcopy(state)
    with pytest.raises(TransitionError, match=match):
        transition(state, list(events))
    assert state == before


def offer(tid: str = "thr-0001", price: int = 800) -> dict:
    return {"type": "offer_opened", "thread_id": tid, "buyer": "b1", "merchant": "m1", "listing_id": "L1",
            "quantity": 2, "unit_price": price, "by": "b1", "round": 0, "max_offers": None}


def placed(order_id: str = "ord-0001", source: str = "list", total: int = 2_000) -> dict:
    return {"type": "order_placed", "order_id": order_id, "buyer": "b1", "merchant": "m1",
            "lines": [{"listing_id": "L1", "quantity": 2, "unit_price": total // 2}], "fees": [],
            "total": total, "source": source, "round": 0}


def paid_state() -> dict:
    s = step(small_state(), placed())
    s = step(s, {"type": "payment_authorized", "payment_id": "pay-0001", "order_id": "ord-0001", "buyer": "b1",
                 "merchant": "m1", "amount": 2_000, "round": 0})
    return step(s, {"type": "payment_captured", "payment_id": "pay-0001", "amount": 2_000})


def shipped_state() -> dict:
    s = step(paid_state(), {"type": "inventory_allocated", "order_id": "ord-0001",
                            "lines": [{"listing_id": "L1", "quantity": 2}]})
    return step(s, {"type": "order_shipped", "order_id": "ord-0001", "shipment_id": "shp-0001",
                    "carrier": "ups", "round": 1})


def delivered_state() -> dict:
    return step(shipped_state(), {"type": "delivery_confirmed", "shipment_id": "shp-0001", "round": 2})


# -- listings ------------------------------------------------------------------------


def test_listing_family():
    s0 = small_state()
    s = step(s0, {"type": "listing_materialized", "listing_id": "L9", "record": listing_record("m2", 300, 4)})
    assert s["listings"]["L9"]["price"] == 300 and "L9" not in s0["listings"]
    refused(s, {"type": "listing_materialized", "listing_id": "L9", "record": listing_record("m2", 1, 1)},
            match="already")

    s = step(s, {"type": "listing_published", "listing_id": "L-new-0001",
                 "record": listing_record("m1", 1_234, 7, title="Tamper")})
    assert s["listings"]["L-new-0001"]["title"] == "Tamper"
    assert s["counters"]["ids"]["listings"] == 1

    s = step(s, {"type": "listing_updated", "listing_id": "L1", "price": 1_100, "stock": None, "status": "paused",
                 "compare_at": 1_500, "claims": {"origin": "IT"}})
    rec = s["listings"]["L1"]
    assert (rec["price"], rec["stock"], rec["status"], rec["compare_at"]) == (1_100, 5, "paused", 1_500)
    assert rec["claims"] == {"burr": "steel", "origin": "IT"}

    s = step(s, {"type": "claim_retracted", "listing_id": "L1", "claim": "burr"})
    assert s["listings"]["L1"]["claims"] == {"origin": "IT"}
    s = step(s, {"type": "sponsorship_disclosed", "listing_id": "L1", "sponsor": "Acme Ads"})
    assert s["listings"]["L1"]["sponsor"] == "Acme Ads"
    assert s0["listings"]["L1"]["claims"] == {"burr": "steel"} and s0["listings"]["L1"]["sponsor"] is None


# -- offers --------------------------------------------------------------------------


def test_offer_family():
    s = step(small_state(), offer())
    thr = s["threads"]["thr-0001"]
    assert (thr["status"], thr["last_by"], thr["unit_price"], len(thr["offers"])) == ("open", "b1", 800, 1)
    assert s["counters"]["ids"]["threads"] == 1
    refused(s, offer(), match="already exists")

    s2 = step(s, {"type": "offer_countered", "thread_id": "thr-0001", "unit_price": 990, "by": "m1", "round": 1})
    assert [o["unit_price"] for o in s2["threads"]["thr-0001"]["offers"]] == [800, 990]
    assert s2["threads"]["thr-0001"]["last_by"] == "m1"
    assert len(s["threads"]["thr-0001"]["offers"]) == 1  # the earlier state kept its own list

    s3 = step(s2, {"type": "offer_accepted", "thread_id": "thr-0001", "by": "b1", "round": 1})
    assert s3["threads"]["thr-0001"]["status"] == "agreed" and s3["threads"]["thr-0001"]["agreed_price"] == 990

    s4 = step(s2, {"type": "offer_closed", "thread_id": "thr-0001", "status": "rejected", "by": "b1"})
    assert s4["threads"]["thr-0001"]["status"] == "rejected" and s4["threads"]["thr-0001"]["agreed_price"] is None
    refused(s, {"type": "offer_countered", "thread_id": "thr-9", "unit_price": 1, "by": "m1", "round": 0},
            match="no threads record")


# -- quotes --------------------------------------------------------------------------


def test_quote_family():
    s = step(small_state(), {"type": "quote_requested", "request_id": "qrq-0001", "buyer": "b1", "merchant": "m1",
                             "lines": [{"listing_id": "L1", "quantity": 1}]})
    assert s["quote_requests"]["qrq-0001"]["status"] == "open"
    s = step(s, {"type": "quote_issued", "request_id": "qrq-0001", "quote_id": "quo-0001", "buyer": "b1",
                 "merchant": "m1", "lines": [{"listing_id": "L1", "quantity": 1, "unit_price": 1_000}],
                 "fees": [{"name": "ship", "amount": 99}], "total": 1_099, "expires_round": 5})
    assert s["quote_requests"]["qrq-0001"]["status"] == "quoted"
    assert s["quotes"]["quo-0001"]["total"] == 1_099 and s["quotes"]["quo-0001"]["status"] == "open"
    s = step(s, {"type": "quote_accepted", "quote_id": "quo-0001"})
    assert s["quotes"]["quo-0001"]["status"] == "accepted"
    s = step(s, {**placed(source="quo-0001", total=1_099), "fees": [{"name": "ship", "amount": 99}]})
    assert s["quotes"]["quo-0001"]["status"] == "ordered"
    assert s["orders"]["ord-0001"]["fees"] == [{"name": "ship", "amount": 99}]


# -- orders and payments -----------------------------------------------------------------


def test_order_and_payment_family():
    s0 = step(small_state(), offer())
    s0 = step(s0, {"type": "offer_accepted", "thread_id": "thr-0001", "by": "m1", "round": 0})
    s = step(s0, placed(source="thr-0001", total=1_600))
    order = s["orders"]["ord-0001"]
    assert (order["status"], order["total"], order["captured"]) == ("placed", 1_600, 0)
    assert s["threads"]["thr-0001"]["status"] == "ordered"
    assert s["reputation"]["m1"]["orders"] == 1 and s0["reputation"]["m1"]["orders"] == 0
    assert s["ledger"]["ord-0001"] == {"entries": [{"type": "order", "amount": 1_600}], "closed": False}

    s = step(s, {"type": "order_confirmed", "order_id": "ord-0001"})
    assert s["orders"]["ord-0001"]["confirmed"] is True

    auth = {"type": "payment_authorized", "payment_id": "pay-0001", "order_id": "ord-0001", "buyer": "b1",
            "merchant": "m1", "amount": 1_600, "round": 0}
    s1 = step(s, auth)
    assert s1["actors"]["b1"]["balance"] == 500_000 - 1_600 and s1["actors"]["b1"]["held"] == 1_600
    assert s1["orders"]["ord-0001"]["status"] == "authorized" and s1["orders"]["ord-0001"]["payment"] == "pay-0001"
    assert s1["payments"]["pay-0001"]["status"] == "authorized"
    poor = clone(s)
    poor["actors"]["b1"]["balance"] = 1_599
    refused(poor, auth, match="insufficient")

    s2 = step(s1, {"type": "payment_captured", "payment_id": "pay-0001", "amount": 1_000})
    assert s2["actors"]["b1"]["held"] == 600 and s2["actors"]["m1"]["balance"] == 1_000
    assert s2["orders"]["ord-0001"]["status"] == "paid" and s2["orders"]["ord-0001"]["captured"] == 1_000
    refused(s2, {"type": "payment_captured", "payment_id": "pay-0001", "amount": 601}, match="capture above")

    s3 = step(s2, {"type": "authorization_voided", "payment_id": "pay-0001"})
    assert s3["actors"]["b1"]["held"] == 0 and s3["actors"]["b1"]["balance"] == 500_000 - 1_000
    assert s3["payments"]["pay-0001"]["authorized"] == 1_000
    assert [e["type"] for e in s3["ledger"]["ord-0001"]["entries"]] == ["order", "authorize", "capture", "void"]


# -- fulfilment ------------------------------------------------------------------------


def test_fulfilment_family():
    s = step(paid_state(), {"type": "inventory_allocated", "order_id": "ord-0001",
                            "lines": [{"listing_id": "L1", "quantity": 2}]})
    assert (s["listings"]["L1"]["stock"], s["listings"]["L1"]["reserved"]) == (3, 2)
    assert s["orders"]["ord-0001"]["allocated"] == {"L1": 2} and s["orders"]["ord-0001"]["status"] == "allocated"
    refused(s, {"type": "inventory_allocated", "order_id": "ord-0001",
                "lines": [{"listing_id": "L1", "quantity": 4}]}, match="negative")

    s = step(s, {"type": "order_shipped", "order_id": "ord-0001", "shipment_id": "shp-0001", "carrier": "ups",
                 "round": 1})
    assert (s["listings"]["L1"]["stock"], s["listings"]["L1"]["reserved"]) == (3, 0)
    assert s["orders"]["ord-0001"]["shipped"] == {"L1": 2} and s["orders"]["ord-0001"]["allocated"] == {}
    assert s["shipments"]["shp-0001"]["lines"] == [{"listing_id": "L1", "quantity": 2}]
    assert s["reputation"]["m1"]["fulfilled"] == 1

    s = step(s, {"type": "delivery_exception_reported", "shipment_id": "shp-0001", "reason": "delayed", "by": "b1"})
    assert s["shipments"]["shp-0001"]["status"] == "exception"
    s = step(s, {"type": "delivery_confirmed", "shipment_id": "shp-0001", "round": 4})
    assert s["shipments"]["shp-0001"]["status"] == "delivered"
    assert s["orders"]["ord-0001"]["status"] == "delivered" and s["orders"]["ord-0001"]["delivered_round"] == 4

    s = step(s, {"type": "restocked", "listing_id": "L1", "quantity": 10})
    assert s["listings"]["L1"]["stock"] == 13
    s = step(s, {"type": "eta_set", "order_id": "ord-0001", "eta_round": 9})
    assert s["orders"]["ord-0001"]["eta_round"] == 9

    backordered = step(paid_state(), {"type": "inventory_allocated", "order_id": "ord-0001",
                                      "lines": [{"listing_id": "L1", "quantity": 1}], "backorder": {"L1": 1}})
    assert backordered["orders"]["ord-0001"]["backordered"] == {"L1": 1}


# -- after-sales -----------------------------------------------------------------------


def test_cancel_releases_allocated_stock():
    s = step(paid_state(), {"type": "inventory_allocated", "order_id": "ord-0001",
                            "lines": [{"listing_id": "L1", "quantity": 2}]})
    s = step(s, {"type": "order_cancelled", "order_id": "ord-0001"},
             {"type": "refund_issued", "payment_id": "pay-0001", "refund_id": "rfd-0001", "amount": 2_000,
              "return_id": None})
    assert (s["listings"]["L1"]["stock"], s["listings"]["L1"]["reserved"]) == (5, 0)
    assert s["orders"]["ord-0001"]["status"] == "cancelled" and s["orders"]["ord-0001"]["refunded"] == 2_000
    assert s["actors"]["b1"]["balance"] == 500_000 and s["actors"]["m1"]["balance"] == 0


def test_after_sales_family():
    s = step(delivered_state(), {"type": "return_requested", "return_id": "ret-0001", "order_id": "ord-0001",
                                 "buyer": "b1", "merchant": "m1", "lines": [{"listing_id": "L1", "quantity": 1}],
                                 "reason": "scratched", "amount": 1_000})
    assert s["returns"]["ret-0001"]["status"] == "requested"
    s = step(s, {"type": "return_decided", "return_id": "ret-0001", "approve": True})
    assert s["returns"]["ret-0001"]["status"] == "authorized"

    r = step(s, {"type": "refund_issued", "payment_id": "pay-0001", "refund_id": "rfd-0001", "amount": 1_000,
                 "return_id": "ret-0001"})
    assert r["payments"]["pay-0001"]["refunded"] == 1_000 and r["payments"]["pay-0001"]["status"] == "partially_refunded"
    assert r["actors"]["m1"]["balance"] == 1_000 and r["actors"]["b1"]["balance"] == 500_000 - 1_000
    assert r["returns"]["ret-0001"]["status"] == "refunded" and r["refunds"]["rfd-0001"]["amount"] == 1_000
    assert r["ledger"]["ord-0001"]["entries"][-1] == {"type": "refund", "amount": 1_000, "payment": "pay-0001"}
    refused(r, {"type": "refund_issued", "payment_id": "pay-0001", "refund_id": "rfd-0002", "amount": 1_001,
                "return_id": None}, match="refund above")
    full = step(r, {"type": "refund_issued", "payment_id": "pay-0001", "refund_id": "rfd-0002", "amount": 1_000,
                    "return_id": None})
    assert full["payments"]["pay-0001"]["status"] == "refunded"

    x = step(s, {"type": "exchange_offered", "return_id": "ret-0001", "listing_id": "L2", "exchange_id": "exc-0001"})
    assert x["returns"]["ret-0001"]["status"] == "exchanged" and x["exchanges"]["exc-0001"]["listing"] == "L2"

    d = step(s, {"type": "dispute_opened", "dispute_id": "dsp-0001", "order_id": "ord-0001", "buyer": "b1",
                 "merchant": "m1", "reason": "damaged", "evidence": ["shp-0001"]})
    assert d["disputes"]["dsp-0001"]["status"] == "open" and d["reputation"]["m1"]["disputes"] == 1
    d2 = step(d, {"type": "dispute_responded", "dispute_id": "dsp-0001", "evidence": ["photo-1"]})
    assert d2["disputes"]["dsp-0001"]["evidence"] == {"buyer": ["shp-0001"], "merchant": ["photo-1"]}
    assert d2["disputes"]["dsp-0001"]["status"] == "responded"
    assert d["disputes"]["dsp-0001"]["evidence"] == {"buyer": ["shp-0001"]}

    c = step(s, {"type": "ledger_closed", "order_id": "ord-0001"})
    assert c["ledger"]["ord-0001"]["closed"] is True and c["orders"]["ord-0001"]["status"] == "closed"


# -- reviews and market events ---------------------------------------------------------------


def test_review_family():
    s = step(delivered_state(), {"type": "review_posted", "review_id": "rev-0001", "listing_id": "L1",
                                 "order_id": "ord-0001", "by": "b1", "rating": 4, "text": "good",
                                 "merchant": "m1"})
    assert s["reviews"]["rev-0001"]["rating"] == 4
    assert (s["reputation"]["m1"]["ratings"], s["reputation"]["m1"]["rating_sum"]) == (1, 4)
    s2 = step(s, {"type": "review_flagged", "review_id": "rev-0001", "by": "b2", "reason": "fake"})
    assert s2["reviews"]["rev-0001"]["flags"] == [{"by": "b2", "reason": "fake"}]
    assert s["reviews"]["rev-0001"]["flags"] == []


def test_market_event_family():
    s = step(small_state(), {"type": "market_event_delivered", "event_id": "evt-1",
                             "record": {"to": "b1", "kind": "webhook", "payload": {"amount": 100}}})
    assert s["market_events"]["evt-1"]["verdict"] is None
    s = step(s, {"type": "event_classified", "event_id": "evt-1", "verdict": "apply"})
    assert s["market_events"]["evt-1"]["verdict"] == "apply"
    s = step(s, {"type": "event_applied", "event_id": "evt-1"})
    s = step(s, {"type": "event_applied", "event_id": "evt-1"})
    assert s["market_events"]["evt-1"]["applied"] == 2


# -- the whole transition -----------------------------------------------------------------


def test_unknown_event_type_is_refused():
    refused(small_state(), {"type": "teleport"}, match="unknown event type")
    refused(small_state(), {"no": "type"}, match="unknown event type")


def test_a_commit_is_atomic():
    """When a later event of a commit fails, no earlier event of it lands."""
    world = World(paid_state())
    digest = world.state_digest()
    val = {"validation_id": "val-1", "actor": "m1", "accepted": True}
    with pytest.raises(TransitionError):
        world.commit("m1", val, [
            {"type": "restocked", "listing_id": "L1", "quantity": 100},
            {"type": "inventory_allocated", "order_id": "ord-0001", "lines": [{"listing_id": "L9", "quantity": 1}]},
        ])
    assert world.commits == [] and world.state_digest() == digest


def test_events_in_one_commit_see_each_other():
    s = step(small_state(), offer(), {"type": "offer_accepted", "thread_id": "thr-0001", "by": "m1", "round": 0},
             placed(source="thr-0001", total=1_600))
    assert s["threads"]["thr-0001"]["status"] == "ordered" and s["counters"]["ids"]["orders"] == 1


def test_world_commit_requires_an_accepted_validation_of_the_same_actor():
    world = World(small_state())
    ev = [{"type": "restocked", "listing_id": "L1", "quantity": 1}]
    with pytest.raises(ValueError, match="accepted"):
        world.commit("m1", {"validation_id": "v", "actor": "m1", "accepted": False}, ev)
    with pytest.raises(ValueError, match="own actor"):
        world.commit("m1", {"validation_id": "v", "actor": "m2", "accepted": True}, ev)
    assert world.commits == []
    c = world.commit("m1", {"validation_id": "v", "actor": "m1", "accepted": True}, ev)
    assert c["seq"] == 1 and world.state["listings"]["L1"]["stock"] == 6


def test_state_digest_is_canonical():
    a = small_state()
    b = {k: dict(reversed(list(v.items()))) for k, v in reversed(list(small_state().items()))}
    assert state_digest(a) == state_digest(b)
    b["listings"]["L1"]["price"] += 1
    assert state_digest(a) != state_digest(b)


def test_world_refuses_floats_in_its_initial_state():
    s = small_state()
    s["listings"]["L1"]["price"] = 10.5
    with pytest.raises(TypeError, match="float"):
        World(s)
