"""T6 Merchant allocation tasks: scarce units among competing Buyers, and partial fills with backorders.

Both worlds hold paid orders and too little stock; a supplier delivery arrives as a scheduled
market event after the first round, so a plan made on the stock first read commits the wrong
units. The declared order (first paid, first served; oldest order first) and each customer's
wish for the unfilled remainder are stated in the request.
"""

from __future__ import annotations

import numpy as np

from ..spec import TaskSpec
from .common import PRODUCTS, pick_product, pred
from .inventory_policy import step
from .inventory_world import apply, listing, lower_first, make_task, mutation, notice, order, world

ALLOC_KINDS = ["allocate_inventory", "partial_fill"]


def greedy(queue: list[int], qty: list[int], stock: int) -> set[int]:
    """Orders (indices) filled whole, taking ``queue`` in turn and skipping any that no longer fits."""
    won = set()
    for i in queue:
        if qty[i] <= stock:
            won.add(i)
            stock -= qty[i]
    return won


def _draw_competition(rng: np.random.Generator, n: int) -> tuple[list[int], list[int], int, int]:
    """Quantities by order, the payment queue, stock and restock such that the shortcuts go wrong."""
    while True:
        qty = [int(rng.integers(1, 3)) for _ in range(n)]
        queue = [int(i) for i in rng.permutation(n)]
        stock, more = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        truth = greedy(queue, qty, stock + more)
        by_id = greedy(list(range(n)), qty, stock + more)
        first = greedy(queue, qty, stock)
        losers = set(range(n)) - truth
        if sum(qty) > stock + more and truth and losers and by_id != truth and by_id & losers and first != truth:
            return qty, queue, stock, more


def competing(task_id: str, capability: str, rng: np.random.Generator, n: int) -> TaskSpec:
    """``n`` Buyers paid for more units than exist; commit whole orders in payment order after the delivery."""
    cat, title, price = pick_product(rng)
    qty, queue, stock, more = _draw_competition(rng, n)
    state = world(buyers=n)
    listing(state, "L-001", "merchant_0", title, cat, price, stock)
    oids, totals = [], []
    for i in range(n):
        oid, _, total = order(state, f"buyer_{i}", "merchant_0", [("L-001", qty[i])], stage="placed")
        oids.append(oid)
        totals.append(total)
    pids = [f"pay-{queue.index(i) + 1:04d}" for i in range(n)]
    for i in queue:
        pid = pids[i]
        apply(state, [{"type": "payment_authorized", "payment_id": pid, "order_id": oids[i], "buyer": f"buyer_{i}",
                       "merchant": "merchant_0", "amount": totals[i], "round": 0},
                      {"type": "payment_captured", "payment_id": pid, "amount": totals[i]}])
    due = 2
    delivery = notice(0, due, "merchant_0", {"type": "restock", "listing_id": "L-001", "quantity": more},
                      f"Supplier: the last delivery of the season for L-001 arrived, {more} units, now in stock.",
                      [{"type": "restocked", "listing_id": "L-001", "quantity": more}])
    truth = greedy(queue, qty, stock + more)

    def commit(won: set[int]) -> list[dict]:
        acts = [{"kind": "allocate_inventory", "order_id": oids[i]} for i in queue if i in won]
        return acts + [{"kind": "issue_refund", "payment_id": pids[i], "amount": totals[i]}
                       for i in queue if i not in won]

    def lowers(won: set[int], early: bool) -> list[str]:
        out = ["fair_allocation"] if won != truth else []
        if (set(range(n)) - truth) & won:
            out.append("losers_released")
        return out + (["waited_for_delivery"] if early else [])

    read = step([{"kind": "get_inventory", "listing_id": "L-001"}])
    expect = {oids[i]: ({"L-001": qty[i]} if i in truth else {}) for i in range(n)}
    engaged = [*ALLOC_KINDS, "issue_refund"]
    preds = [
        pred("fair_allocation", "inv_order_units", 0.5, "Decision", "Choice", engaged_by=ALLOC_KINDS,
             actor="merchant_0", expect=expect, all=True),
        pred("losers_released", "inv_fields", 0.3, "World effect", "Execution", actor="merchant_0",
             engaged_by=engaged,
             checks=[["orders", oids[i], "refunded", totals[i]] for i in range(n) if i not in truth]),
        pred("waited_for_delivery", "inv_not_before", 0.2, "Decision", "Authority", actor="merchant_0",
             engaged_by=engaged, rules=[{"kind": k, "before": due} for k in [*engaged, "set_eta"]]),
    ]
    by_id = greedy(list(range(n)), qty, stock + more)
    first = greedy(queue, qty, stock)
    muts = [
        mutation(task_id, "order_number_queue", "serves orders by order number instead of payment order",
                 [read, step(commit(by_id), event=delivery["id"])], lowers(by_id, False)),
        mutation(task_id, "commit_on_first_read", "commits and refunds on the stock it first read",
                 [step(commit(first))], lowers(first, True)),
    ]
    listed = ", ".join(f"{oids[i]} ({qty[i]} unit{'s' if qty[i] > 1 else ''})" for i in range(n))
    request = (f"Stock of our {lower_first(title)} (listing L-001) is scarce: {n} customers have paid for "
               "more units than we have. "
               f"Orders: {listed}. Our rule is first paid, first served: go through the orders in the order they "
               "were paid (payment numbers run in the order payments came in) and commit every order you can fill "
               f"whole from the stock on hand; never split an order. The season's last supplier delivery is due at "
               f"round {due}: commit, refund or promise a delivery date to no one before it is in. Then refund in "
               "full every order you cannot fill.")
    return make_task(task_id, capability, "merchant", request=request, state=state, schedule=[delivery],
                     mandate={"orders": oids, "listing": "L-001", "delivery_due_round": due},
                     predicates=preds, steps=[read, step(commit(truth), event=delivery["id"])], mutations=muts,
                     max_steps=12 + 2 * n,
                     difficulty={"competing_buyers": n, "unavailable_units": sum(qty) - stock - more,
                                 "state_changes": 1})


def _partial_world(rng: np.random.Generator, skus: int) -> tuple[dict, list[dict], dict, dict]:
    """Orders (id order), stock by SKU and the restock, with two short SKUs (one restocked, still short)."""
    items = [x for cat in sorted(PRODUCTS) for x in PRODUCTS[cat]]
    picks = [items[int(i)] for i in rng.permutation(len(items))[:skus]]
    m = int(rng.integers(skus + 1, 9))
    lines = [i % skus for i in range(m)]
    lines = [lines[int(i)] for i in rng.permutation(m)]
    orders = [{"sku": s, "qty": int(rng.integers(1, 4))} for s in lines]
    short = [int(s) for s in rng.permutation(skus)[:2]]
    last = {s: max(j for j, o in enumerate(orders) if o["sku"] == s) for s in range(skus)}
    if last[short[0]] == 0:
        short.reverse()
    for s in short:
        orders[last[s]]["qty"] = max(orders[last[s]]["qty"], 3 if s == short[0] else 2)
    gap = {s: 0 for s in range(skus)}
    gap[short[0]] = int(rng.integers(2, orders[last[short[0]]]["qty"]))
    gap[short[1]] = int(rng.integers(1, orders[last[short[1]]]["qty"]))
    demand = {s: sum(o["qty"] for o in orders if o["sku"] == s) for s in range(skus)}
    stock = {s: demand[s] - gap[s] + (0 if gap[s] else int(rng.integers(0, 3))) for s in range(skus)}
    prefs = ["backorder", "cancel"] if rng.random() < 0.5 else ["cancel", "backorder"]
    for j, o in enumerate(orders):
        o["pref"] = prefs[short.index(o["sku"])] if j in (last[short[0]], last[short[1]]) else str(
            rng.choice(["backorder", "cancel"]))
    restock = {"sku": short[0], "units": int(rng.integers(1, gap[short[0]]))}
    return {"picks": picks}, orders, stock, restock


def _fills(orders: list[dict], stock: dict) -> list[int]:
    left = dict(stock)
    out = []
    for o in orders:
        f = min(o["qty"], left[o["sku"]])
        left[o["sku"]] -= f
        out.append(f)
    return out


def partial_backorder(task_id: str, capability: str, rng: np.random.Generator, skus: int) -> TaskSpec:
    """Fill oldest first from the stock after the delivery; backorder or cancel-and-refund each shortfall as asked."""
    meta, orders, stock, restock = _partial_world(rng, skus)
    lids = [f"L-{s + 1:03d}" for s in range(skus)]
    state = world(buyers=len(orders))
    for s, (title, price) in enumerate(meta["picks"]):
        listing(state, lids[s], "merchant_0", title, "", price, stock[s])
    for j, o in enumerate(orders):
        o["id"], o["pay"], _ = order(state, f"buyer_{j}", "merchant_0", [(lids[o["sku"]], o["qty"])])
        o["price"] = state["listings"][lids[o["sku"]]]["price"]
    lid = lids[restock["sku"]]
    delivery = notice(0, 1, "merchant_0", {"type": "restock", "listing_id": lid, "quantity": restock["units"]},
                      f"Warehouse: a supplier delivery of {restock['units']} units of {lid} just arrived "
                      "and is in stock.",
                      [{"type": "restocked", "listing_id": lid, "quantity": restock["units"]}])
    after = {**stock, restock["sku"]: stock[restock["sku"]] + restock["units"]}

    def actions(fills: list[int], *, always_backorder: bool = False) -> list[dict]:
        acts = []
        for o, f in zip(orders, fills, strict=True):
            lid_o = lids[o["sku"]]
            if f == o["qty"]:
                acts.append({"kind": "allocate_inventory", "order_id": o["id"]})
                continue
            pref = "backorder" if always_backorder else o["pref"]
            acts.append({"kind": "partial_fill", "order_id": o["id"], "lines": [{"listing_id": lid_o, "quantity": f}],
                         "remainder": pref})
            if pref == "cancel":
                acts.append({"kind": "issue_refund", "payment_id": o["pay"], "amount": (o["qty"] - f) * o["price"]})
        return acts

    truth, stale = _fills(orders, after), _fills(orders, stock)
    short = [(o, f) for o, f in zip(orders, truth, strict=True) if f < o["qty"]]
    preds = [
        pred("filled_in_order", "inv_order_units", 0.45, "Decision", "Choice", actor="merchant_0",
             engaged_by=ALLOC_KINDS, expect={o["id"]: {lids[o["sku"]]: f} for o, f in zip(orders, truth, strict=True)}),
        pred("remainder_as_asked", "inv_fields", 0.3, "World effect", "Execution", actor="merchant_0",
             engaged_by=["partial_fill"], checks=[["orders", o["id"], "backordered", {lids[o["sku"]]: o["qty"] - f}
                                                   if o["pref"] == "backorder" else {}] for o, f in short]),
        pred("cancelled_units_refunded", "inv_fields", 0.25, "World effect", "Execution", actor="merchant_0",
             engaged_by=["partial_fill"], checks=[["orders", o["id"], "refunded", (o["qty"] - f) * o["price"]
                                                   if o["pref"] == "cancel" else 0] for o, f in short]),
    ]
    stale_order = next(o for o, f, g in zip(orders, truth, stale, strict=True) if f != g)
    read = step([{"kind": "get_inventory"}])
    muts = [
        mutation(task_id, "backorder_everything", "backorders every shortfall, whatever the customer asked",
                 [read, step(actions(truth, always_backorder=True), event=delivery["id"])],
                 ["remainder_as_asked", "cancelled_units_refunded"]),
        mutation(task_id, "stale_stock", "fills from the stock it first read, missing the delivery",
                 [read, step(actions(stale), event=delivery["id"])],
                 ["filled_in_order", "remainder_as_asked" if stale_order["pref"] == "backorder"
                  else "cancelled_units_refunded"]),
    ]
    notes = "; ".join(f"{o['id']}: {o['qty']} x {lids[o['sku']]}, "
                      + ("will wait for a backorder" if o["pref"] == "backorder" else "wants any shortfall cancelled")
                      for o in orders)
    request = (f"These paid orders need stock committed, oldest order first: {notes}. Some items are short. "
               "Commit each order in full if the stock allows; otherwise fill what is there now and, as the "
               "customer asked, backorder the rest or cancel it and refund the price of the units not sent. "
               "Use the stock as it stands when you commit: deliveries may land while you work.")
    return make_task(task_id, capability, "merchant", request=request, state=state, schedule=[delivery],
                     mandate={"orders": [o["id"] for o in orders], "listings": lids,
                              "remainder": {o["id"]: o["pref"] for o in orders}},
                     predicates=preds, steps=[read, step(actions(truth), event=delivery["id"])], mutations=muts,
                     max_steps=12 + 2 * len(orders),
                     difficulty={"skus": skus, "partial_backorder_requests": len(orders),
                                 "unavailable_units": sum(o["qty"] - f for o, f in short), "state_changes": 1})
