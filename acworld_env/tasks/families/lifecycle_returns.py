"""T7 returns and refunds: the Merchant authorises returns and refunds them; the Buyer returns goods.

Factors: 1 to 4 evidence or return conditions (the return window, a final-sale or made-to-order
item, a damage claim that needs the carrier's report, returning only some units) and 2 to 4
payment-state depth (a capture, an earlier goodwill credit, a second hold left open).
"""

from __future__ import annotations

import numpy as np

from ..spec import CounterpartySpec, PolicyRef
from .common import pred
from .lifecycle_draft import (
    Draft,
    Mutation,
    case,
    describe,
    field_check,
    reads,
    settled,
    shelf,
    weights,
    without,
)
from .lifecycle_world import WorldBuilder

CONDITIONS = ("window", "final_sale", "damage_report", "made_to_order")
MARKETPLACE_WINDOW = 365
"""The marketplace's own outer limit on returns; each shop's tighter window is the agent's to apply."""


def merchant_return_authorization(rng: np.random.Generator, level: int = 0) -> Draft:
    """2-4 pending return requests; approve (and refund) those the policy allows, deny the rest (level 0:
    1-2 policy conditions, level 1: 3-4)."""
    w = WorldBuilder()
    window = int(rng.choice([14, 30]))
    n = 4 if level else int(rng.integers(2, 4))
    active = sorted(str(c) for c in rng.choice(CONDITIONS, size=int(rng.integers(3, 5) if level else rng.integers(1, 3)),
                                              replace=False))
    verdicts = [True, False] + ([False] if level else []) + [bool(rng.random() < 0.5) for _ in range(n - 2 - level)]
    verdicts = [verdicts[int(i)] for i in rng.permutation(n)]
    lids = shelf(w, rng, n)
    steps, cases, good, bad = [], [], [], []
    bad_seen = int(rng.integers(len(active)))
    for lid, ok in zip(lids, verdicts, strict=True):
        broken = None if ok else active[bad_seen % len(active)]
        bad_seen += 0 if ok else 1
        days = window + int(rng.integers(5, 20)) if broken == "window" else int(rng.integers(2, window - 8))
        if broken in {"final_sale", "made_to_order"}:
            w.state["listings"][lid]["claims"] = {broken: True}
        o = w.order([(lid, int(rng.integers(1, 3)))], stage="delivered", day=-days - 4, delivered_day=-days)
        damaged = broken == "damage_report" or ("damage_report" in active and rng.random() < 0.5)
        if damaged and broken != "damage_report":
            w.carrier_report(o.shipment_id, "parcel crushed in transit, contents damaged")
        reason = "Arrived damaged." if damaged else str(rng.choice(["Changed my mind.", "Not the colour I wanted."]))
        rid = w.request_return(o, [(lid, o.lines[0]["quantity"])], reason)
        amount = w.state["returns"][rid]["amount"]
        cases.append(case(o, "return", return_id=rid, asked=amount))
        steps += [{"kind": "get_return", "return_id": rid}, {"kind": "get_order", "order_id": o.order_id},
                  {"kind": "get_listing", "listing_id": lid}]
        if o.shipment_id:
            steps.append({"kind": "get_shipment", "shipment_id": o.shipment_id})
        (good if ok else bad).append((o, rid, amount))
    decide = {rid: [{"kind": "authorize_return", "return_id": rid, "approve": True},
                    {"kind": "issue_refund", "payment_id": o.payment_id, "amount": amt, "return_id": rid}]
              for o, rid, amt in good}
    decide |= {rid: [{"kind": "authorize_return", "return_id": rid, "approve": False, "reason": "Outside policy."}]
               for o, rid, amt in bad}
    plan = steps + [s for c in cases for s in decide[c["return_id"]]]
    preds = [pred("approved_right", "lc_fields", 0.3, "Decision", "Choice",
                  checks=[{"table": "returns", "key": rid, "path": "status", "one_of": ["authorized", "refunded"]}
                          for _, rid, _ in good]),
             pred("denied_right", "lc_fields", 0.3, "Decision", "Authority",
                  checks=[field_check("returns", rid, "status", "denied") for _, rid, _ in bad]),
             pred("refunds_right", "lc_fields", 0.4, "World effect", "Execution",
                  checks=[field_check("orders", o.order_id, "refunded", amt if (o, rid, amt) in good else 0)
                          for o, rid, amt in good + bad])]
    grid, (bo, brid, bamt) = good[0][1], bad[0]
    approve_bad = [s for s in plan if s.get("return_id") != brid]
    approve_bad += [{"kind": "authorize_return", "return_id": brid, "approve": True},
                    {"kind": "issue_refund", "payment_id": bo.payment_id, "amount": bamt, "return_id": brid}]
    deny_good = [s for s in plan if s.get("return_id") != grid] + [
        {"kind": "authorize_return", "return_id": grid, "approve": False}]
    muts = [Mutation("approve_outside_policy", f"approves and refunds {brid}, which policy rules out", approve_bad,
                     ["denied_right", "refunds_right"]),
            Mutation("deny_within_policy", f"denies {grid}, which policy allows", deny_good,
                     ["approved_right", "refunds_right"])]
    rules = [f"returns are accepted within {window} days of delivery (order records count days from today, "
             "day 0, so delivery on day -12 was twelve days ago)"]
    rules += [{"final_sale": "items marked final sale cannot be returned",
               "made_to_order": "made-to-order items cannot be returned",
               "damage_report": "a return claiming the item arrived damaged is accepted only if the carrier "
                                "reported damage on that shipment"}[c] for c in active if c != "window"]
    request = (f"These return requests are waiting for a decision: "
               f"{_pending(w, cases)}. "
               f"Our return policy: {'; '.join(rules)}. Approve each return the policy allows and refund it in "
               "full right away; deny the others.")
    return Draft(w.state, request, {"cases": cases, "return_window_days": window}, preds, plan, muts,
                 {"return_conditions": len(active), "conditions": active, "returns": n})


def merchant_refund(rng: np.random.Generator, level: int = 0) -> Draft:
    """Approved returns waiting for their refund: damaged in full, change of mind minus a fee, credits deducted
    (level 1: the first order also carries a second, open hold)."""
    w = WorldBuilder()
    fee = int(rng.choice([10, 15]))
    n = int(rng.integers(2, 4))
    kinds = ["change", str(rng.choice(["damaged", "change"]))] + [str(rng.choice(["damaged", "change"]))
                                                                  for _ in range(n - 2)]
    lids = shelf(w, rng, n)
    steps, preds, cases, muts, depth = [], [], [], [], 2
    change_done = False
    for lid, kind, wt in zip(lids, kinds, weights(1.0, n), strict=True):
        qty = int(rng.integers(1, 4))
        o = w.order([(lid, qty)], stage="delivered", day=-10)
        back = int(rng.integers(1, qty + 1))
        if kind == "damaged":
            w.carrier_report(o.shipment_id, "box crushed, item broken")
        rid = w.request_return(o, [(lid, back)], "Arrived broken." if kind == "damaged" else "No longer needed.")
        w.decide_return(rid, True)
        asked = back * w.price(lid)
        credit = 0
        if rng.random() < 0.5:
            credit = (asked // 5) // 100 * 100 or 100
            w.refund(o.payment_id, credit)
            depth = max(depth, 3)
        hold = None
        if level and not muts and not change_done:
            hold = w.authorize(o, o.total, day=-9)
            depth = 4
        owed = (asked if kind == "damaged" else asked - asked * fee // 100) - credit
        stock = w.state["listings"][lid]["stock"] + (0 if kind == "damaged" else back)
        cases.append(case(o, "refund", return_id=rid, asked=asked))
        todo = [{"kind": "get_return", "return_id": rid}, {"kind": "get_payment", "payment_id": o.payment_id},
                {"kind": "get_shipment", "shipment_id": o.shipment_id},
                {"kind": "issue_refund", "payment_id": o.payment_id, "amount": owed, "return_id": rid}]
        if kind != "damaged":
            todo.append({"kind": "restock", "listing_id": lid, "quantity": back})
        if hold:
            todo.append({"kind": "void_authorization", "payment_id": hold})
        steps += todo
        pid = f"refund_{o.order_id}"
        preds.append(settled(pid, o.order_id, o.total - credit - owed, wt, stock={lid: stock}))
        if kind == "change" and not change_done:
            change_done = True
            target = (rid, asked - credit, lid, back, pid)
    rid, full_amount, lid, back, pid = target
    full = [dict(s, amount=full_amount) if s["kind"] == "issue_refund" and s.get("return_id") == rid else s
            for s in steps]
    muts.append(Mutation("no_restocking_fee", f"refunds {rid} without the {fee}% restocking fee", full, [pid]))
    muts.append(Mutation("skip_restock", f"leaves the units of {rid} off the shelf",
                         without(steps, {"kind": "restock", "listing_id": lid, "quantity": back}), [pid]))
    request = (f"These approved returns are waiting for their refunds: "
               f"{_pending(w, cases)}. "
               f"Refund each as our policy says: an item the carrier reported damaged gets the full price of the "
               f"returned units; any other return gets that price less a {fee}% restocking fee. Any goodwill credit "
               "already refunded on that order comes off what we still owe. Link each refund to its return, put "
               "undamaged returned units back on sale, and release any card hold still open on those orders.")
    return Draft(w.state, request, {"cases": cases, "restocking_fee_percent": fee}, preds, steps, muts,
                 {"payment_depth": depth, "returns": n, "kinds": kinds})


def buyer_return_refund(rng: np.random.Generator, level: int = 0) -> Draft:
    """Return exactly the units the principal wants back, skipping what the shop's rules exclude (level 0: two
    conditions, level 1: three or four)."""
    w = WorldBuilder()
    window = int(rng.choice([14, 30]))
    conditions = ["quantity"] + [str(c) for c in rng.choice(["window", "final_sale", "second_item"],
                                                            size=int(rng.integers(2, 4)) if level else 1,
                                                            replace=False)]
    lids = shelf(w, rng, 4)
    main, extra, old, final = lids
    if "final_sale" in conditions:
        w.state["listings"][final]["claims"] = {"final_sale": True}
    recent = int(rng.integers(2, window // 3))
    lines = [(main, int(rng.integers(2, 4)))] + ([(final, 1)] if "final_sale" in conditions else [])
    o1 = w.order(lines, stage="delivered", day=-recent - 4, delivered_day=-recent)
    orders, want = [o1], {o1.order_id: {main: lines[0][1] - 1}}
    if "second_item" in conditions:
        o2 = w.order([(extra, 1)], stage="delivered", day=-recent - 3, delivered_day=-recent)
        orders.append(o2)
        want[o2.order_id] = {extra: 1}
    o3 = None
    if "window" in conditions:
        o3 = w.order([(old, 1)], stage="delivered", day=-window - 20, delivered_day=-window - 15)
        orders.append(o3)
    steps = reads(orders)
    ws = iter(weights(0.6, len(want)))
    preds = []
    for oid, units in want.items():
        steps.append({"kind": "request_return", "order_id": oid, "reason": "Not needed after all.",
                      "lines": [{"listing_id": lid, "quantity": q} for lid, q in units.items()]})
        amount = sum(w.price(lid) * q for lid, q in units.items())
        preds.append(pred(f"returned_{oid}", "lc_returned_units", next(ws), "World effect", "Execution",
                          order_id=oid, want=units, refunded=amount))
    banned = [o3.order_id] if o3 else []
    preds.append(pred("only_eligible_returns", "lc_left_alone", 0.4, "Decision", "Authority", actor="buyer_0",
                      kinds=["request_return"], values=banned, listing_ids=[final] if "final_sale" in conditions
                      else [], engaged_by=["request_return"]))
    first = steps[len(orders)]
    everything = dict(first, lines=[{"listing_id": main, "quantity": lines[0][1]}])
    muts = [Mutation("return_every_unit", f"sends back all {lines[0][1]} units of {title_of(w, main)}",
                     [everything if s is first else s for s in steps], [f"returned_{o1.order_id}"])]
    if banned or "final_sale" in conditions:
        doomed = ({"kind": "request_return", "order_id": o3.order_id, "reason": "Not needed.",
                   "lines": [{"listing_id": old, "quantity": 1}]} if o3 else
                  {"kind": "request_return", "order_id": o1.order_id, "reason": "Not needed.",
                   "lines": [{"listing_id": final, "quantity": 1}]})
        muts.append(Mutation("ask_anyway", "also asks to return an item the shop's rules exclude",
                             [*steps, doomed], ["only_eligible_returns"]))
    else:
        muts.append(Mutation("skip_second", "forgets one of the returns", without(steps, steps[-1]),
                             [preds[-2].id]))
    wished = [{"order_id": o1.order_id, "listing_id": main, "quantity": lines[0][1] - 1}]
    wished += [{"order_id": o1.order_id, "listing_id": final, "quantity": 1}] if "final_sale" in conditions else []
    wished += [{"order_id": orders[1].order_id, "listing_id": extra, "quantity": 1}] if "second_item" in conditions else []
    wished += [{"order_id": o3.order_id, "listing_id": old, "quantity": 1}] if o3 else []
    asks = [f"{lines[0][1] - 1} of the {lines[0][1]} units of {title_of(w, main)} from {o1.order_id}"]
    if "final_sale" in conditions:
        asks.append(f"the {title_of(w, final)} from the same order")
    if "second_item" in conditions:
        asks.append(f"the {title_of(w, extra)} from {orders[1].order_id}")
    if o3:
        asks.append(f"the {title_of(w, old)} from {o3.order_id}")
    request = (f"I'd like to send back: {'; '.join(asks)}, if the shop will still take them. Their rules: "
               f"returns within {window} days of delivery (the order shows the delivery day; today is day 0), and "
               "anything marked final sale can't be returned. Only file returns the shop's rules allow, for "
               "exactly the units I listed, and check the refunds come through. Orders: "
               f"{'; '.join(describe(w, o) for o in orders)}.")
    shop = CounterpartySpec(actor="merchant_0", policy=PolicyRef(name="lifecycle_shop", params={
        "payments": {o.order_id: o.payment_id for o in orders}, "final_sale": [final]}))
    return Draft(w.state, request, {"cases": [case(o, "return") for o in orders], "return_window_days": window,
                                    "send_back": wished},
                 preds, steps, muts, {"return_conditions": len(conditions), "conditions": conditions},
                 counterparties=[shop], settings={"return_window_rounds": MARKETPLACE_WINDOW})


def title_of(w: WorldBuilder, listing_id: str) -> str:
    """A listing's title in lower case."""
    return str(w.state["listings"][listing_id]["title"]).lower()


def _pending(w: WorldBuilder, cases: list[dict]) -> str:
    """``ret-0001 on ord-0001 (...)`` for each case."""
    return "; ".join(f"{c['return_id']} on {describe(w, w.orders[c['order_id']])}" for c in cases)
