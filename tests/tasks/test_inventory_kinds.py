"""The T6 predicate kinds on hand-built traces and states: where each must pass and where it must fail.

``INVENTORY_CASES`` has the shape of ``CASES`` in ``tests/scoring/test_scoring_kinds.py``
(kind -> params, then (label, records, state, expected credit)).
"""

from __future__ import annotations

from typing import Any

import pytest

from acworld_env.scoring import KINDS, ScoreInput
from acworld_env.scoring.kinds_inventory import value_at
from acworld_env.tasks.spec import PolicyRef, PredicateSpec, TaskSpec
from acworld_env.world import empty_state

B, M = "buyer_0", "merchant_0"


def rec(n: int, action: dict, *, accepted: bool = True, round_: int = 0, actor: str = B) -> dict[str, Any]:
    """A minimal lineage record of the shape the kinds read."""
    return {"n": n, "round": round_, "actor": actor, "action": action,
            "validation": {"accepted": accepted, "code": "ok" if accepted else "x"}, "evidence": []}


def mrec(n: int, action: dict, **kw: Any) -> dict[str, Any]:
    """A record of the Merchant's."""
    return rec(n, action, actor=M, **kw)


def state(**tables: dict) -> dict[str, Any]:
    """An empty World with the given tables filled."""
    s = empty_state()
    s.update(tables)
    return s


def order(lines: list[tuple[str, int, int]], *, status: str = "authorized", payment: str | None = "pay-1",
          allocated: dict | None = None, shipped: dict | None = None, buyer: str = B, **extra: Any) -> dict:
    """An order record of ``(listing, units, unit price)`` lines."""
    ls = [{"listing_id": lid, "quantity": q, "unit_price": p} for lid, q, p in lines]
    return {"buyer": buyer, "merchant": M, "lines": ls, "total": sum(q * p for _, q, p in lines), "status": status,
            "payment": payment, "allocated": allocated or {}, "shipped": shipped or {}, **extra}


def buy(lid: str, q: int = 1, merchant: str = M) -> dict:
    return {"kind": "place_order", "merchant_id": merchant, "lines": [{"listing_id": lid, "quantity": q}]}


def eta(oid: str, r: int) -> dict:
    return {"kind": "set_eta", "order_id": oid, "eta_round": r}


TWO_AT_90 = order([("L-1", 2, 9_000)])
PAID = {"pay-1": {"authorized": 18_000}}

INVENTORY_CASES: dict[str, tuple[dict, list[tuple[str, list, dict, float]]]] = {
    "inv_buyer_orders": ({"actor": B, "expect": {"L-1": 2}, "max_price": {"L-1": 9_500}}, [
        ("right units under the limit", [], state(orders={"o1": TWO_AT_90}), 1.0),
        ("over the limit", [], state(orders={"o1": order([("L-1", 2, 9_900)])}), 0.0),
        ("one unit short", [], state(orders={"o1": order([("L-1", 1, 9_000)])}), 0.0),
        ("a cancelled extra order does not count", [],
         state(orders={"o1": TWO_AT_90, "o2": order([("L-2", 1, 100)], status="cancelled")}), 1.0),
        ("someone else's order", [], state(orders={"o1": order([("L-1", 2, 9_000)], buyer="buyer_1")}), 0.0),
        ("nothing", [], state(), 0.0),
    ]),
    "inv_orders_paid": ({"actor": B}, [
        ("paid in full", [], state(orders={"o1": TWO_AT_90}, payments=PAID), 1.0),
        ("paid the wrong amount", [], state(orders={"o1": TWO_AT_90}, payments={"pay-1": {"authorized": 17_000}}), 0.0),
        ("unpaid", [], state(orders={"o1": order([("L-1", 2, 9_000)], payment=None)}), 0.0),
        ("charged twice", [], state(orders={"o1": {**TWO_AT_90, "additional_payments": ["pay-2"]}},
                                    payments=PAID), 0.0),
        ("no order", [], state(), 0.0),
    ]),
    "inv_not_before": ({"actor": B, "engaged_by": ["place_order"], "rules": [
            {"kind": "place_order", "before": 5},
            {"kind": "place_order", "match": {"merchant_id": "m1"}, "after": 8}]}, [
        ("in the window", [rec(1, buy("L-1"), round_=6)], state(), 1.0),
        ("too early", [rec(1, buy("L-1"), round_=3)], state(), 0.0),
        ("a refused early try is no commit", [rec(1, buy("L-1"), accepted=False, round_=1),
                                               rec(2, buy("L-1"), round_=6)], state(), 1.0),
        ("too late at m1", [rec(1, buy("L-1", merchant="m1"), round_=9)], state(), 0.0),
        ("late elsewhere is fine", [rec(1, buy("L-1"), round_=9)], state(), 1.0),
        ("idle", [], state(), 0.0),
    ]),
    "inv_no_action": ({"actor": B, "engaged_by": ["place_order"], "kinds": ["place_order"],
                       "targets": [{"listing_id": "L-bad"}]}, [
        ("only the fitting item", [rec(1, buy("L-ok"))], state(), 1.0),
        ("tried an unfit item, refused", [rec(1, buy("L-bad"), accepted=False), rec(2, buy("L-ok"))], state(), 0.0),
        ("idle", [], state(), 0.0),
    ]),
    "inv_fields": ({"checks": [["orders", "o1", "eta_round", 9], ["orders", "o2", "refunded", 500]]}, [
        ("both right", [], state(orders={"o1": {"eta_round": 9}, "o2": {"refunded": 500}}), 1.0),
        ("one right", [], state(orders={"o1": {"eta_round": 7}, "o2": {"refunded": 500}}), 0.5),
        ("missing records", [], state(), 0.0),
    ]),
    "inv_order_units": ({"actor": M, "engaged_by": ["allocate_inventory", "partial_fill"],
                         "expect": {"o1": {"L-1": 2}, "o2": {}}}, [
        ("as expected", [mrec(1, {"kind": "allocate_inventory", "order_id": "o1"})],
         state(orders={"o1": order([("L-1", 2, 1)], allocated={"L-1": 2}), "o2": order([("L-1", 1, 1)])}), 1.0),
        ("shipped counts as committed", [mrec(1, {"kind": "allocate_inventory", "order_id": "o1"})],
         state(orders={"o1": order([("L-1", 2, 1)], shipped={"L-1": 2}), "o2": order([("L-1", 1, 1)])}), 1.0),
        ("the wrong order served", [mrec(1, {"kind": "allocate_inventory", "order_id": "o2"})],
         state(orders={"o1": order([("L-1", 2, 1)]), "o2": order([("L-1", 1, 1)], allocated={"L-1": 1})}), 0.0),
        ("idle", [], state(orders={"o1": order([("L-1", 2, 1)]), "o2": order([("L-1", 1, 1)])}), 0.0),
    ]),
    "inv_disputes": ({"actor": B, "disputed": ["o2"], "undisputed": ["o1"]}, [
        ("the lost parcel only", [], state(disputes={"dsp-1": {"order": "o2", "buyer": B}}), 1.0),
        ("both", [], state(disputes={"dsp-1": {"order": "o2", "buyer": B}, "dsp-2": {"order": "o1", "buyer": B}}), 0.0),
        ("none", [], state(), 0.0),
    ]),
    "inv_timed_values": ({"actor": M, "engaged_by": ["set_eta"], "kind": "set_eta", "key_field": "order_id",
                          "value_field": "eta_round", "timeline": {"o1": [[0, 9], [4, 12]]}}, [
        ("followed the change", [mrec(1, eta("o1", 9), round_=1), mrec(2, eta("o1", 12), round_=5)], state(), 1.0),
        ("stale after the change", [mrec(1, eta("o1", 9), round_=5)], state(), 0.0),
        ("ahead of the change", [mrec(1, eta("o1", 12), round_=2)], state(), 0.0),
        ("other orders are not judged", [mrec(1, eta("o7", 3), round_=2)], state(), 1.0),
        ("idle", [], state(), 0.0),
    ]),
    "inv_stock_never_ahead": ({"actor": M, "engaged_by": ["restock", "update_listing"], "listing": "L-1",
                               "initial": 3, "arrivals": [[5, 6]]}, [
        ("booked on arrival", [mrec(1, {"kind": "restock", "listing_id": "L-1", "quantity": 6}, round_=5)],
         state(), 1.0),
        ("booked on announcement", [mrec(1, {"kind": "restock", "listing_id": "L-1", "quantity": 6}, round_=2)],
         state(), 0.0),
        ("set ahead by hand", [mrec(1, {"kind": "update_listing", "listing_id": "L-1", "quantity": 10}, round_=6)],
         state(), 0.0),
        ("a price change alone", [mrec(1, {"kind": "update_listing", "listing_id": "L-1", "price": 500}, round_=1)],
         state(), 1.0),
        ("idle", [], state(), 0.0),
    ]),
    "inv_answer_world": ({"actor": M, "table": "listings", "field": "stock", "keys": ["L-1", "L-2"]}, [
        ("current stock", [mrec(1, {"kind": "submit_answer", "answer": {"L-1": 4, "L-2": 0}})],
         state(listings={"L-1": {"stock": 4}, "L-2": {"stock": 0}}), 1.0),
        ("stock read before a delivery", [mrec(1, {"kind": "submit_answer", "answer": {"L-1": 1, "L-2": 0}})],
         state(listings={"L-1": {"stock": 4}, "L-2": {"stock": 0}}), 0.5),
        ("counts as digits", [mrec(1, {"kind": "submit_answer", "answer": {"L-1": "4", "L-2": "0"}})],
         state(listings={"L-1": {"stock": 4}, "L-2": {"stock": 0}}), 1.0),
        ("a yes is no count", [mrec(1, {"kind": "submit_answer", "answer": {"L-1": 4, "L-2": False}})],
         state(listings={"L-1": {"stock": 4}, "L-2": {"stock": 0}}), 0.5),
        ("no answer", [mrec(1, {"kind": "finish"})], state(listings={"L-1": {"stock": 4}, "L-2": {"stock": 0}}), 0.0),
    ]),
}

PARAMS = [(kind, label, records, st, want) for kind, (_, cases) in INVENTORY_CASES.items()
          for label, records, st, want in cases]


def credit(kind: str, records: list, st: dict) -> tuple[float, dict]:
    params = INVENTORY_CASES[kind][0]
    task = TaskSpec(task_id="test/t6-kinds", family="test", capability="test", role="buyer", actor=B,
                    request="test", initial_state=empty_state(),
                    predicates=[PredicateSpec(id="p", kind=kind, params=params, weight=1.0, stage="Decision",
                                              loss_group="Choice")],
                    reference=PolicyRef(name="fixed", params={"actions": []}))
    return KINDS[kind](ScoreInput(task, records, st), params)


def test_every_inventory_kind_is_registered_and_has_pass_and_fail_cases() -> None:
    import acworld_env.scoring.kinds_inventory as module

    mine = {name for name, fn in KINDS.items() if fn.__module__ == module.__name__}
    assert mine == set(INVENTORY_CASES)
    for kind, (_, cases) in INVENTORY_CASES.items():
        wants = [w for *_, w in cases]
        assert 1.0 in wants and min(wants) == 0.0, kind


@pytest.mark.parametrize(("kind", "label", "records", "st", "want"), PARAMS,
                         ids=[f"{k}:{lbl}" for k, lbl, *_ in PARAMS])
def test_inventory_kind_credit(kind: str, label: str, records: list, st: dict, want: float) -> None:
    got, evidence = credit(kind, records, st)
    assert got == pytest.approx(want), evidence
    assert isinstance(evidence, dict)


def test_order_units_all_or_nothing() -> None:
    params = {**INVENTORY_CASES["inv_order_units"][0], "expect": {"o1": {"L-1": 2}, "o2": {"L-1": 1}}, "all": True}
    st = state(orders={"o1": order([("L-1", 2, 1)], allocated={"L-1": 2}), "o2": order([("L-1", 1, 1)])})
    records = [mrec(1, {"kind": "allocate_inventory", "order_id": "o1"})]
    task = TaskSpec(task_id="test/t6-kinds", family="test", capability="test", role="merchant", actor=M,
                    request="test", initial_state=empty_state(), predicates=[], reference=PolicyRef(name="fixed"))
    assert KINDS["inv_order_units"](ScoreInput(task, records, st), params)[0] == 0.0
    assert KINDS["inv_order_units"](ScoreInput(task, records, st), {**params, "all": False})[0] == 0.5


def test_value_at_reads_the_fact_of_the_round() -> None:
    line = [[0, 9], [4, 12], [7, 15]]
    assert [value_at(line, r) for r in (0, 3, 4, 6, 7, 20)] == [9, 9, 12, 12, 15, 15]
    assert value_at([[2, 5]], 1) is None
