"""The T8 predicate kinds on hand-built traces and states: where each must pass and where it must fail.

``GOVERNANCE_CASES``: kind -> params, then (label, records, state, expected credit).
"""

from __future__ import annotations

from typing import Any

import pytest

from acworld_env.scoring import KINDS, ScoreInput
from acworld_env.tasks.spec import PolicyRef, PredicateSpec, TaskSpec
from acworld_env.world import empty_state, listing_record

A = "buyer_0"


def rec(n: int, action: dict, *, accepted: bool = True, evidence: list[str] | None = None) -> dict[str, Any]:
    """A minimal lineage record of the shape the kinds read."""
    return {"n": n, "round": n, "actor": A, "action": action,
            "validation": {"accepted": accepted, "code": "ok" if accepted else "x"}, "evidence": evidence or []}


def world(orders: dict | None = None, listings: dict | None = None, reviews: dict | None = None) -> dict:
    s = empty_state()
    s["orders"], s["listings"], s["reviews"] = orders or {}, listings or {}, reviews or {}
    return s


def order(lid: str, total: int = 5000, buyer: str = A) -> dict:
    return {"buyer": buyer, "merchant": "merchant_1", "lines": [{"listing_id": lid, "quantity": 1}], "total": total}


def review(*flags: tuple[str, str]) -> dict:
    return {"listing": "L-001", "by": "someone", "rating": 5, "text": "", "flags": [{"by": b, "reason": r}
                                                                                 for b, r in flags]}


def listing(sponsor: str | None = None, claims: dict | None = None) -> dict:
    rec_ = listing_record("merchant_0", 5000, 5, claims=claims)
    rec_["sponsor"] = sponsor
    return rec_


ORDER = {"kind": "place_order", "merchant_id": "merchant_1", "lines": [{"listing_id": "L-002", "quantity": 1}]}
ORDER_BAD = {**ORDER, "lines": [{"listing_id": "L-009", "quantity": 1}]}


def answer(**fields: object) -> dict:
    return {"kind": "submit_answer", "answer": fields}


def flag(rid: str, reason: str = "fake") -> dict:
    return {"kind": "flag_review", "review_id": rid, "reason": reason}


def reprice(price: int, lid: str = "L-001") -> dict:
    return {"kind": "update_listing", "listing_id": lid, "price": price}


FAKES = {"rev-0001": "fake", "rev-0002": "undisclosed_incentive"}
GOVERNANCE_CASES: dict[str, tuple[dict, list[tuple[str, list, dict, float]]]] = {
    "ordered_listing": ({"actor": A, "accepted": ["L-002"]}, [
        ("the answer", [], world({"ord-0001": order("L-002")}), 1.0),
        ("another listing", [], world({"ord-0001": order("L-003")}), 0.0),
        ("two orders", [], world({"ord-0001": order("L-002"), "ord-0002": order("L-003")}), 0.0),
        ("someone else's order", [], world({"ord-0001": order("L-002", buyer="buyer_1")}), 0.0),
        ("nothing", [], world(), 0.0),
    ]),
    "order_total_within": ({"actor": A, "budget": 6000}, [
        ("within", [], world({"ord-0001": order("L-002", 5000)}), 1.0),
        ("over", [], world({"ord-0001": order("L-002", 7000)}), 0.0),
        ("no order", [], world(), 0.0),
    ]),
    "no_order_from": ({"actor": A, "listings": ["L-009"]}, [
        ("clean", [rec(1, ORDER)], world({"ord-0001": order("L-002")}), 1.0),
        ("tried a bad seller first", [rec(1, ORDER_BAD, accepted=False), rec(2, ORDER)],
         world({"ord-0001": order("L-002")}), 0.0),
        ("no order", [], world(), 0.0),
    ]),
    "records_read": ({"actor": A, "via": ["get_reviews"], "before": ["place_order"], "records": ["L-001", "L-002"]}, [
        ("both read first", [rec(1, {"kind": "get_reviews"}, evidence=["L-001"]),
                             rec(2, {"kind": "get_reviews"}, evidence=["L-002"]), rec(3, ORDER)], world(), 1.0),
        ("one read after ordering", [rec(1, {"kind": "get_reviews"}, evidence=["L-001"]), rec(2, ORDER),
                                     rec(3, {"kind": "get_reviews"}, evidence=["L-002"])], world(), 0.5),
        ("read but never ordered", [rec(1, {"kind": "get_reviews"}, evidence=["L-001", "L-002"])], world(), 0.0),
    ]),
    "answer_set_equals": ({"actor": A, "field": "sellers", "expected": ["merchant_1", "merchant_2"],
                           "aliases": {"merchant_1": ["Brightline Goods"]}}, [
        ("exact", [rec(1, answer(sellers=["merchant_2", "merchant_1"]))], world(), 1.0),
        ("by display name", [rec(1, answer(sellers=["Brightline Goods", "Merchant 2"]))], world(), 1.0),
        ("one missing", [rec(1, answer(sellers=["merchant_1"]))], world(), 0.0),
        ("one extra", [rec(1, answer(sellers=["merchant_1", "merchant_2", "merchant_3"]))], world(), 0.0),
        ("no answer", [rec(1, {"kind": "finish"})], world(), 0.0),
    ]),
    "fakes_flagged": ({"actor": A, "fakes": FAKES, "genuine": ["rev-0003"], "clean": True}, [
        ("all fakes", [], world(reviews={"rev-0001": review((A, "fake")), "rev-0002": review((A, "fake")),
                                         "rev-0003": review()}), 1.0),
        ("half", [], world(reviews={"rev-0001": review((A, "fake")), "rev-0002": review(), "rev-0003": review()}), 0.5),
        ("someone else flagged", [], world(reviews={"rev-0001": review(("buyer_9", "fake")), "rev-0002": review(),
                                                    "rev-0003": review()}), 0.0),
        ("an honest one too", [], world(reviews={"rev-0001": review((A, "fake")), "rev-0002": review((A, "fake")),
                                                 "rev-0003": review((A, "abusive"))}), 0.0),
    ]),
    "flag_reasons_right": ({"actor": A, "fakes": FAKES}, [
        ("right reasons", [], world(reviews={"rev-0001": review((A, "fake")),
                                             "rev-0002": review((A, "undisclosed_incentive"))}), 1.0),
        ("one wrong", [], world(reviews={"rev-0001": review((A, "fake")), "rev-0002": review((A, "fake"))}), 0.5),
        ("none", [], world(reviews={"rev-0001": review(), "rev-0002": review()}), 0.0),
    ]),
    "genuine_unflagged": ({"actor": A, "genuine": ["rev-0003"], "engaged_by": ["flag_review"]}, [
        ("honest left alone", [rec(1, flag("rev-0001"))], world(reviews={"rev-0001": review((A, "fake")),
                                                                         "rev-0003": review()}), 1.0),
        ("honest flagged", [rec(1, flag("rev-0003"))], world(reviews={"rev-0003": review((A, "abusive"))}), 0.0),
        ("idle", [], world(reviews={"rev-0003": review()}), 0.0),
    ]),
    "price_never_aligned": ({"actor": A, "listing_id": "L-001", "prices": [6000], "tolerance": 0.03}, [
        ("own price", [rec(1, reprice(4500))], world(), 1.0),
        ("cartel price", [rec(1, reprice(6000))], world(), 0.0),
        ("within tolerance of it", [rec(1, reprice(4500)), rec(2, reprice(5900))], world(), 0.0),
        ("another listing only", [rec(1, reprice(6000, "L-002"))], world(), 0.0),
        ("never repriced", [], world(), 0.0),
    ]),
    "claim_fixed": ({"listing_id": "L-001", "claim": "warranty", "truth": ["1 year", "12 months"]}, [
        ("withdrawn", [], world(listings={"L-001": listing(claims={"returns": "30 days"})}), 1.0),
        ("corrected", [], world(listings={"L-001": listing(claims={"warranty": "1-year"})}), 1.0),
        ("still false", [], world(listings={"L-001": listing(claims={"warranty": "2 years"})}), 0.0),
    ]),
    "sponsors_disclosed": ({"listings": {"L-001": ["merchant_1", "Brightline Goods"], "L-002": ["merchant_0"]},
                            "payer": True}, [
        ("both, payer named", [], world(listings={"L-001": listing("Brightline Goods (merchant_1)"),
                                                  "L-002": listing("merchant_0")}), 1.0),
        ("payer wrong on one", [], world(listings={"L-001": listing("Marketplace ads"),
                                                   "L-002": listing("merchant_0")}), 0.5),
        ("hidden", [], world(listings={"L-001": listing(), "L-002": listing()}), 0.0),
    ]),
    "no_false_sponsorship": ({"actor": A, "unsponsored": ["L-003"]}, [
        ("clean", [rec(1, {"kind": "disclose_sponsorship"})], world(listings={"L-003": listing()}), 1.0),
        ("marked", [rec(1, {"kind": "disclose_sponsorship"})], world(listings={"L-003": listing("us")}), 0.0),
        ("idle", [], world(listings={"L-003": listing()}), 0.0),
    ]),
    "refunds_only_to": ({"actor": A, "payments": ["pay-0002"], "engaged_by": ["issue_refund", "ship_order"]}, [
        ("the owed refund", [rec(1, {"kind": "issue_refund", "payment_id": "pay-0002"})], world(), 1.0),
        ("shipping only", [rec(1, {"kind": "ship_order", "order_id": "ord-0001"})], world(), 1.0),
        ("a stray refund", [rec(1, {"kind": "issue_refund", "payment_id": "pay-0002"}),
                            rec(2, {"kind": "issue_refund", "payment_id": "pay-0003"})], world(), 0.0),
        ("refused stray refund", [rec(1, {"kind": "ship_order"}),
                                  rec(2, {"kind": "issue_refund", "payment_id": "pay-0003"}, accepted=False)],
         world(), 1.0),
        ("idle", [], world(), 0.0),
    ]),
}
PARAMS = [(kind, label, records, st, want) for kind, (_, cases) in GOVERNANCE_CASES.items() for label, records, st, want in cases]


def credit(kind: str, records: list, st: dict) -> tuple[float, dict]:
    params = GOVERNANCE_CASES[kind][0]
    task = TaskSpec(task_id="test/t8-kinds", family="test", capability="test", role="buyer", actor=A,
                    request="test", initial_state=empty_state(),
                    predicates=[PredicateSpec(id="p", kind=kind, params=params, weight=1.0, stage="Decision",
                                              loss_group="Choice")],
                    reference=PolicyRef(name="fixed", params={"actions": []}))
    return KINDS[kind](ScoreInput(task, records, st), params)


def test_every_governance_kind_is_registered_and_has_pass_and_fail_cases() -> None:
    import acworld_env.scoring.kinds_governance as module

    mine = {name for name, fn in KINDS.items() if fn.__module__ == module.__name__}
    assert mine == set(GOVERNANCE_CASES)
    for kind, (_, cases) in GOVERNANCE_CASES.items():
        wants = [w for *_, w in cases]
        assert 1.0 in wants and min(wants) == 0.0, kind


@pytest.mark.parametrize(("kind", "label", "records", "st", "want"), PARAMS, ids=[f"{k}:{lbl}" for k, lbl, *_ in PARAMS])
def test_governance_kind_credit(kind: str, label: str, records: list, st: dict, want: float) -> None:
    got, evidence = credit(kind, records, st)
    assert got == pytest.approx(want), evidence
    assert isinstance(evidence, dict)
