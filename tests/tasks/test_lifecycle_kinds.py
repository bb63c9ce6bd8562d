"""The T7 predicate kinds on Worlds built from events and hand-built traces: where each passes and fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from acworld_env.scoring import KINDS, ScoreInput
from acworld_env.tasks.families.lifecycle_world import Order, WorldBuilder
from acworld_env.tasks.spec import PolicyRef, PredicateSpec, TaskSpec
from acworld_env.world import empty_state

M, B = "merchant_0", "buyer_0"


def rec(n: int, action: dict, *, actor: str = M, accepted: bool = True) -> dict[str, Any]:
    """A minimal lineage record of the shape the kinds read."""
    return {"n": n, "round": 0, "actor": actor, "action": action,
            "validation": {"accepted": accepted, "code": "ok" if accepted else "x"}, "evidence": []}


def credit(kind: str, params: dict, records: list, state: dict) -> tuple[float, dict]:
    task = TaskSpec(task_id="test/t7-kinds", family="test", capability="test", role="merchant", actor=M,
                    request="test", initial_state=empty_state(),
                    predicates=[PredicateSpec(id="p", kind=kind, params=params, weight=1.0, stage="Decision",
                                              loss_group="Choice")],
                    reference=PolicyRef(name="fixed", params={"actions": []}))
    return KINDS[kind](ScoreInput(task, records, state), params)


def delivered_with_return(approve: bool = True) -> tuple[WorldBuilder, Order, str, str]:
    """One delivered order of 2 units and a return of 1 unit (approved unless told)."""
    w = WorldBuilder()
    lid = w.listing("Mat", 5_000, stock=10)
    o = w.order([(lid, 2)], stage="delivered")
    rid = w.request_return(o, [(lid, 1)], "No longer needed.")
    if approve:
        w.decide_return(rid, True)
    return w, o, rid, lid


# -- lc_order_settled -----------------------------------------------------------------------

def _settled_cases() -> list[tuple[str, Callable[[], tuple[dict, dict]], float]]:
    def refunded_restocked_closed() -> tuple[dict, dict]:
        w, o, rid, lid = delivered_with_return()
        w.refund(o.payment_id, 5_000, rid)
        w.apply({"type": "restocked", "listing_id": lid, "quantity": 1}, {"type": "ledger_closed", "order_id": o.order_id})
        return w.state, {"order_id": o.order_id, "net": 5_000, "closed": True, "stock": {lid: 9}}

    def unlinked_refund() -> tuple[dict, dict]:  # the money is right but the return still waits
        w, o, rid, lid = delivered_with_return()
        w.refund(o.payment_id, 5_000)
        return w.state, {"order_id": o.order_id, "net": 5_000}

    def wrong_amount() -> tuple[dict, dict]:
        w, o, rid, lid = delivered_with_return()
        w.refund(o.payment_id, 4_000, rid)
        return w.state, {"order_id": o.order_id, "net": 5_000}

    def hold_left() -> tuple[dict, dict]:
        w, o, rid, lid = delivered_with_return(approve=False)
        w.authorize(o, 1_000)
        return w.state, {"order_id": o.order_id, "net": 10_000}

    def hold_voided() -> tuple[dict, dict]:
        w, o, rid, lid = delivered_with_return(approve=False)
        extra = w.authorize(o, 1_000)
        w.apply({"type": "authorization_voided", "payment_id": extra})
        return w.state, {"order_id": o.order_id, "net": 10_000, "closed": False}

    def not_restocked() -> tuple[dict, dict]:
        w, o, rid, lid = delivered_with_return()
        w.refund(o.payment_id, 5_000, rid)
        return w.state, {"order_id": o.order_id, "net": 5_000, "stock": {lid: 9}}

    def cancelled_open() -> tuple[dict, dict]:
        w = WorldBuilder()
        o = w.order([(w.listing("Mat", 5_000), 1)], stage="paid")
        w.apply({"type": "order_cancelled", "order_id": o.order_id},
                {"type": "refund_issued", "payment_id": o.payment_id, "refund_id": "rfd-0001", "amount": 5_000,
                 "return_id": None})
        return w.state, {"order_id": o.order_id, "net": 0, "closed": True, "statuses": ["closed"]}

    return [("refunded, restocked, closed", refunded_restocked_closed, 1.0), ("unlinked refund", unlinked_refund, 0.0),
            ("wrong amount", wrong_amount, 0.0), ("hold left open", hold_left, 0.0),
            ("hold voided", hold_voided, 1.0), ("not restocked", not_restocked, 0.0),
            ("cancelled, books open", cancelled_open, 0.0)]


@pytest.mark.parametrize(("label", "make", "want"), _settled_cases(), ids=[c[0] for c in _settled_cases()])
def test_order_settled(label: str, make: Callable[[], tuple[dict, dict]], want: float) -> None:
    state, params = make()
    assert credit("lc_order_settled", params, [], state)[0] == want


# -- lc_fields, lc_left_alone ------------------------------------------------------------------

def test_fields_all_checks_and_one_of() -> None:
    w, o, rid, _ = delivered_with_return()
    ok = {"checks": [{"table": "returns", "key": rid, "path": "status", "one_of": ["authorized", "refunded"]},
                     {"table": "orders", "key": o.order_id, "path": "refunded", "value": 0}]}
    assert credit("lc_fields", ok, [], w.state)[0] == 1.0
    bad = {"checks": [*ok["checks"], {"table": "returns", "key": rid, "path": "status", "value": "denied"}]}
    assert credit("lc_fields", bad, [], w.state)[0] == 0.0
    gated = {**ok, "actor": M, "engaged_by": ["authorize_return"]}
    assert credit("lc_fields", gated, [], w.state)[0] == 0.0
    assert credit("lc_fields", gated, [rec(1, {"kind": "authorize_return", "return_id": rid})], w.state)[0] == 1.0


def test_left_alone_counts_refused_attempts_and_lines() -> None:
    w, o, rid, lid = delivered_with_return()
    params = {"actor": B, "kinds": ["request_return"], "values": ["ord-9999"], "listing_ids": [lid],
              "engaged_by": ["request_return"]}
    other = rec(1, {"kind": "request_return", "order_id": "ord-0002", "lines": [{"listing_id": "L-9", "quantity": 1}]},
                actor=B)
    assert credit("lc_left_alone", params, [], w.state)[0] == 0.0  # never engaged
    assert credit("lc_left_alone", params, [other], w.state)[0] == 1.0
    tried = rec(2, {"kind": "request_return", "order_id": "ord-9999", "lines": []}, actor=B, accepted=False)
    assert credit("lc_left_alone", params, [other, tried], w.state)[0] == 0.0
    line = rec(2, {"kind": "request_return", "order_id": o.order_id, "lines": [{"listing_id": lid, "quantity": 1}]},
               actor=B)
    assert credit("lc_left_alone", params, [other, line], w.state)[0] == 0.0
    changed = {**params, "checks": [{"table": "returns", "key": rid, "path": "status", "value": "denied"}]}
    assert credit("lc_left_alone", changed, [other], w.state)[0] == 0.0


# -- lc_returned_units -------------------------------------------------------------------------

def test_returned_units_exact_and_refunded() -> None:
    w, o, rid, lid = delivered_with_return()
    params = {"order_id": o.order_id, "want": {lid: 1}, "refunded": 5_000}
    assert credit("lc_returned_units", params, [], w.state)[0] == 0.0  # approved, not refunded yet
    w.refund(o.payment_id, 5_000, rid)
    assert credit("lc_returned_units", params, [], w.state)[0] == 1.0
    assert credit("lc_returned_units", {**params, "want": {lid: 2}}, [], w.state)[0] == 0.0
    w2, o2, rid2, lid2 = delivered_with_return(approve=False)
    w2.decide_return(rid2, False)  # a denied return returns nothing
    assert credit("lc_returned_units", {"order_id": o2.order_id, "want": {lid2: 1}}, [], w2.state)[0] == 0.0


# -- lc_dispute_evidence -----------------------------------------------------------------------

def test_dispute_evidence_required_allowed_refund_and_reason() -> None:
    w = WorldBuilder()
    o = w.order([(w.listing("Kettle", 6_500), 1)], stage="delivered")
    other = w.order([(w.listing("Beans", 4_200), 1)], buyer="buyer_1", stage="delivered")
    did = w.dispute(o, "damaged", [o.shipment_id])
    base = {"dispute_id": did, "side": "merchant", "required": [o.shipment_id],
            "allowed": [o.order_id, o.shipment_id, o.payment_id]}
    assert credit("lc_dispute_evidence", base, [], w.state)[0] == 0.0  # no merchant evidence yet
    w.apply({"type": "dispute_responded", "dispute_id": did, "evidence": [o.shipment_id, o.order_id]})
    assert credit("lc_dispute_evidence", base, [], w.state)[0] == 1.0
    assert credit("lc_dispute_evidence", {**base, "refund_cited": True}, [], w.state)[0] == 0.0
    rfd = w.refund(o.payment_id, 6_500)
    w.state["disputes"][did]["evidence"]["merchant"].append(rfd)
    assert credit("lc_dispute_evidence", {**base, "refund_cited": True}, [], w.state)[0] == 1.0
    w.state["disputes"][did]["evidence"]["merchant"].append(other.shipment_id)
    assert credit("lc_dispute_evidence", base, [], w.state)[0] == 0.0  # another customer's record
    buyer = {"order_id": o.order_id, "side": "buyer", "required": [o.shipment_id], "allowed": [o.shipment_id]}
    assert credit("lc_dispute_evidence", {**buyer, "reason": "damaged"}, [], w.state)[0] == 1.0
    assert credit("lc_dispute_evidence", {**buyer, "reason": "not_received"}, [], w.state)[0] == 0.0
    w.dispute(o, "damaged", [o.shipment_id])  # two disputes on one order
    assert credit("lc_dispute_evidence", buyer, [], w.state)[0] == 0.0


# -- lc_new_order, lc_exchange -------------------------------------------------------------------

def test_new_order_one_paid_accepted_line() -> None:
    w = WorldBuilder()
    good, dear = w.listing("Shoes 10 navy", 13_000), w.listing("Shoes 10 navy premium", 15_000)
    known = sorted(w.state["orders"])
    params = {"buyer": B, "listing_ids": [good], "quantity": 1, "known": known}
    assert credit("lc_new_order", params, [], w.state)[0] == 0.0
    o = w.order([(good, 1)], stage="placed")
    assert credit("lc_new_order", params, [], w.state)[0] == 0.0  # not paid
    w.authorize(o, o.total)
    assert credit("lc_new_order", params, [], w.state)[0] == 1.0
    w.order([(dear, 1)], stage="authorized")
    assert credit("lc_new_order", params, [], w.state)[0] == 0.0  # two new orders


def test_exchange_listing_and_price_difference() -> None:
    w = WorldBuilder()
    lid = w.listing("Shoes 9 navy", 13_500)
    cheaper, wrong = w.listing("Shoes 10 navy", 12_500), w.listing("Shoes 10 olive", 12_000)
    o = w.order([(lid, 1)], stage="delivered")
    rid = w.request_return(o, [(lid, 1)], "Too small.")
    w.decide_return(rid, True)
    params = {"return_id": rid, "listing_ids": [cheaper]}
    diff = {**params, "unit_price": 13_500, "quantity": 1, "order_id": o.order_id}
    assert credit("lc_exchange", params, [], w.state)[0] == 0.0
    w.apply({"type": "exchange_offered", "return_id": rid, "listing_id": cheaper, "exchange_id": "exc-0001"})
    assert credit("lc_exchange", params, [], w.state)[0] == 1.0
    assert credit("lc_exchange", diff, [], w.state)[0] == 0.0  # difference not refunded
    w.refund(o.payment_id, 1_000)
    assert credit("lc_exchange", diff, [], w.state)[0] == 1.0
    w2 = WorldBuilder()
    w2.state = {**w.state, "exchanges": {"exc-0001": {"return": rid, "listing": wrong}}}
    assert credit("lc_exchange", params, [], w2.state)[0] == 0.0


def test_every_lifecycle_kind_has_cases_here() -> None:
    import acworld_env.scoring.kinds_lifecycle as module

    mine = {name for name, fn in KINDS.items() if fn.__module__ == module.__name__}
    assert mine == {"lc_fields", "lc_order_settled", "lc_left_alone", "lc_returned_units", "lc_dispute_evidence",
                    "lc_new_order", "lc_exchange"}
