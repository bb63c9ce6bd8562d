"""T7 order closure: cancellations (Merchant and Buyer) and the Merchant's ledger close.

Factors: order stage (placed to delivered), payment-state depth (an authorisation, a capture,
a second hold on the same order), and 2 to 5 affected ledger records (orders to settle).
"""

from __future__ import annotations

import numpy as np

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

_DEPTH = {"placed": 1, "authorized": 2, "paid": 3, "allocated": 3, "shipped": 3, "delivered": 3}


def merchant_cancel(rng: np.random.Generator, level: int = 0) -> Draft:
    """Customers ask to cancel 2-4 orders; policy: cancel only until the order is packed (level 1: a paid
    order carries a second hold)."""
    w = WorldBuilder()
    n = int(rng.integers(2, 5))
    stages = ["paid" if level else str(rng.choice(["placed", "authorized"])), "allocated"]
    stages += [str(rng.choice(["placed", "authorized", "paid", "allocated", "shipped"])) for _ in range(n - 2)]
    stages = [stages[int(i)] for i in rng.permutation(n)]
    lids = shelf(w, rng, n)
    orders = [w.order([(lid, int(rng.integers(1, 3)))], stage=s, day=-3) for lid, s in zip(lids, stages, strict=True)]
    depth = max(_DEPTH[s] for s in stages)
    paid = [o for o, s in zip(orders, stages, strict=True) if s == "paid"]
    if paid and level:  # a second, accidental hold on a paid order
        w.authorize(paid[0], paid[0].total, day=-2)
        depth = 4
    cancel = [o for o, s in zip(orders, stages, strict=True) if s in {"placed", "authorized", "paid"}]
    keep = [o for o in orders if o not in cancel]
    steps = reads(orders)
    for o in cancel:
        steps += [{"kind": "cancel_order", "order_id": o.order_id, "reason": "Customer asked before packing."},
                  {"kind": "close_ledger", "order_id": o.order_id}]
    ws = weights(0.55, len(cancel))
    preds = [settled(f"settled_{o.order_id}", o.order_id, 0, wt, closed=True, statuses=["closed"])
             for o, wt in zip(cancel, ws, strict=True)]
    preds.append(pred("packed_kept", "lc_left_alone", 0.45, "Decision", "Authority", actor="merchant_0",
                      kinds=["cancel_order"], values=[o.order_id for o in keep],
                      checks=[field_check("orders", o.order_id, "status", w.state["orders"][o.order_id]["status"])
                              for o in keep], engaged_by=["cancel_order", "close_ledger"]))
    target = next((o for o, s in zip(orders, stages, strict=True) if s == "allocated"), keep[0])
    muts = [Mutation("cancel_packed", f"cancels the packed order {target.order_id}",
                     [*steps, {"kind": "cancel_order", "order_id": target.order_id}], ["packed_kept"]),
            Mutation("books_left_open", f"cancels {cancel[0].order_id} but leaves its ledger open",
                     without(steps, {"kind": "close_ledger", "order_id": cancel[0].order_id}),
                     [f"settled_{cancel[0].order_id}"])]
    request = (f"Customers asked us to cancel these orders today: {'; '.join(describe(w, o) for o in orders)}. "
               "Our rule: an order can be cancelled free of charge until we have packed it (stock set aside "
               "for it, or already shipped). Once it is packed we refuse the cancellation; the customer can "
               "return it after delivery. For every order you do cancel, make sure no money stays held or "
               "kept for it and close its books. Leave the packed ones exactly as they are.")
    return Draft(w.state, request, {"cases": [case(o, "cancel") for o in orders]}, preds, steps, muts,
                 {"order_stages": stages, "payment_depth": depth, "orders_to_cancel": len(cancel)})


def buyer_cancel(rng: np.random.Generator, level: int = 0) -> Draft:
    """The principal moves on day D: cancel orders arriving later unless shipped (level 1: release a stray
    hold on a kept order)."""
    w = WorldBuilder()
    n = int(rng.integers(2, 5))
    deadline = int(rng.integers(5, 9))
    lids = shelf(w, rng, n)
    plan = [("late", str(rng.choice(["placed", "authorized", "paid", "allocated"]))),
            ("on_time", "paid" if level else str(rng.choice(["authorized", "paid"])))]
    for _ in range(n - 2):
        plan.append((str(rng.choice(["late", "on_time"])), str(rng.choice(["authorized", "paid", "shipped"]))))
    plan = [plan[int(i)] for i in rng.permutation(n)]
    orders = []
    for lid, (when, stage) in zip(lids, plan, strict=True):
        o = w.order([(lid, 1)], stage=stage, day=-2)
        eta = deadline + int(rng.integers(2, 6)) if when == "late" else deadline - int(rng.integers(0, 4))
        w.eta(o, eta)
        orders.append(o)
    cancel = [o for o, (when, stage) in zip(orders, plan, strict=True) if when == "late" and stage != "shipped"]
    keep = [o for o in orders if o not in cancel]
    paid_keep = [o for o, (when, stage) in zip(orders, plan, strict=True) if o in keep and stage == "paid"]
    extra = None
    if paid_keep and level:
        extra = w.authorize(paid_keep[0], paid_keep[0].total, day=-1)
    steps = reads(orders) + [{"kind": "cancel_order", "order_id": o.order_id, "reason": "It arrives too late."}
                             for o in cancel]
    c_total, k_total = (0.4, 0.4) if extra else (0.45, 0.55)
    preds = [settled(f"cancelled_{o.order_id}", o.order_id, 0, wt, statuses=["cancelled"])
             for o, wt in zip(cancel, weights(c_total, len(cancel)), strict=True)]
    preds.append(pred("kept_orders", "lc_left_alone", k_total, "Decision", "Choice", actor="buyer_0",
                      kinds=["cancel_order"], values=[o.order_id for o in keep],
                      checks=[field_check("orders", o.order_id, "status", w.state["orders"][o.order_id]["status"])
                              for o in keep], engaged_by=["cancel_order", "void_authorization"]))
    muts = []
    hold = ""
    if extra:
        o = paid_keep[0]
        void = {"kind": "void_authorization", "payment_id": extra}
        steps.append(void)
        preds.append(pred("extra_hold_released", "lc_fields", 0.2, "World effect", "Execution",
                          checks=[field_check("payments", extra, "status", "voided"),
                                  field_check("payments", o.payment_id or "", "status", "captured"),
                                  field_check("orders", o.order_id, "status", "paid")]))
        muts.append(Mutation("leave_hold", f"leaves the second hold {extra} on {o.order_id}",
                             without(steps, void), ["extra_hold_released"]))
        hold = (" Also, my card shows two holds for one of these orders; release the one it does not need, "
                "but keep that order.")
    target = next((o for o in keep if not paid_keep or o is not paid_keep[0] or not extra), keep[0])
    lowers = ["kept_orders"] + (["extra_hold_released"] if extra and target is paid_keep[0] else [])
    muts += [Mutation("cancel_on_time", f"cancels {target.order_id}, which arrives in time or already shipped",
                      [*steps, {"kind": "cancel_order", "order_id": target.order_id}], lowers),
             Mutation("keep_late", f"keeps {cancel[0].order_id}, which arrives too late",
                      without(steps, steps[len(orders)]),
                      [f"cancelled_{cancel[0].order_id}"] + ([] if extra or len(cancel) > 1 else ["kept_orders"]))]
    request = (f"I'm moving out on day {deadline} (today is day 0), so anything arriving after that is no use to "
               f"me. My open orders: {'; '.join(describe(w, o) for o in orders)}. Check each one: cancel any "
               "order the shop's promised arrival day puts after my move, as long as it hasn't shipped yet (if "
               "it's already on its way, leave it; I'll send it back later). Keep everything arriving in time, "
               f"and make sure I get my money back on whatever you cancel.{hold}")
    depth = 4 if extra else max(_DEPTH[s] for _, s in plan)
    return Draft(w.state, request, {"cases": [case(o, "cancel") for o in orders], "move_day": deadline}, preds,
                 steps, muts, {"order_stages": [s for _, s in plan], "payment_depth": depth,
                               "orders_to_cancel": len(cancel)})


def merchant_ledger_close(rng: np.random.Generator, level: int = 0) -> Draft:
    """Close the books of every finished order after making its records agree; leave unfinished ones open
    (level 0: 2-3 orders, level 1: 4-5)."""
    w = WorldBuilder()
    n = int(rng.integers(4, 6)) if level else int(rng.integers(2, 4))
    kinds = [str(rng.choice(["hold", "return"])), str(rng.choice(["pending_return", "dispute"]))]
    kinds += [str(rng.choice(["clean", "hold", "return"] if k == 0 else
                             ["clean", "hold", "return", "pending_return", "dispute", "transit"]))
              for k in range(n - 2)]
    kinds = [kinds[int(i)] for i in rng.permutation(n)]
    lids = shelf(w, rng, n)
    steps, preds, cases, work, leave = [], [], [], [], []
    closing = [k for k in kinds if k in {"clean", "hold", "return"}]
    ws = iter(weights(0.6, len(closing)))
    for lid, kind in zip(lids, kinds, strict=True):
        qty = int(rng.integers(2, 4)) if kind in {"return", "pending_return"} else 1
        o = w.order([(lid, qty)], stage="shipped" if kind == "transit" else "delivered", day=-14)
        cases.append(case(o, "close"))
        steps.append({"kind": "get_ledger", "order_id": o.order_id})
        if kind in {"pending_return", "dispute", "transit"}:
            leave.append(o)
            if kind == "pending_return":
                cases[-1]["return_id"] = w.request_return(o, [(lid, 1)], "Changed my mind.")
                cases[-1]["asked"] = w.price(lid)
            elif kind == "dispute":
                cases[-1]["dispute_id"] = w.dispute(o, "not_as_described", [o.order_id])
            continue
        stock = {lid: w.state["listings"][lid]["stock"]}
        net, todo = o.total, []
        if kind == "hold":
            todo = [{"kind": "void_authorization", "payment_id": w.authorize(o, o.total, day=-13)}]
        elif kind == "return":
            back = int(rng.integers(1, qty + 1))
            rid = w.request_return(o, [(lid, back)], "Did not fit.")
            w.decide_return(rid, True)
            amount = back * w.price(lid)
            net, stock = o.total - amount, {lid: stock[lid] + back}
            cases[-1].update(return_id=rid, asked=amount)
            todo = [{"kind": "issue_refund", "payment_id": o.payment_id, "amount": amount, "return_id": rid},
                    {"kind": "restock", "listing_id": lid, "quantity": back}]
        steps += [*todo, {"kind": "close_ledger", "order_id": o.order_id}]
        preds.append(settled(f"closed_{o.order_id}", o.order_id, net, next(ws), closed=True, stock=stock))
        if todo:
            work.append((o, todo[0]))
    preds.append(pred("unfinished_left_open", "lc_left_alone", 0.4, "Decision", "Authority", actor="merchant_0",
                      kinds=["close_ledger"], values=[o.order_id for o in leave],
                      checks=[field_check("ledger", o.order_id, "closed", False) for o in leave],
                      engaged_by=["close_ledger"]))
    o, first = work[0]
    muts = [Mutation("close_unfinished", f"closes the books of {leave[0].order_id}, which is still in progress",
                     [*steps, {"kind": "close_ledger", "order_id": leave[0].order_id}], ["unfinished_left_open"]),
            Mutation("skip_settlement", f"closes {o.order_id} without its {first['kind'].replace('_', ' ')}",
                     without(steps, first), [f"closed_{o.order_id}"])]
    on_file = ", ".join(sorted(x for c in cases for x in (c.get("return_id"), c.get("dispute_id")) if x)) or "none"
    request = (f"Month-end: please close the books on these orders: "
               f"{'; '.join(describe(w, o) for o in w.orders.values())}. Close an order only once its business "
               "is finished: delivered, no return waiting for our decision, no open customer dispute. Before "
               "closing, make every record agree: no card hold left open beyond what we captured, every approved "
               "return refunded (linked to that return) for the units sent back (item price, nothing more) with "
               "those units back on the shelf. Anything unfinished stays open. Customer records on file for "
               f"these orders: {on_file}.")
    return Draft(w.state, request, {"cases": cases}, preds, steps, muts,
                 {"ledger_records": n, "order_kinds": kinds, "payment_depth": 4 if "hold" in kinds else 3})
