"""T10 on the platform: effects cite the notice they answer, and a new key is a new charge (issue 14 §5)."""

from __future__ import annotations

from typing import Any

import pytest

from acworld_env.episode import Episode
from acworld_env.eval.rollout import IDLE_ACTION, run_episode
from acworld_env.policies.make import make_policy
from acworld_env.scoring import score_episode
from acworld_env.tasks.families.timing import build
from acworld_env.tasks.spec import TaskSpec

TASKS = {t.task_id.removeprefix("capability-v1/T10/"): t for t in build()}


def episode_at(task: TaskSpec, round_: int) -> Episode:
    """An episode of ``task`` whose evaluated actor has idled until ``round_``."""
    ep = Episode(task, seed=0)
    while ep.market.round < round_:
        ep.act(task.actor, IDLE_ACTION)
    return ep


def submit_rejected(ep: Episode, who: str, action: dict[str, Any], code: str) -> None:
    """``who`` proposes ``action``: a recorded rejection with ``code`` that leaves the World as it was."""
    digest, records = ep.market.world.state_digest(), len(ep.market.trace.records)
    result = ep.market.submit(who, action)
    assert (result.accepted, result.code) == (False, code), result.message
    assert ep.market.world.state_digest() == digest
    assert len(ep.market.trace.records) == records + 1
    assert ep.market.trace.records[-1]["validation"]["code"] == code


def test_a_payment_citing_someone_elses_or_an_unrelated_notice_is_a_recorded_rejection() -> None:
    task = TASKS["buyer/cross_order_payment_isolation/01"]
    verdicts = task.oracle["verdicts"]
    foreign_evt = next(e for e, v in verdicts.items() if v == "foreign")
    delivery = next(s for s in task.schedule if s["id"] == foreign_evt)
    foreign_order = delivery["events"][0]["record"]["order_id"]
    total = task.initial_state["orders"][foreign_order]["total"]
    ep = episode_at(task, delivery["round"])
    # buyer_1 owns the foreign order, but the notice about it was sent to buyer_0
    pay_foreign = {"kind": "authorize_payment", "order_id": foreign_order, "amount": total, "event_id": foreign_evt}
    submit_rejected(ep, "buyer_1", pay_foreign, "notice_not_addressed")
    own = task.mandate["orders"][0]
    own_total = task.initial_state["orders"][own]["total"]
    cite = {"kind": "authorize_payment", "order_id": own, "amount": own_total}
    submit_rejected(ep, "buyer_0", {**cite, "event_id": foreign_evt}, "notice_mismatch")  # about another order
    submit_rejected(ep, "buyer_0", {**cite, "event_id": "evt-999"}, "unknown_notice")
    later = next(s["id"] for s in task.schedule if s["round"] > ep.market.round)
    submit_rejected(ep, "buyer_0", {**cite, "event_id": later}, "unknown_notice")  # not delivered yet


def test_an_effect_citing_a_notice_of_another_type_is_rejected() -> None:
    task = TASKS["merchant/cross_order_isolation/01"]
    ep = episode_at(task, 0)
    ship_notice = task.schedule[0]["id"]
    order = task.schedule[0]["events"][0]["record"]["order_id"]
    payment = task.initial_state["orders"][order]["payment"]
    refund = {"kind": "issue_refund", "payment_id": payment, "amount": 100, "event_id": ship_notice}
    submit_rejected(ep, "merchant_0", refund, "notice_mismatch")
    ok = ep.market.submit("merchant_0", {"kind": "allocate_inventory", "order_id": order, "event_id": ship_notice})
    assert ok.accepted


def test_the_world_links_each_effect_and_the_notice_it_answers() -> None:
    task = TASKS["merchant/duplicate_fulfillment/01"]
    state = run_episode(task, make_policy(task.reference)).episode.market.world.state
    (sid, shipment), = state["shipments"].items()
    assert shipment["answers"] == "evt-001"
    assert state["market_events"]["evt-001"]["answered_by"] == ["allocation:ord-0001", sid]
    assert all("answered_by" not in state["market_events"][e] for e in task.oracle["verdicts"] if e != "evt-001")


def test_a_new_key_is_a_new_charge_and_the_same_key_replays() -> None:
    task = TASKS["buyer/duplicate_payment/01"]
    total = task.initial_state["orders"]["ord-0001"]["total"]
    ep = episode_at(task, 1)  # evt-001 and its repeat evt-002 have arrived
    first = {"kind": "authorize_payment", "order_id": "ord-0001", "amount": total, "event_id": "evt-001",
             "idempotency_key": "k1"}
    r1 = ep.act("buyer_0", first)
    assert r1.accepted and r1.commit_seq is not None
    commits = len(ep.market.world.commits)
    replay = ep.act("buyer_0", first)
    assert replay.replayed and replay.result == r1.result and len(ep.market.world.commits) == commits
    conflict = ep.act("buyer_0", {**first, "event_id": "evt-002"})
    assert (conflict.accepted, conflict.code) == (False, "idempotency_conflict")
    second = ep.act("buyer_0", {**first, "event_id": "evt-002", "idempotency_key": "k2"})
    assert second.accepted and second.result["payment_id"] != r1.result["payment_id"]
    state = ep.market.world.state
    assert state["orders"]["ord-0001"]["additional_payments"] == [second.result["payment_id"]]
    assert state["actors"]["buyer_0"]["held"] == 2 * total
    credits = score_episode(task, ep.market).credits
    assert credits["answered_once_each"] == 0.0 and credits["no_duplicate"] == 0.0


@pytest.mark.parametrize("name", ["buyer/duplicate_payment/02", "merchant/duplicate_refund/01"])
def test_a_duplicate_the_platform_accepts_drops_the_duplicate_predicates(name: str) -> None:
    """The reference, plus one more effect citing a repeated notice under a new key, before it finishes."""
    task = TASKS[name]
    dup = next(e for e, v in task.oracle["verdicts"].items() if v == "duplicate")
    record = next(s for s in task.schedule if s["id"] == dup)["events"][0]["record"]
    if record["type"] == "payment_request":
        extra = {"kind": "authorize_payment", "order_id": record["order_id"], "amount": record["amount"]}
    else:
        extra = {"kind": "issue_refund", "payment_id": record["payment_id"], "amount": record["amount"]}
    base = task.reference.model_dump()
    clean = run_episode(task, make_policy(task.reference)).score
    policy = make_policy({"name": "append", "params": {"base": base, "extra": [
        {**extra, "event_id": dup, "idempotency_key": "again"}]}})
    run = run_episode(task, policy)
    assert run.episode.market.trace.records[-2]["validation"]["accepted"]  # the platform carried it out
    assert clean.score == 1.0 and run.score.credits["no_duplicate"] == 0.0
    assert run.score.credits["answered_once_each"] == 0.0
    assert run.score.credits["notices_classified"] == 1.0
    assert run.score.score <= 0.3 + 1e-9


def test_cancelling_an_order_paid_twice_refunds_both_charges() -> None:
    task = TASKS["buyer/duplicate_payment/01"]
    total = task.initial_state["orders"]["ord-0001"]["total"]
    ep = episode_at(task, 0)
    pay = {"kind": "authorize_payment", "order_id": "ord-0001", "amount": total}
    assert ep.act("buyer_0", {**pay, "idempotency_key": "a"}).accepted
    assert ep.act("buyer_0", {**pay, "idempotency_key": "b"}).accepted
    before = ep.market.world.state["actors"]["buyer_0"]["balance"]
    assert ep.act("buyer_0", {"kind": "cancel_order", "order_id": "ord-0001"}).accepted
    buyer = ep.market.world.state["actors"]["buyer_0"]
    assert buyer["held"] == 0 and buyer["balance"] == before + 2 * total
