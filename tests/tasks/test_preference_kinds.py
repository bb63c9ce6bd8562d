"""The T3 predicate kinds on hand-built traces and states: where each must pass and where it must fail.

``PREFERENCE_CASES``: kind -> params, then (label, records, state, expected credit).
"""

from __future__ import annotations

from typing import Any

import pytest

from acworld_env.scoring import KINDS, ScoreInput
from acworld_env.tasks.spec import PolicyRef, PredicateSpec, TaskSpec
from acworld_env.world import empty_state

B = "buyer_0"


def rec(n: int, action: dict, *, accepted: bool = True, round_: int = 0, evidence: list[str] | None = None,
        actor: str = B) -> dict[str, Any]:
    """A minimal lineage record of the shape the kinds read."""
    return {"n": n, "round": round_, "actor": actor, "action": action,
            "validation": {"accepted": accepted, "code": "ok" if accepted else "x"}, "evidence": evidence or []}


def order(listing: str, merchant: str = "merchant_0") -> dict:
    """A list-price order action."""
    return {"kind": "place_order", "merchant_id": merchant, "lines": [{"listing_id": listing, "quantity": 1}]}


def world(orders: dict[str, list[str]] | None = None, *, cancelled: tuple[str, ...] = (), buyer: str = B,
          flags: dict[str, list[dict]] | None = None) -> dict[str, Any]:
    """A World with orders (id -> listings) of ``buyer`` and reviews r1..r4 with their flags."""
    s = empty_state()
    for oid, listings in (orders or {}).items():
        s["orders"][oid] = {"buyer": buyer, "merchant": "merchant_0", "status": "cancelled" if oid in cancelled
                            else "placed", "lines": [{"listing_id": x, "quantity": 1} for x in listings]}
    for rid in ("r1", "r2", "r3", "r4"):
        s["reviews"][rid] = {"listing": "L-1", "order": None, "by": "someone", "rating": 5, "text": "",
                             "flags": (flags or {}).get(rid, [])}
    return s


def flag(reason: str = "undisclosed_incentive", by: str = B) -> dict:
    return {"by": by, "reason": reason}


SEARCH = rec(1, {"kind": "search_listings"}, evidence=["L-1", "L-2"])
REVIEWS_1 = rec(2, {"kind": "get_reviews", "listing_id": "L-1"}, evidence=["L-1", "r1"])
REP_0 = rec(3, {"kind": "get_merchant_reputation", "merchant_id": "merchant_0"}, evidence=["merchant_0"])

PREFERENCE_CASES: dict[str, tuple[dict, list[tuple[str, list, dict, float]]]] = {
    "order_choice": ({"actor": B, "credit": {"L-1": 1.0, "L-2": 0.4}}, [
        ("the best one", [rec(1, order("L-1"))], world({"o1": ["L-1"]}), 1.0),
        ("a weaker one, graded", [rec(1, order("L-2"))], world({"o1": ["L-2"]}), 0.4),
        ("one not credited", [rec(1, order("L-3"))], world({"o1": ["L-3"]}), 0.0),
        ("hedged over two orders", [], world({"o1": ["L-1"], "o2": ["L-2"]}), 0.0),
        ("a mixed cart", [], world({"o1": ["L-1", "L-2"]}), 0.0),
        ("cancelled the first, kept the best", [], world({"o1": ["L-2"], "o2": ["L-1"]}, cancelled=("o1",)), 1.0),
        ("someone else's order", [], world({"o1": ["L-1"]}, buyer="buyer_1"), 0.0),
        ("nothing", [], world(), 0.0),
    ]),
    "read_before_order": ({"actor": B, "seen": ["L-1", "L-2"], "reviews": ["@ordered"],
                           "reputation": ["@ordered"]}, [
        ("all read first", [SEARCH, REVIEWS_1, REP_0, rec(4, order("L-1"))], world({"o1": ["L-1"]}), 1.0),
        ("reviews of another listing", [SEARCH, REVIEWS_1, REP_0, rec(4, order("L-2"))],
         world({"o1": ["L-2"]}), 0.75),
        ("read after ordering", [rec(1, order("L-1")), SEARCH, REVIEWS_1, REP_0], world({"o1": ["L-1"]}), 0.0),
        ("refused reads do not count", [rec(1, {"kind": "search_listings"}, accepted=False, evidence=["L-1", "L-2"]),
                                        REVIEWS_1, REP_0, rec(4, order("L-1"))], world({"o1": ["L-1"]}), 0.75),
        ("read everything, never ordered", [SEARCH, REVIEWS_1, REP_0], world(), 0.0),
        ("ordered from a quote (listing read from the World order)",
         [SEARCH, REVIEWS_1, REP_0, {**rec(4, {"kind": "place_order", "quote_id": "quo-0001"}),
                                     "result": {"order_id": "o1"}}], world({"o1": ["L-1"]}), 1.0),
        ("quote order of an unread listing", [SEARCH, REVIEWS_1, REP_0, {
            **rec(4, {"kind": "place_order", "quote_id": "quo-0001"}), "result": {"order_id": "o1"}}],
         world({"o1": ["L-2"]}), 0.75),
    ]),
    "orders_avoid": ({"actor": B, "forbidden": ["L-9"]}, [
        ("allowed listing", [rec(1, order("L-1"))], world({"o1": ["L-1"]}), 1.0),
        ("forbidden listing", [rec(1, order("L-9"))], world({"o1": ["L-9"]}), 0.0),
        ("forbidden, then cancelled", [], world({"o1": ["L-9"], "o2": ["L-1"]}, cancelled=("o1",)), 0.0),
        ("never ordered", [], world(), 0.0),
    ]),
    "ordered_not_before": ({"actor": B, "round": 4}, [
        ("waited", [rec(1, order("L-1"), round_=5)], world({"o1": ["L-1"]}), 1.0),
        ("ordered early", [rec(1, order("L-1"), round_=2)], world({"o1": ["L-1"]}), 0.0),
        ("early try refused, then waited", [rec(1, order("L-1"), round_=2, accepted=False),
                                            rec(2, order("L-1"), round_=4)], world({"o1": ["L-1"]}), 1.0),
        ("never ordered", [], world(), 0.0),
    ]),
    "reviews_flagged": ({"actor": B, "paid": ["r1", "r2"], "genuine": ["r3"]}, [
        ("both paid flagged", [], world({"o1": ["L-1"]}, flags={"r1": [flag()], "r2": [flag("fake")]}), 1.0),
        ("one of two", [], world({"o1": ["L-1"]}, flags={"r1": [flag()]}), 0.5),
        ("a genuine one flagged too", [], world({"o1": ["L-1"]}, flags={"r1": [flag()], "r2": [flag()],
                                                                        "r3": [flag()]}), 0.0),
        ("an unverified one flagged too", [], world({"o1": ["L-1"]}, flags={"r1": [flag()], "r2": [flag()],
                                                                            "r4": [flag("fake")]}), 1.0),
        ("flagged by someone else", [], world({"o1": ["L-1"]}, flags={"r1": [flag(by="x")], "r2": [flag(by="x")]}),
         0.0),
        ("wrong reason", [], world({"o1": ["L-1"]}, flags={"r1": [flag("abusive")], "r2": [flag("abusive")]}), 0.0),
        ("flagged but never ordered", [], world(flags={"r1": [flag()], "r2": [flag()]}), 0.0),
    ]),
}

PARAMS = [(kind, label, records, st, want) for kind, (_, cases) in PREFERENCE_CASES.items()
          for label, records, st, want in cases]


def credit(kind: str, records: list, st: dict) -> tuple[float, dict]:
    params = PREFERENCE_CASES[kind][0]
    task = TaskSpec(task_id="test/t3-kinds", family="test", capability="test", role="buyer", actor=B,
                    request="test", initial_state=empty_state(),
                    predicates=[PredicateSpec(id="p", kind=kind, params=params, weight=1.0, stage="Decision",
                                              loss_group="Choice")],
                    reference=PolicyRef(name="fixed", params={"actions": []}))
    return KINDS[kind](ScoreInput(task, records, st), params)


def test_every_preference_kind_is_registered_and_has_pass_and_fail_cases() -> None:
    import acworld_env.scoring.kinds_preference as module

    mine = {name for name, fn in KINDS.items() if fn.__module__ == module.__name__}
    assert mine == set(PREFERENCE_CASES)
    for kind, (_, cases) in PREFERENCE_CASES.items():
        wants = [w for *_, w in cases]
        assert 1.0 in wants and min(wants) == 0.0, kind


@pytest.mark.parametrize(("kind", "label", "records", "st", "want"), PARAMS,
                         ids=[f"{k}:{lbl}" for k, lbl, *_ in PARAMS])
def test_preference_kind_credit(kind: str, label: str, records: list, st: dict, want: float) -> None:
    got, evidence = credit(kind, records, st)
    assert got == pytest.approx(want), evidence
    assert isinstance(evidence, dict)
