"""T6 Merchant supply tasks: truthful stock and delivery estimates, and restock and repricing.

Supplier notices (new delivery dates, deliveries received, cost changes) are scheduled market
events. An estimate or a price must follow the fact that holds in the round it is set; stock
may be booked only once it has arrived; the stock reported at the end is the World's.
"""

from __future__ import annotations

import numpy as np

from ..spec import TaskSpec
from .common import PRODUCTS, dollars, pick_product, pred, to_dollar
from .inventory_policy import step
from .inventory_world import listing, lower_first, make_task, mutation, notice, order, world

SHIPPING = 2
"""Rounds from the supplier's delivery to the customer's door, as the requests state."""
MARKUP = 1.4
"""Price = supplier cost plus 40 %, rounded to whole dollars."""


def inventory_eta(task_id: str, capability: str, rng: np.random.Generator, skus: int, changes: int) -> TaskSpec:
    """Waiting orders get the supplier's current date plus shipping; the final stock report reads the World."""
    items = [x for cat in sorted(PRODUCTS) for x in PRODUCTS[cat]]
    picks = [items[int(i)] for i in rng.permutation(len(items))[:skus]]
    waiting = int(rng.integers(1, skus))
    lids = [f"L-{s + 1:03d}" for s in range(skus)]
    stock = [0 if s < waiting else int(rng.integers(2, 7)) for s in range(skus)]
    state = world(buyers=waiting)
    for s, (title, price) in enumerate(picks):
        listing(state, lids[s], "merchant_0", title, "", price, stock[s])
    oids = [order(state, f"buyer_{s}", "merchant_0", [(lids[s], int(rng.integers(1, 3)))])[0] for s in range(waiting)]
    first_change = waiting + 1  # after the opening estimates are all set
    close = first_change + 2 * (changes - 1)
    date = {s: close + 3 + 2 * s for s in range(waiting)}
    schedule = [notice(s, 0, "merchant_0", {"type": "supplier_date", "listing_id": lids[s], "delivery_round": date[s]},
                       f"Supplier: the next delivery of {lids[s]} is due at round {date[s]}.") for s in range(waiting)]
    kinds = ["delay", "restock"] + [str(rng.choice(["delay", "restock"])) for _ in range(changes - 2)]
    kinds = [kinds[0]] + [kinds[int(i) + 1] for i in rng.permutation(changes - 1)]
    timeline = {oids[s]: [[0, date[s] + SHIPPING]] for s in range(waiting)}
    ref = [step([{"kind": "set_eta", "order_id": oids[s], "eta_round": date[s] + SHIPPING} for s in range(waiting)]
                + [{"kind": "get_inventory"}])]
    ignore = [ref[0]]
    bare = [step([{"kind": "set_eta", "order_id": oids[s], "eta_round": date[s]} for s in range(waiting)])]
    final_stock = list(stock)
    for c, kind in enumerate(kinds):
        rd, idx = first_change + 2 * c, len(schedule)
        if kind == "delay":
            s = int(rng.integers(waiting))
            date[s] += int(rng.integers(2, 5))
            item = notice(idx, rd, "merchant_0", {"type": "supplier_date", "listing_id": lids[s],
                                                  "delivery_round": date[s]},
                          f"Supplier: the delivery of {lids[s]} slipped; it is now due at round {date[s]}.")
            timeline[oids[s]].append([rd, date[s] + SHIPPING])
            ref.append(step([{"kind": "set_eta", "order_id": oids[s], "eta_round": date[s] + SHIPPING}],
                            event=item["id"]))
            bare.append(step([{"kind": "set_eta", "order_id": oids[s], "eta_round": date[s]}], event=item["id"]))
        else:
            s = int(rng.integers(waiting, skus))
            units = int(rng.integers(2, 6))
            final_stock[s] += units
            item = notice(idx, rd, "merchant_0", {"type": "restock", "listing_id": lids[s], "quantity": units},
                          f"Warehouse: {units} units of {lids[s]} arrived and were booked into stock.",
                          [{"type": "restocked", "listing_id": lids[s], "quantity": units}])
            ref.append(step([{"kind": "get_inventory", "listing_id": lids[s]}], event=item["id"]))
        schedule.append(item)

    def report(values: list[int]) -> dict:
        return {"kind": "submit_answer", "answer": {lid: v for lid, v in zip(lids, values, strict=True)},
                "evidence": list(lids), "rationale": "Stock on hand after the last supplier notice."}

    last = step([{"kind": "get_inventory"}], round_=close)
    preds = [
        pred("eta_current", "inv_fields", 0.35, "World effect", "Execution",
             checks=[["orders", o, "eta_round", timeline[o][-1][1]] for o in oids]),
        pred("eta_truthful", "inv_timed_values", 0.25, "Decision", "Evidence", actor="merchant_0",
             engaged_by=["set_eta"], kind="set_eta", key_field="order_id", value_field="eta_round", timeline=timeline),
        pred("stock_reported", "inv_answer_world", 0.4, "Decision", "Evidence", actor="merchant_0", table="listings",
             field="stock", keys=lids),
    ]
    muts = [
        mutation(task_id, "stale_stock", "reports the stock it read at the start",
                 [*ref, last], ["stock_reported"], report(stock)),
        mutation(task_id, "no_shipping_time", "promises the supplier's date, forgetting the shipping rounds",
                 [*bare, last], ["eta_current", "eta_truthful"], report(final_stock)),
        mutation(task_id, "ignore_date_changes", "sets each estimate once and never follows a slip",
                 [*ignore, last], ["eta_current"], report(final_stock)),
    ]
    waiting_text = ", ".join(f"{oids[s]} ({lower_first(picks[s][0])}, {lids[s]})" for s in range(waiting))
    request = (f"Customers are waiting for items we're out of: {waiting_text}. The supplier sends delivery dates as "
               "notices and sometimes changes them. Keep each waiting order's delivery estimate at the supplier's "
               f"current date for its item plus {SHIPPING} rounds of shipping, and update it whenever a date moves. "
               f"After the supplier notices stop (round {close}), report how many units of each of our listings "
               f"({', '.join(lids)}) are in stock right now, as listing to units.")
    return make_task(task_id, capability, "merchant", request=request, state=state, schedule=schedule,
                     mandate={"orders": oids, "listings": lids, "shipping_rounds": SHIPPING,
                              "notices_close_round": close},
                     predicates=preds, steps=[*ref, last], mutations=muts, max_steps=20 + 2 * changes,
                     final=report(final_stock), difficulty={"skus": skus, "state_changes": changes})


def price_for(cost: int) -> int:
    """The price the pricing rule sets for a unit cost."""
    return to_dollar(cost * MARKUP)


def restock_price(task_id: str, capability: str, rng: np.random.Generator, changes: int) -> TaskSpec:
    """A delivery is announced, then arrives short; the unit cost changes once or twice."""
    cat, title, p0 = pick_product(rng)
    cost0 = to_dollar(p0 / MARKUP)
    s0, sent = int(rng.integers(2, 7)), int(rng.integers(4, 9))
    damaged = int(rng.integers(1, 3))
    got = sent - damaged
    c1 = to_dollar(cost0 * rng.uniform(1.1, 1.25))
    c2 = to_dollar(c1 * rng.uniform(1.06, 1.15))
    while price_for(c2) in {price_for(cost0), price_for(c1)}:
        c2 += 100
    state = world()
    listing(state, "L-001", "merchant_0", title, cat, price_for(cost0), s0)
    sched = [notice(0, 1, "merchant_0", {"type": "dispatch", "listing_id": "L-001", "quantity": sent,
                                         "arrival_round": 5},
                    f"Supplier: {sent} units of L-001 dispatched, due to arrive around round 5."),
             notice(1, 3, "merchant_0", {"type": "cost_change", "listing_id": "L-001", "unit_cost": c1},
                    f"Supplier: the unit cost of L-001 is now {dollars(c1)} (was {dollars(cost0)})."),
             notice(2, 5, "merchant_0", {"type": "delivery", "listing_id": "L-001", "received": got,
                                         "damaged": damaged},
                    f"Warehouse: the L-001 delivery arrived: {got} units in good condition, {damaged} damaged and "
                    "sent back.")]
    if changes == 4:
        sched.append(notice(3, 7, "merchant_0", {"type": "cost_change", "listing_id": "L-001", "unit_cost": c2},
                            f"Supplier: the unit cost of L-001 is now {dollars(c2)} (was {dollars(c1)})."))
    costs = [[0, cost0], [3, c1]] + ([[7, c2]] if changes == 4 else [])

    def plan(*, dispatch: bool = False, markup: bool = True, last_cost: bool = True) -> list[dict]:
        out = [step([{"kind": "get_inventory", "listing_id": "L-001"}])]
        if dispatch:
            out.append(step([{"kind": "restock", "listing_id": "L-001", "quantity": sent}], event=sched[0]["id"]))
        for (rd, cost), item in zip(costs[1:], [sched[1], *sched[3:]], strict=True):
            if last_cost or rd == 3:
                price = price_for(cost) if markup else cost
                out.append(step([{"kind": "update_listing", "listing_id": "L-001", "price": price}], event=item["id"]))
            if rd == 3 and not dispatch:
                out.append(step([{"kind": "restock", "listing_id": "L-001", "quantity": got}], event=sched[2]["id"]))
        return out

    preds = [
        pred("stock_booked", "inv_fields", 0.35, "World effect", "Execution",
             checks=[["listings", "L-001", "stock", s0 + got]]),
        pred("price_current", "inv_fields", 0.35, "World effect", "Execution",
             checks=[["listings", "L-001", "price", price_for(costs[-1][1])]]),
        pred("no_phantom_stock", "inv_stock_never_ahead", 0.15, "Decision", "Authority", actor="merchant_0",
             engaged_by=["restock", "update_listing"], listing="L-001", initial=s0, arrivals=[[5, got]]),
        pred("price_follows_cost", "inv_timed_values", 0.15, "Decision", "Evidence", actor="merchant_0",
             engaged_by=["update_listing"], kind="update_listing", key_field="listing_id", value_field="price",
             timeline={"L-001": [[r, price_for(c)] for r, c in costs]}),
    ]
    muts = [
        mutation(task_id, "book_on_dispatch", "books the dispatched units as soon as they are announced",
                 plan(dispatch=True), ["stock_booked", "no_phantom_stock"]),
        mutation(task_id, "cost_as_price", "sets the price to the new cost, dropping the markup",
                 plan(markup=False), ["price_current", "price_follows_cost"]),
    ]
    if changes == 4:
        muts.append(mutation(task_id, "first_cost_only", "reprices for the first cost change and misses the second",
                             plan(last_cost=False), ["price_current"]))
    close = sched[-1]["round"]
    request = (f"You run our listing L-001 ({lower_first(title)}). The supplier will send notices about shipments and "
               "cost changes. Book stock only once it has actually arrived, exactly the units received in good "
               "condition (restock the listing). Our price is always the supplier's current unit cost plus 40%, "
               f"rounded to the nearest dollar (now {dollars(price_for(cost0))} on a cost of {dollars(cost0)}): "
               f"reprice as soon as the cost changes. Notices stop after round {close}.")
    return make_task(task_id, capability, "merchant", request=request, state=state, schedule=sched,
                     mandate={"listing": "L-001", "markup_percent": 40, "unit_cost": cost0,
                              "notices_close_round": close},
                     predicates=preds, steps=plan(), mutations=muts, max_steps=20,
                     difficulty={"state_changes": changes, "skus": 1})
