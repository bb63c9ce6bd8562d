"""Remedy slots and the facts of Known they read: stated order lines, stock kept current, fair prices, credits."""

from __future__ import annotations

from acworld_env.envs import candidates_remedies as remedies
from acworld_env.envs.candidates import LABELS
from acworld_env.envs.known import Known

REQUEST = ("These paid orders need stock committed, oldest order first: ord-0001: 1 x L-002, will wait for a "
           "backorder; ord-0002: 3 x L-002, wants any shortfall cancelled. Everyone should have paid $69 a unit, "
           "and the maker's warranty is 1 year.")


def _merchant(**raw) -> Known:
    k = Known()
    k.update({"actor": "merchant_0", "role": "merchant", "request": REQUEST, "mandate": {"listing_id": "L-002"},
              **raw})
    return k


def _inventory(stock: int, vid: str = "val-1") -> dict:
    return {"kind": "get_inventory", "accepted": True, "validation_id": vid,
            "result": {"inventory": {"L-002": {"stock": stock, "reserved": 0, "price": 16000}}}}


def _delivery(units: int) -> dict:
    return {"from": "market", "event_id": "evt-001", "kind": "event", "text": "A delivery arrived.",
            "market_event": {"type": "restock", "listing_id": "L-002", "quantity": units}}


def test_known_reads_the_requests_order_lines_fair_price_and_facts():
    k = _merchant()
    assert k.stated_lines == {"ord-0001": [{"listing_id": "L-002", "quantity": 1}],
                              "ord-0002": [{"listing_id": "L-002", "quantity": 3}]}
    assert k.fair_unit == 6900 and k.facts == {"warranty": "1 year"}


def test_a_delivery_adds_to_the_stock_read_before_it_once_however_often_the_observation_is_absorbed():
    raw = {"last_result": _inventory(2), "inbox": [_delivery(1)]}
    k = _merchant(**raw)
    k.update({"actor": "merchant_0", "role": "merchant", "request": REQUEST, "mandate": {}, **raw})
    assert k["listings"]["L-002"]["stock"] == 3


def test_own_allocations_take_their_units_off_and_the_fill_uses_what_is_left():
    k = _merchant(last_result=_inventory(2))
    k.note_action({"kind": "allocate_inventory", "order_id": "ord-0001"})
    k.update({"last_result": {"kind": "allocate_inventory", "accepted": True, "validation_id": "val-2",
                              "result": None}})
    assert k["listings"]["L-002"]["stock"] == 1
    k["orders"].setdefault("ord-0001", {})
    k["orders"].setdefault("ord-0002", {})
    assert remedies.fill("cancel")(k, 0) is None  # the first order fits whole: allocate it, do not split
    assert remedies.fill("cancel")(k, 1) == {"kind": "partial_fill", "order_id": "ord-0002", "remainder": "cancel",
                                             "lines": [{"listing_id": "L-002", "quantity": 1}]}
    k.note_action(remedies.fill("cancel")(k, 1))
    k.update({"last_result": {"kind": "partial_fill", "accepted": True, "validation_id": "val-3", "result": None}})
    assert remedies.fill("cancel")(k, 1) is None and k["listings"]["L-002"]["stock"] == 0
    assert remedies.refund_unsent(k, 1) is None  # the order's payment is not known yet
    k["orders"]["ord-0002"]["payment"] = "pay-0002"
    assert remedies.refund_unsent(k, 1) == {"kind": "issue_refund", "payment_id": "pay-0002", "amount": 2 * 16000}


def test_an_overcharge_above_the_fair_price_is_refunded_and_a_fair_order_is_not():
    k = _merchant()  # the request names ord-0001 and ord-0002: these are the third and fourth orders seen
    k["orders"]["ord-0003"] = {"payment": "pay-0003", "lines": [{"listing_id": "L-002", "quantity": 2,
                                                                   "unit_price": 7900}]}
    k["orders"]["ord-0004"] = {"payment": "pay-0004", "lines": [{"listing_id": "L-002", "quantity": 1,
                                                                   "unit_price": 6900}]}
    assert remedies.refund_overcharge(k, 2) == {"kind": "issue_refund", "payment_id": "pay-0003", "amount": 2000}
    assert remedies.refund_overcharge(k, 3) is None


def test_a_return_refund_less_fee_and_credit_and_an_exchange_difference():
    k = _merchant()
    k.fee_pct = 15
    k["orders"]["ord-0001"] = {"payment": "pay-0001"}
    k["payments"]["pay-0001"] = {"refunded": 1900}
    k["returns"]["ret-0001"] = {"order": "ord-0001", "amount": 9800}
    assert remedies.refund_credit(True)(k, 0) == {"kind": "issue_refund", "payment_id": "pay-0001",
                                                  "amount": 6430, "return_id": "ret-0001"}
    assert remedies.refund_credit(False)(k, 0)["amount"] == 7900
    assert remedies.refund_exchange_difference(k, 0) is None  # nothing exchanged yet
    k.exchanged["ret-0001"] = "L-002"
    k["listings"]["L-002"] = {"price": 9300}
    assert remedies.refund_exchange_difference(k, 0) == {"kind": "issue_refund", "payment_id": "pay-0001",
                                                         "amount": 500}


def test_a_claim_the_requests_facts_contradict_is_retracted_and_a_true_one_is_not():
    k = _merchant()
    k["listings"]["L-002"] = {"claims": {"returns": "30 days", "warranty": "1 year"}}
    assert remedies.retract_contradicted(k, 0) is None
    k["listings"]["L-002"]["claims"]["warranty"] = "2 years"
    assert remedies.retract_contradicted(k, 0) == {"kind": "retract_claim", "listing_id": "L-002",
                                                   "claim": "warranty"}


def test_the_remedy_slots_are_in_the_menu():
    for label in ("order[0].fill:cancel", "order[7].fill:backorder", "order[0].refund:unsent",
                  "order[15].refund:overcharge", "order[15].get", "return[3].refund-fee:credit",
                  "return[0].refund:exchange-difference", "claims:retract-contradicted"):
        assert LABELS.count(label) == 1, label
