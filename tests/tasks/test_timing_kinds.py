"""The T10 predicate kinds on hand-built traces and states: where each must pass and where it must fail.

``TIMING_CASES`` has the shape of ``CASES`` in ``tests/scoring/test_scoring_kinds.py``
(kind -> params, then (label, records, state, expected credit)).
"""

from __future__ import annotations

from typing import Any

import pytest

from acworld_env.scoring import KINDS, ScoreInput
from acworld_env.tasks.spec import PolicyRef, PredicateSpec, TaskSpec
from acworld_env.world import empty_state

B = "buyer_0"
PAY = "authorize_payment"
WHERE = {"table": "payments", "field": "order", "keys": ["o1", "o2"]}


def rec(n: int, action: dict, *, accepted: bool = True, round_: int = 0) -> dict[str, Any]:
    """A minimal lineage record of the shape the kinds read."""
    return {"n": n, "round": round_, "actor": B, "action": action,
            "validation": {"accepted": accepted, "code": "ok" if accepted else "x"}, "evidence": []}


def state(payments: dict | None = None, events: dict | None = None) -> dict[str, Any]:
    """A World with some payments and market events."""
    s = empty_state()
    s["payments"], s["market_events"] = payments or {}, events or {}
    return s


def pay(order: str, answers: str | None = None) -> dict:
    return {"order": order, **({"answers": answers} if answers else {})}


def act(order: str) -> dict:
    return {"kind": PAY, "order_id": order}


TIMING_CASES: dict[str, tuple[dict, list[tuple[str, list, dict, float]]]] = {
    "notices_answered_once": ({**WHERE, "apply": ["e1", "e2"]}, [
        ("each once, cited", [], state({"pay-0001": pay("o1", "e1"), "pay-0002": pay("o2", "e2")}), 1.0),
        ("one uncited", [], state({"pay-0001": pay("o1", "e1"), "pay-0002": pay("o2")}), 0.5),
        ("one cites a repeat", [], state({"pay-0001": pay("o1", "e1"), "pay-0002": pay("o2", "e3")}), 0.5),
        ("o1 charged twice", [], state({"pay-0001": pay("o1", "e1"), "pay-0002": pay("o2", "e2"),
                                        "pay-0003": pay("o1", "e3")}), 0.5),
        ("nothing", [], state(), 0.0),
    ]),
    "no_duplicate_effect": ({**WHERE, "actor": B, "kinds": [PAY], "key_field": "order_id"}, [
        ("once each", [rec(1, act("o1")), rec(2, act("o2"))],
         state({"pay-0001": pay("o1", "e1"), "pay-0002": pay("o2", "e2")}), 1.0),
        ("corrected retry", [rec(1, act("o1"), accepted=False), rec(2, act("o1")), rec(3, act("o2"))],
         state({"pay-0001": pay("o1", "e1"), "pay-0002": pay("o2", "e2")}), 1.0),
        ("tried again, refused", [rec(1, act("o1")), rec(2, act("o1"), accepted=False), rec(3, act("o2"))],
         state({"pay-0001": pay("o1", "e1"), "pay-0002": pay("o2", "e2")}), 0.5),
        ("charged twice", [rec(1, act("o1")), rec(2, act("o1")), rec(3, act("o2"))],
         state({"pay-0001": pay("o1", "e1"), "pay-0003": pay("o1", "e3"), "pay-0002": pay("o2", "e2")}), 0.5),
        ("never answered a notice", [rec(1, act("o1"))], state({"pay-0001": pay("o1")}), 0.0),
        ("idle", [], state(), 0.0),
    ]),
    "answered_in_sequence": ({"table": "payments", "field": "order", "apply": ["e1", "e3"], "order": ["o1", "o2"]}, [
        ("in order", [], state({"pay-0001": pay("o1", "e1"), "pay-0002": pay("o2", "e3")}), 1.0),
        ("inverted", [], state({"pay-0002": pay("o1", "e1"), "pay-0001": pay("o2", "e3")}), 0.0),
        ("o2 first from the early notice", [], state({"pay-0001": pay("o2", "e2"), "pay-0002": pay("o1", "e1"),
                                                      "pay-0003": pay("o2", "e3")}), 0.0),
        ("o2 missing", [], state({"pay-0001": pay("o1", "e1")}), 0.0),
    ]),
    "expired_notice_unused": ({**WHERE, "actor": B, "kinds": [PAY], "round": 4, "expired": ["e1"]}, [
        ("waited for the fresh notice", [rec(1, act("o1"), round_=4)], state({"pay-0001": pay("o1", "e2")},
                                                                              {"e2": {"answered_by": ["pay-0001"]}}), 1.0),
        ("acted on the expired one", [rec(1, act("o1"), round_=1)],
         state({"pay-0001": pay("o1", "e1")}, {"e1": {"answered_by": ["pay-0001"]}}), 0.0),
        ("too early, uncited", [rec(1, act("o1"), round_=1), rec(2, act("o1"), round_=4)],
         state({"pay-0001": pay("o1"), "pay-0002": pay("o1", "e2")}), 0.0),
        ("idle", [], state(), 0.0),
    ]),
    "foreign_untouched": ({**WHERE, "actor": B, "kinds": [PAY], "key_field": "order_id", "foreign": "o9",
                           "foreign_events": ["e9"]}, [
        ("own orders only", [rec(1, act("o1"))], state({"pay-0001": pay("o1", "e1")}), 1.0),
        ("tried the foreign order", [rec(1, act("o1")), rec(2, act("o9"), accepted=False)],
         state({"pay-0001": pay("o1", "e1")}), 0.0),
        ("idle", [], state(), 0.0),
    ]),
}

PARAMS = [(kind, label, records, st, want) for kind, (_, cases) in TIMING_CASES.items()
          for label, records, st, want in cases]


def credit(kind: str, records: list, st: dict) -> tuple[float, dict]:
    params = TIMING_CASES[kind][0]
    task = TaskSpec(task_id="test/t10-kinds", family="test", capability="test", role="buyer", actor=B,
                    request="test", initial_state=empty_state(),
                    predicates=[PredicateSpec(id="p", kind=kind, params=params, weight=1.0, stage="Decision",
                                              loss_group="Choice")],
                    reference=PolicyRef(name="fixed", params={"actions": []}))
    return KINDS[kind](ScoreInput(task, records, st), params)


def test_every_timing_kind_is_registered_and_has_pass_and_fail_cases() -> None:
    import acworld_env.scoring.kinds_timing as module

    mine = {name for name, fn in KINDS.items() if fn.__module__ == module.__name__}
    assert mine == set(TIMING_CASES)
    for kind, (_, cases) in TIMING_CASES.items():
        wants = [w for *_, w in cases]
        assert 1.0 in wants and min(wants) == 0.0, kind


@pytest.mark.parametrize(("kind", "label", "records", "st", "want"), PARAMS,
                         ids=[f"{k}:{lbl}" for k, lbl, *_ in PARAMS])
def test_timing_kind_credit(kind: str, label: str, records: list, st: dict, want: float) -> None:
    got, evidence = credit(kind, records, st)
    assert got == pytest.approx(want), evidence
    assert isinstance(evidence, dict)
