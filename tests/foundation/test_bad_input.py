"""Bad input never crashes and never commits: it is a recorded rejection with a clear code."""

from __future__ import annotations

import json

import pytest
from foundation_kit import delivered_order, list_order, make_market, ok, open_thread, pay, rejected

from acworld_env.artifacts import save_run, verify_run
from acworld_env.vcp import ParseError, SendMessage, parse_action

OFFER = {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800}


def _deep(depth: int) -> dict:
    root: dict = {}
    cur = root
    for _ in range(depth):
        cur["x"] = {}
        cur = cur["x"]
    return root


BAD = [
    # unknown tool
    ("unknown kind", "b1", {"kind": "teleport"}, "unknown_tool"),
    ("no kind", "b1", {"to": "m1"}, "unknown_tool"),
    ("kind of wrong type", "b1", {"kind": ["propose_offer"]}, "unknown_tool"),
    ("kind as object", "b1", {"kind": {"a": 1}}, "unknown_tool"),
    # not an object / not JSON
    ("not json", "b1", "propose an offer please", "malformed_json"),
    ("truncated json", "b1", '{"kind": "propose_offer", "to": ', "malformed_json"),
    ("invalid utf-8", "b1", b"\xff\xfe\x00", "malformed_json"),
    ("json list", "b1", "[1, 2]", "malformed_action"),
    ("int", "b1", 42, "malformed_action"),
    ("none", "b1", None, "malformed_action"),
    ("deep json", "b1", "[" * 5_000 + "]" * 5_000, "malformed_json"),
    ("deep dict", "b1", {"kind": "submit_answer", "answer": _deep(3_000)}, "malformed_action"),
    ("non-string keys", "b1", {1: "a", "kind": "get_balance"}, "malformed_action"),
    ("lone surrogate", "b1", {"kind": "send_message", "to": "m1", "text": "hi \ud800"}, "invalid_text"),
    # wrong types
    ("price as text", "b1", {**OFFER, "unit_price": "eight hundred"}, "bad_money"),
    ("price as bool", "b1", {**OFFER, "unit_price": True}, "bad_money"),
    ("price as float", "b1", {**OFFER, "unit_price": 799.5}, "bad_money"),
    ("price as list", "b1", {**OFFER, "unit_price": [800]}, "bad_money"),
    ("quantity as bool", "b1", {**OFFER, "quantity": True}, "invalid_field"),
    ("quantity as word", "b1", {**OFFER, "quantity": "two"}, "invalid_field"),
    ("id as int", "b1", {**OFFER, "to": 5}, "invalid_field"),
    ("lines as object", "b1", {"kind": "place_order", "merchant_id": "m1", "lines": {"L1": 1}}, "invalid_field"),
    ("bad enum", "b1", {"kind": "flag_review", "review_id": "rev-1", "reason": "boring"}, "invalid_field"),
    ("rating out of range", "b1", {"kind": "post_review", "order_id": "o", "listing_id": "L1", "rating": 6},
     "invalid_field"),
    ("empty id", "b1", {**OFFER, "listing_id": ""}, "invalid_field"),
    # missing and unknown fields
    ("missing price", "b1", {"kind": "propose_offer", "to": "m1", "listing_id": "L1"}, "missing_field"),
    ("missing amount", "b1", {"kind": "authorize_payment", "order_id": "ord-0001"}, "missing_field"),
    ("missing everything", "m1", {"kind": "issue_quote"}, "missing_field"),
    ("extra field", "b1", {**OFFER, "discount": 5}, "unknown_field"),
    ("ambiguous order", "b1", {"kind": "place_order"}, "ambiguous_order"),
    ("list order without merchant", "b1", {"kind": "place_order", "lines": [{"listing_id": "L1"}]},
     "missing_field"),
    # oversized
    ("long text", "b1", {"kind": "send_message", "to": "m1", "text": "x" * 2_001}, "oversized"),
    ("long id", "b1", {**OFFER, "listing_id": "L" * 65}, "oversized"),
    ("long key", "b1", {**OFFER, "idempotency_key": "k" * 65}, "oversized"),
    ("too many lines", "b1", {"kind": "place_order", "merchant_id": "m1",
                              "lines": [{"listing_id": "L1"}] * 51}, "oversized"),
    ("huge action", "b1", {"kind": "submit_answer", "answer": {f"k{i}": "v" * 1_000 for i in range(20)}},
     "oversized"),
    ("huge json string", "b1", json.dumps({"kind": "send_message", "to": "m1", "text": "y" * 20_000}), "oversized"),
    # NaN, infinite, negative, zero and absurd money
    ("nan", "b1", {**OFFER, "unit_price": float("nan")}, "bad_number"),
    ("inf", "b1", {**OFFER, "unit_price": float("inf")}, "bad_number"),
    ("NaN in json", "b1", '{"kind": "authorize_payment", "order_id": "ord-0001", "amount": NaN}', "bad_number"),
    ("-Infinity in json", "b1", '{"kind": "authorize_payment", "order_id": "o", "amount": -Infinity}',
     "bad_number"),
    ("nested nan", "b1", {"kind": "search_listings", "attributes": {"w": {"min": float("nan")}}}, "bad_number"),
    ("negative price", "b1", {**OFFER, "unit_price": -800}, "bad_money"),
    ("zero price", "b1", {**OFFER, "unit_price": 0}, "bad_money"),
    ("negative payment", "b1", {"kind": "authorize_payment", "order_id": "ord-0001", "amount": -1}, "bad_money"),
    ("negative refund", "m1", {"kind": "issue_refund", "payment_id": "pay-0001", "amount": -100}, "bad_money"),
    ("absurd price", "b1", {**OFFER, "unit_price": 10**30}, "bad_money"),
    ("negative fee", "m1", {"kind": "issue_quote", "request_id": "q", "total": 1,
                            "lines": [{"listing_id": "L1", "quantity": 1, "unit_price": 1}],
                            "fees": [{"name": "x", "amount": -1}]}, "invalid_field"),
    ("negative stock", "m1", {"kind": "update_listing", "listing_id": "L1", "quantity": -5}, "invalid_field"),
    # unknown ids
    ("unknown order", "b1", {"kind": "authorize_payment", "order_id": "ord-4242", "amount": 100}, "unknown_id"),
    ("unknown listing", "b1", {**OFFER, "listing_id": "L-404"}, "unknown_listing"),
    ("unknown counterparty", "b1", {**OFFER, "to": "m404"}, "unknown_actor"),
    # wrong actor
    ("claims another actor", "b1", {**OFFER, "actor": "b2"}, "identity_mismatch"),
    ("claims a merchant", "b1", {**OFFER, "actor": "m1"}, "identity_mismatch"),
    ("unregistered actor", "intruder", OFFER, "unknown_actor"),
    ("wrong role", "m2", {"kind": "authorize_payment", "order_id": "ord-0001", "amount": 100}, "role_forbidden"),
    ("trade with yourself", "m1", {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 1},
     "wrong_counterparty"),
    ("someone else's listing", "b1", {**OFFER, "to": "m2"}, "wrong_counterparty"),
]


@pytest.mark.parametrize(("actor", "raw", "code"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_a_recorded_rejection(actor, raw, code, tmp_path):
    m = make_market()
    list_order(m, "b1", "m1", "L1")  # an order exists, so ord-0001 is a real id
    rejected(m, actor, raw, code)
    rec = m.trace.records[-1]
    json.dumps(rec.to_dict(), allow_nan=False)  # the lineage record is plain JSON whatever came in
    save_run(m, tmp_path / "run")
    v = verify_run(tmp_path / "run")
    assert v.ok, v.message


def test_parse_action_never_raises_on_odd_objects():
    for raw in (object(), {1, 2}, 3.5, b"", "", "{}", {"kind": None}, {"kind": 7}, [None], {"kind": "finish", 2: 1}):
        assert isinstance(parse_action(raw), ParseError), raw
    assert parse_action('{"kind": "finish"}').kind == "finish"


def test_a_model_instance_with_invalid_text_is_refused():
    bad = SendMessage.model_construct(to="m1", text="\udcff", kind="send_message")
    m = make_market()
    rejected(m, "b1", bad, "invalid_text")


def test_many_bad_inputs_in_a_row_leave_a_verifiable_run(tmp_path):
    m = make_market()
    ids = delivered_order(m)
    before = [c["hash"] for c in m.world.commits]
    for _name, actor, raw, _code in BAD:
        r = m.submit(actor, raw)
        assert not r.accepted
    assert [c["hash"] for c in m.world.commits] == before
    save_run(m, tmp_path / "run")
    v = verify_run(tmp_path / "run")
    assert v.ok, v.message
    assert v.commits == len(before) and ids["order_id"] in m.world.state["orders"]


# -- replays of old messages ------------------------------------------------------------------


def test_replaying_old_actions_is_rejected():
    """Without an idempotency key a replayed message is judged again, against the new state."""
    m = make_market()
    tid = open_thread(m)
    accept = {"kind": "accept_offer", "thread_id": tid}
    ok(m, "m1", accept)
    order = {"kind": "place_order", "thread_id": tid}
    oid = ok(m, "b1", order).result["order_id"]
    authorize = {"kind": "authorize_payment", "order_id": oid, "amount": 800}
    pid = ok(m, "b1", authorize).result["payment_id"]
    capture = {"kind": "capture_payment", "payment_id": pid, "amount": 800}
    ok(m, "m1", capture)
    allocate = {"kind": "allocate_inventory", "order_id": oid}
    ok(m, "m1", allocate)
    shipit = {"kind": "ship_order", "order_id": oid}
    sid = ok(m, "m1", shipit).result["shipment_id"]
    confirm = {"kind": "confirm_delivery", "shipment_id": sid}
    ok(m, "b1", confirm)

    rejected(m, "m1", accept, "offer_closed")
    rejected(m, "b1", order, "no_agreement")
    rejected(m, "m1", capture, "already_captured")
    rejected(m, "m1", allocate, "already_allocated")
    rejected(m, "m1", shipit, "not_shippable")
    rejected(m, "b1", confirm, "already_delivered")
    assert len(m.world.commits) == 8
    # A payment is the exception, as at a card network: without a key a repeat is a new charge,
    # and not paying twice is the buyer's job (issue 14, T10).
    second = ok(m, "b1", authorize).result["payment_id"]
    assert second != pid and m.world.state["orders"][oid]["additional_payments"] == [second]


def test_replaying_an_old_message_as_someone_else_is_rejected():
    m = make_market()
    oid, total = list_order(m, "b1", "m1", "L1")
    pay(m, "b1", "m1", oid, total)
    rejected(m, "b2", {"kind": "authorize_payment", "order_id": oid, "amount": total}, "not_party")
    rejected(m, "m2", {"kind": "ship_order", "order_id": oid}, "not_party")
