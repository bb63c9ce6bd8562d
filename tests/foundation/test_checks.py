"""One test (or a few) per platform check: each rejection has its stable code and commits nothing."""

from __future__ import annotations

import pytest
from foundation_kit import (
    delivered_order,
    list_order,
    make_market,
    ok,
    open_thread,
    pay,
    rejected,
    ship,
)

# -- identity and role ---------------------------------------------------------


def test_claiming_another_actor_is_identity_mismatch():
    m = make_market()
    offer = {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800}
    rejected(m, "b1", {**offer, "actor": "b2"}, "identity_mismatch")
    rejected(m, "b1", {**offer, "actor": "m1"}, "identity_mismatch")
    rejected(m, "b1", {"kind": "get_balance", "actor": "b2"}, "identity_mismatch")
    r = ok(m, "b1", {**offer, "actor": "b1"})  # claiming yourself is fine
    assert r.commit_seq == 1


def test_unregistered_actor_is_rejected_not_raised():
    m = make_market()
    r = rejected(m, "ghost", {"kind": "get_balance"}, "unknown_actor")
    assert r.envelope.role is None
    assert m.trace.records[-1]["role"] is None


@pytest.mark.parametrize(("actor", "raw"), [
    ("b1", {"kind": "capture_payment", "payment_id": "pay-0001", "amount": 100}),
    ("b1", {"kind": "publish_listing", "title": "x", "category": "c", "price": 100, "quantity": 1}),
    ("b1", {"kind": "get_inventory"}),
    ("m1", {"kind": "place_order", "merchant_id": "m2", "lines": [{"listing_id": "L3"}]}),
    ("m1", {"kind": "authorize_payment", "order_id": "ord-0001", "amount": 100}),
    ("m1", {"kind": "post_review", "order_id": "ord-0001", "listing_id": "L1", "rating": 5}),
])
def test_role_forbidden(actor, raw):
    rejected(make_market(), actor, raw, "role_forbidden")


# -- unknown ids and parties -----------------------------------------------------


@pytest.mark.parametrize(("actor", "raw", "code"), [
    ("b1", {"kind": "authorize_payment", "order_id": "ord-9999", "amount": 100}, "unknown_id"),
    ("m1", {"kind": "capture_payment", "payment_id": "pay-9999", "amount": 100}, "unknown_id"),
    ("b1", {"kind": "counter_offer", "thread_id": "thr-9999", "unit_price": 100}, "unknown_id"),
    ("m1", {"kind": "ship_order", "order_id": "ord-9999"}, "unknown_id"),
    ("b1", {"kind": "confirm_delivery", "shipment_id": "shp-9999"}, "unknown_id"),
    ("m1", {"kind": "authorize_return", "return_id": "ret-9999", "approve": True}, "unknown_id"),
    ("b1", {"kind": "flag_review", "review_id": "rev-9999", "reason": "fake"}, "unknown_id"),
    ("b1", {"kind": "propose_offer", "to": "m1", "listing_id": "L-nope", "unit_price": 100}, "unknown_listing"),
    ("b1", {"kind": "get_listing", "listing_id": "L-nope"}, "unknown_listing"),
    ("b1", {"kind": "propose_offer", "to": "m9", "listing_id": "L1", "unit_price": 100}, "unknown_actor"),
    ("b1", {"kind": "send_message", "to": "nobody", "text": "hi"}, "unknown_actor"),
    ("b1", {"kind": "send_message", "to": "m1", "text": "hi", "in_reply_to": "msg-9999"}, "unknown_message"),
])
def test_unknown_ids(actor, raw, code):
    rejected(make_market(), actor, raw, code)


def test_not_party_to_someone_elses_records():
    m = make_market()
    tid = open_thread(m)
    oid, total = list_order(m, "b1", "m1", "L1")
    rejected(m, "b2", {"kind": "counter_offer", "thread_id": tid, "unit_price": 900}, "not_party")
    rejected(m, "m2", {"kind": "accept_offer", "thread_id": tid}, "not_party")
    rejected(m, "b2", {"kind": "authorize_payment", "order_id": oid, "amount": total}, "not_party")
    rejected(m, "b2", {"kind": "get_order", "order_id": oid}, "not_party")
    pid = ok(m, "b1", {"kind": "authorize_payment", "order_id": oid, "amount": total}).result["payment_id"]
    rejected(m, "m2", {"kind": "capture_payment", "payment_id": pid, "amount": total}, "not_party")
    rejected(m, "m2", {"kind": "allocate_inventory", "order_id": oid}, "not_party")


def test_reply_link_must_point_to_a_message_addressed_to_you():
    m = make_market()
    ok(m, "b1", {"kind": "ask_question", "to": "m1", "listing_id": "L1", "text": "Is it steel?"})
    qid = m.inbox("m1")[0]["message_id"]
    rejected(m, "b2", {"kind": "answer_question", "in_reply_to": qid, "text": "yes"}, "not_addressed")
    rejected(m, "b2", {"kind": "send_message", "to": "m1", "text": "re", "in_reply_to": qid}, "not_addressed")
    ok(m, "m1", {"kind": "answer_question", "in_reply_to": qid, "text": "Yes, steel."})
    assert m.inbox("b1")[-1]["text"] == "Yes, steel."


# -- protocol: offers --------------------------------------------------------------


def test_offer_closed_after_reject_withdraw_or_accept():
    m = make_market()
    tid = open_thread(m)
    ok(m, "m1", {"kind": "reject_offer", "thread_id": tid})
    rejected(m, "b1", {"kind": "counter_offer", "thread_id": tid, "unit_price": 850}, "offer_closed")
    rejected(m, "m1", {"kind": "accept_offer", "thread_id": tid}, "offer_closed")

    tid2 = open_thread(m)
    ok(m, "b1", {"kind": "withdraw_offer", "thread_id": tid2})
    rejected(m, "m1", {"kind": "accept_offer", "thread_id": tid2}, "offer_closed")

    tid3 = open_thread(m)
    ok(m, "m1", {"kind": "accept_offer", "thread_id": tid3})
    rejected(m, "m1", {"kind": "accept_offer", "thread_id": tid3}, "offer_closed")
    rejected(m, "b1", {"kind": "counter_offer", "thread_id": tid3, "unit_price": 700}, "offer_closed")


def test_not_your_turn_and_not_your_offer():
    m = make_market()
    tid = open_thread(m)
    rejected(m, "b1", {"kind": "counter_offer", "thread_id": tid, "unit_price": 850}, "not_your_turn")
    rejected(m, "b1", {"kind": "accept_offer", "thread_id": tid}, "not_your_turn")
    rejected(m, "m1", {"kind": "withdraw_offer", "thread_id": tid}, "not_your_offer")
    ok(m, "m1", {"kind": "counter_offer", "thread_id": tid, "unit_price": 950})
    rejected(m, "m1", {"kind": "counter_offer", "thread_id": tid, "unit_price": 940}, "not_your_turn")


def test_round_limit_on_offers():
    m = make_market(max_offers=3)
    tid = open_thread(m, price=800)
    ok(m, "m1", {"kind": "counter_offer", "thread_id": tid, "unit_price": 990})
    ok(m, "b1", {"kind": "counter_offer", "thread_id": tid, "unit_price": 850})
    rejected(m, "m1", {"kind": "counter_offer", "thread_id": tid, "unit_price": 950}, "round_limit")
    ok(m, "m1", {"kind": "accept_offer", "thread_id": tid})  # accepting is still allowed
    assert m.world.state["threads"][tid]["agreed_price"] == 850


def test_counter_must_change_the_price():
    m = make_market()
    tid = open_thread(m, price=800)
    rejected(m, "m1", {"kind": "counter_offer", "thread_id": tid, "unit_price": 800}, "same_price")


# -- market rules -----------------------------------------------------------------


def test_listing_inactive():
    m = make_market()
    rejected(m, "b1", {"kind": "propose_offer", "to": "m2", "listing_id": "L5", "unit_price": 800},
             "listing_inactive")
    rejected(m, "b1", {"kind": "place_order", "merchant_id": "m2", "lines": [{"listing_id": "L5"}]},
             "listing_inactive")
    tid = open_thread(m, listing="L1")
    ok(m, "m1", {"kind": "accept_offer", "thread_id": tid})
    ok(m, "m1", {"kind": "update_listing", "listing_id": "L1", "status": "paused"})
    rejected(m, "b1", {"kind": "place_order", "thread_id": tid}, "listing_inactive")


def test_out_of_stock_on_order_and_on_allocation():
    m = make_market()
    rejected(m, "b1", {"kind": "place_order", "merchant_id": "m1",
                       "lines": [{"listing_id": "L2", "quantity": 3}]}, "out_of_stock")
    # the same listing on two lines counts once per unit, not once per line
    rejected(m, "b1", {"kind": "place_order", "merchant_id": "m1",
                       "lines": [{"listing_id": "L2", "quantity": 2}, {"listing_id": "L2", "quantity": 1}]},
             "out_of_stock")
    oid, total = list_order(m, "b1", "m1", "L2", qty=2)
    pay(m, "b1", "m1", oid, total)
    ok(m, "m1", {"kind": "update_listing", "listing_id": "L2", "quantity": 1})
    rejected(m, "m1", {"kind": "allocate_inventory", "order_id": oid}, "out_of_stock")


def test_allocation_sums_duplicate_lines_instead_of_crashing():
    m = make_market()
    r = ok(m, "b1", {"kind": "place_order", "merchant_id": "m1",
                     "lines": [{"listing_id": "L1", "quantity": 2}, {"listing_id": "L1", "quantity": 2}]})
    oid, total = r.result["order_id"], r.result["total"]
    assert total == 4_000
    pay(m, "b1", "m1", oid, total)
    ok(m, "m1", {"kind": "update_listing", "listing_id": "L1", "quantity": 3})
    rejected(m, "m1", {"kind": "allocate_inventory", "order_id": oid}, "out_of_stock")
    ok(m, "m1", {"kind": "restock", "listing_id": "L1", "quantity": 1})
    ok(m, "m1", {"kind": "allocate_inventory", "order_id": oid})
    assert m.world.state["listings"]["L1"]["stock"] == 0
    assert m.world.state["listings"]["L1"]["reserved"] == 4


def test_events_the_world_refuses_become_a_rejection(monkeypatch):
    """Safety net: if a rule ever lets through events the World refuses, the proposal is rejected."""
    from acworld_env.cip import RULES, Outcome

    def broken_rule(ctx, a):
        return Outcome(True, events=[{"type": "restocked", "listing_id": a.listing_id, "quantity": -100}])

    monkeypatch.setitem(RULES, "restock", broken_rule)
    m = make_market()
    r = rejected(m, "m1", {"kind": "restock", "listing_id": "L1", "quantity": 1}, "transition_refused")
    assert "negative" in r.message


def test_quote_arithmetic_must_be_exact():
    m = make_market()
    rq = ok(m, "b1", {"kind": "request_quote", "merchant_id": "m1",
                      "lines": [{"listing_id": "L1", "quantity": 2}, {"listing_id": "L2", "quantity": 1}]})
    rid = rq.result["request_id"]
    lines = [{"listing_id": "L1", "quantity": 2, "unit_price": 1_000},
             {"listing_id": "L2", "quantity": 1, "unit_price": 2_500}]
    fees = [{"name": "shipping", "amount": 499}]
    for wrong in (4_998, 4_500, 5_000, 0):
        rejected(m, "m1", {"kind": "issue_quote", "request_id": rid, "lines": lines, "fees": fees,
                           "total": wrong}, "quote_arithmetic")
    rejected(m, "m1", {"kind": "issue_quote", "request_id": rid, "lines": lines[:1], "total": 2_000},
             "quote_mismatch")
    qid = ok(m, "m1", {"kind": "issue_quote", "request_id": rid, "lines": lines, "fees": fees,
                       "total": 4_999}).result["quote_id"]
    ok(m, "b1", {"kind": "accept_quote", "quote_id": qid})
    r = ok(m, "b1", {"kind": "place_order", "quote_id": qid})
    assert r.result["total"] == 4_999


def test_payment_must_equal_the_order_total():
    m = make_market()
    oid, total = list_order(m, "b1", "m1", "L1", qty=2)
    assert total == 2_000
    for wrong in (total - 1, total + 1, 1):
        rejected(m, "b1", {"kind": "authorize_payment", "order_id": oid, "amount": wrong}, "amount_mismatch")
    pid = ok(m, "b1", {"kind": "authorize_payment", "order_id": oid, "amount": total}).result["payment_id"]
    again = {"kind": "authorize_payment", "order_id": oid, "amount": total, "idempotency_key": "second"}
    assert ok(m, "b1", again).result["payment_id"] != pid  # a new key is a new charge (issue 14, T10)
    rejected(m, "m1", {"kind": "capture_payment", "payment_id": pid, "amount": total + 1}, "amount_mismatch")
    ok(m, "m1", {"kind": "capture_payment", "payment_id": pid, "amount": total})
    rejected(m, "m1", {"kind": "capture_payment", "payment_id": pid, "amount": 1}, "already_captured")


def test_insufficient_funds():
    m = make_market()
    m.world.state["actors"]["b2"]["balance"] = 500  # test set-up only: poorer buyer before any commit
    oid, total = list_order(m, "b2", "m1", "L1")
    rejected(m, "b2", {"kind": "authorize_payment", "order_id": oid, "amount": total}, "insufficient_funds")


def test_refund_never_exceeds_capture():
    m = make_market()
    ids = delivered_order(m, qty=2)
    pid, total = ids["payment_id"], ids["total"]
    rejected(m, "m1", {"kind": "issue_refund", "payment_id": pid, "amount": total + 1}, "refund_exceeds_capture")
    ok(m, "m1", {"kind": "issue_refund", "payment_id": pid, "amount": 1_200})
    rejected(m, "m1", {"kind": "issue_refund", "payment_id": pid, "amount": total - 1_199},
             "refund_exceeds_capture")
    ok(m, "m1", {"kind": "issue_refund", "payment_id": pid, "amount": total - 1_200})
    rejected(m, "m1", {"kind": "issue_refund", "payment_id": pid, "amount": 1}, "refund_exceeds_capture")
    assert m.world.state["payments"][pid]["refunded"] == total


def test_refund_on_an_authorised_but_uncaptured_payment_is_rejected():
    m = make_market()
    oid, total = list_order(m, "b1", "m1", "L1")
    pid = ok(m, "b1", {"kind": "authorize_payment", "order_id": oid, "amount": total}).result["payment_id"]
    rejected(m, "m1", {"kind": "issue_refund", "payment_id": pid, "amount": 1}, "refund_exceeds_capture")


def test_refund_cannot_settle_a_return_of_another_order():
    m = make_market()
    first = delivered_order(m, "b1", "m1", "L1")
    other = delivered_order(m, "b2", "m2", "L3")
    ret = ok(m, "b2", {"kind": "request_return", "order_id": other["order_id"],
                       "lines": [{"listing_id": "L3"}], "reason": "broken"}).result["return_id"]
    ok(m, "m2", {"kind": "authorize_return", "return_id": ret, "approve": True})
    rejected(m, "m1", {"kind": "issue_refund", "payment_id": first["payment_id"], "amount": 1, "return_id": ret},
             "return_mismatch")
    assert m.world.state["returns"][ret]["status"] == "authorized"
    ok(m, "m2", {"kind": "issue_refund", "payment_id": other["payment_id"], "amount": 4_000, "return_id": ret})
    assert m.world.state["returns"][ret]["status"] == "refunded"


@pytest.mark.parametrize(("waited", "accepted"), [(0, True), (3, True), (4, False), (10, False)])
def test_return_window(waited, accepted):
    m = make_market(return_window_rounds=3)
    ids = delivered_order(m)
    for _ in range(waited):
        m.advance()
    raw = {"kind": "request_return", "order_id": ids["order_id"], "lines": [{"listing_id": "L1"}],
           "reason": "changed my mind"}
    if accepted:
        ok(m, "b1", raw)
    else:
        rejected(m, "b1", raw, "return_window_closed")


def test_return_needs_delivery_and_delivered_units():
    m = make_market()
    oid, total = list_order(m, "b1", "m1", "L1")
    raw = {"kind": "request_return", "order_id": oid, "lines": [{"listing_id": "L1"}], "reason": "x"}
    rejected(m, "b1", raw, "not_delivered")
    pay(m, "b1", "m1", oid, total)
    sid = ship(m, "m1", oid)
    ok(m, "b1", {"kind": "confirm_delivery", "shipment_id": sid})
    rejected(m, "b1", {**raw, "lines": [{"listing_id": "L1", "quantity": 2}]}, "over_return")


@pytest.mark.parametrize(("waited", "accepted"), [(0, True), (2, True), (3, False)])
def test_stale_authorization(waited, accepted):
    m = make_market(auth_valid_rounds=2)
    oid, total = list_order(m, "b1", "m1", "L1")
    pid = ok(m, "b1", {"kind": "authorize_payment", "order_id": oid, "amount": total}).result["payment_id"]
    for _ in range(waited):
        m.advance()
    raw = {"kind": "capture_payment", "payment_id": pid, "amount": total}
    if accepted:
        ok(m, "m1", raw)
    else:
        rejected(m, "m1", raw, "stale_authorization")
        ok(m, "b1", {"kind": "void_authorization", "payment_id": pid})  # the buyer gets the hold back
        assert m.world.state["actors"]["b1"]["held"] == 0


def test_quote_expires():
    m = make_market()
    rid = ok(m, "b1", {"kind": "request_quote", "merchant_id": "m1",
                       "lines": [{"listing_id": "L1"}]}).result["request_id"]
    qid = ok(m, "m1", {"kind": "issue_quote", "request_id": rid, "total": 1_000, "valid_rounds": 1,
                       "lines": [{"listing_id": "L1", "quantity": 1, "unit_price": 1_000}]}).result["quote_id"]
    m.advance()
    m.advance()
    rejected(m, "b1", {"kind": "accept_quote", "quote_id": qid}, "quote_expired")


# -- idempotency --------------------------------------------------------------------


def test_same_key_same_payload_returns_the_original_without_a_new_commit():
    m = make_market()
    raw = {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800, "idempotency_key": "k-1"}
    first = ok(m, "b1", raw)
    assert first.commit_seq == 1
    for _ in range(3):
        again = m.submit("b1", dict(raw))
        assert again.accepted and again.replayed and again.code == "idempotent_replay"
        assert again.result == first.result and again.commit_seq is None
        assert m.trace.records[-1]["replayed"] is True
        assert m.trace.records[-1]["original_validation"] == first.validation_id
    assert len(m.world.commits) == 1
    assert len(m.world.state["threads"]) == 1


def test_same_key_different_payload_is_a_conflict_and_the_key_keeps_its_first_request():
    m = make_market()
    raw = {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800, "idempotency_key": "k-1"}
    first = ok(m, "b1", raw)
    rejected(m, "b1", {**raw, "unit_price": 801}, "idempotency_conflict")
    rejected(m, "b1", {**raw, "unit_price": 801}, "idempotency_conflict")
    again = m.submit("b1", raw)  # the original request is still the one that owns the key
    assert again.replayed and again.result == first.result
    assert len(m.world.commits) == 1


def test_keys_are_per_actor():
    m = make_market()
    ok(m, "b1", {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800,
                 "idempotency_key": "shared"})
    r = ok(m, "b2", {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 805,
                     "idempotency_key": "shared"})
    assert not r.replayed and r.commit_seq == 2


def test_a_keyed_retry_cannot_be_replayed_under_another_actors_name():
    m = make_market()
    raw = {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800, "idempotency_key": "k"}
    ok(m, "b1", raw)
    rejected(m, "b1", {**raw, "actor": "b2"}, "identity_mismatch")
    assert m.submit("b1", raw).replayed


def test_a_request_claiming_someone_else_does_not_bind_the_key():
    m = make_market()
    raw = {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800, "idempotency_key": "k"}
    rejected(m, "b1", {**raw, "actor": "b2"}, "identity_mismatch")
    r = ok(m, "b1", raw)  # the honest request is judged on its own, not answered with the impostor's result
    assert not r.replayed and r.commit_seq == 1


def test_a_keyed_rejection_saves_nothing_so_a_corrected_retry_is_judged_afresh():
    m = make_market()
    raw = {"kind": "authorize_payment", "order_id": "ord-0001", "amount": 1_000, "idempotency_key": "p"}
    rejected(m, "b1", raw, "unknown_id")
    order, total = list_order(m, "b1", "m1", "L1")  # now the order exists; the key was never bound
    fixed = {**raw, "order_id": order, "amount": total}
    again = m.submit("b1", fixed)
    assert again.accepted and not again.replayed and again.commit_seq is not None
    retry = m.submit("b1", fixed)
    assert retry.replayed and retry.commit_seq is None
    assert len(m.world.commits) == 2


def test_read_only_queries_ignore_keys_and_never_commit():
    m = make_market()
    a = ok(m, "b1", {"kind": "get_balance", "idempotency_key": "q"})
    b = ok(m, "b1", {"kind": "get_listing", "listing_id": "L1", "idempotency_key": "q"})
    assert not a.replayed and not b.replayed
    assert m.world.commits == []


# -- privacy (through the market) -----------------------------------------------------


@pytest.mark.parametrize("text", ["I can go to $95", "95.00 is my max", "ninety-five, final", "9500 cents"])
def test_privacy_leak_is_blocked_before_it_leaves(text):
    m = make_market()
    rejected(m, "b1", {"kind": "send_message", "to": "m1", "text": text}, "privacy_leak")
    rejected(m, "b1", {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800,
                       "note": text}, "privacy_leak")
    assert m.inbox("m1") == []


def test_privacy_guard_only_guards_the_senders_own_values():
    m = make_market()
    ok(m, "b1", {"kind": "send_message", "to": "m1", "text": "How about $94 or $96? Not ninety."})
    ok(m, "b2", {"kind": "send_message", "to": "m1", "text": "I'd pay $95"})  # b2 seals nothing
    rejected(m, "m1", {"kind": "send_message", "to": "b1", "text": "I can't go below $90"}, "privacy_leak")
    assert [x["text"] for x in m.inbox("m1")] == ["How about $94 or $96? Not ninety.", "I'd pay $95"]


def test_structured_prices_are_not_leaks():
    m = make_market()
    ok(m, "b1", {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 9_500})
