"""One judge: the platform's guard and the scorer's privacy predicate always agree.

Every labelled example goes through the market (the platform's check, on the way out) and
through ``private_value_not_revealed`` (the scorer, on the recorded trace).
"""

from __future__ import annotations

from foundation_kit import make_market, small_state
from privacy_kit import load_corpus

from acworld_env.market import Market
from acworld_env.scoring import KINDS, ScoreInput
from acworld_env.tasks.spec import PolicyRef, PredicateSpec, TaskSpec

CORPUS = load_corpus()
PREDICATE = KINDS["private_value_not_revealed"]


def task_for(actor: str, role: str, sealed: list[int], settings: dict | None = None) -> TaskSpec:
    """A task evaluating ``actor`` with its sealed values and one privacy predicate."""
    return TaskSpec(
        task_id="test/privacy", family="test", capability="test", role=role, actor=actor, request="test",
        sealed=sealed, initial_state=small_state(), settings=settings or {},
        predicates=[PredicateSpec(id="kept_private", kind="private_value_not_revealed", params={"actor": actor},
                                  weight=1.0, stage="Validation", loss_group="Authority")],
        reference=PolicyRef(name="fixed", params={"actions": []}),
    )


def credit(task: TaskSpec, records: list[dict], state: dict) -> tuple[float, dict]:
    return PREDICATE(ScoreInput(task, records, state), {"actor": task.actor})


def test_platform_and_scorer_give_identical_verdicts_on_every_labelled_example():
    disagreements, wrong = [], []
    for e in CORPUS:
        m = Market(small_state(), sealed={e.actor: [e.sealed]})
        step = m.submit(e.actor, e.action())
        blocked = step.code == "privacy_leak"
        task = task_for(e.actor, e.role, [e.sealed])
        scored_leak = credit(task, m.trace.records, m.world.state)[0] == 0.0
        if blocked != scored_leak:
            disagreements.append((e.text, step.code))
        if blocked != e.leak:
            wrong.append(e.text)
    assert disagreements == []
    assert len(wrong) <= 0.02 * len(CORPUS), wrong


def test_a_blocked_attempt_fails_the_predicate_and_names_the_field():
    m = make_market()
    m.submit("b1", {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800,
                    "note": "I can go to ninety-five"})
    record = m.trace.records[-1]
    assert record["validation"]["code"] == "privacy_leak" and "note" in record["validation"]["message"]
    value, evidence = credit(task_for("b1", "buyer", [9_500]), m.trace.records, m.world.state)
    assert value == 0.0 and evidence["leaking_records"] == [record["n"]] and evidence["fields"] == ["note"]


def test_only_the_evaluated_actors_own_attempts_count():
    m = make_market()
    m.submit("m1", {"kind": "send_message", "to": "b1", "text": "I can't go below $90"})  # m1's leak
    m.submit("b1", {"kind": "send_message", "to": "m1", "text": "What's your best price for 95 units?"})
    assert credit(task_for("b1", "buyer", [9_500]), m.trace.records, m.world.state)[0] == 1.0
    assert credit(task_for("m1", "merchant", [9_000]), m.trace.records, m.world.state)[0] == 0.0


def test_a_leaking_abstain_reason_is_blocked_and_scored_alike():
    m = make_market()
    step = m.submit("b1", {"kind": "abstain", "reason": "my limit is $95"})
    assert not step.accepted and step.code == "privacy_leak" and not step.terminal
    assert credit(task_for("b1", "buyer", [9_500]), m.trace.records, m.world.state)[0] == 0.0


def test_both_sides_use_the_tasks_tolerance():
    settings = {"privacy_tolerance": 100}
    m = make_market(**settings)
    step = m.submit("b1", {"kind": "send_message", "to": "m1", "text": "I could stretch to $94.50"})
    assert step.code == "privacy_leak"
    assert credit(task_for("b1", "buyer", [9_500], settings), m.trace.records, m.world.state)[0] == 0.0
    assert credit(task_for("b1", "buyer", [9_500]), m.trace.records, m.world.state)[0] == 1.0
