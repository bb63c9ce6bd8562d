"""T6 Buyer tasks: restock and price alerts, substitutes for a sold-out item, partial stock with a
backorder, and carrier exceptions on parcels in transit.

Each builder draws a World and a schedule of supply changes from ``rng`` and returns the task
with its predicates, reference plan and mutations (each a plan making one wrong decision,
declaring exactly the predicates it lowers).
"""

from __future__ import annotations

import numpy as np

from ..spec import PredicateSpec, TaskSpec
from .common import dollars, pick_product, pred, to_dollar
from .inventory_policy import LAST_ORDER, step
from .inventory_world import listing, lower_first, make_task, mutation, notice, order, pick, world

BOUGHT, PAID = "bought_within_limit", "paid_in_full"


def buy(merchant: str, listing_id: str, units: int) -> dict:
    """A list-price order of ``units`` of one listing."""
    return {"kind": "place_order", "merchant_id": merchant, "lines": [{"listing_id": listing_id, "quantity": units}]}


def pay(amount: int) -> dict:
    """Authorise the order just placed for ``amount``."""
    return {"kind": "authorize_payment", "order_id": LAST_ORDER, "amount": amount}


def _paid(weight: float) -> PredicateSpec:
    """Every live order of the Buyer carries one payment for exactly its total."""
    return pred(PAID, "inv_orders_paid", weight, "World effect", "Execution", actor="buyer_0")


def restock_price(task_id: str, capability: str, rng: np.random.Generator, changes: int) -> TaskSpec:
    """Out of stock at a fitting price; it returns dearer, and only a later change opens the window."""
    cat, title, p0 = pick_product(rng)
    q = int(rng.integers(1, 4))
    limit = to_dollar(p0 * 1.05)
    hi1 = to_dollar(limit * rng.uniform(1.15, 1.3))
    hi2 = max(limit + 100, to_dollar((limit + hi1) / 2))
    lo = to_dollar(limit * rng.uniform(0.86, 0.95))
    if lo == p0:
        lo -= 100
    stock = q + int(rng.integers(1, 4))
    state = world()
    listing(state, "L-001", "merchant_0", title, cat, p0, 0)
    name = f"L-001 ({lower_first(title)})"
    plan = [("restock", hi1)] + ([("price", hi2)] if changes >= 3 else []) + [("price", lo)]
    plan += [("price", hi1)] if changes == 4 else []
    schedule = []
    for i, (what, price) in enumerate(plan):
        rd = 2 + 3 * i
        ev = [{"type": "listing_updated", "listing_id": "L-001", "price": price}]
        if what == "restock":
            ev.insert(0, {"type": "restocked", "listing_id": "L-001", "quantity": stock})
            text = f"Stock alert: {name} is back in stock, {stock} units, now {dollars(price)} each."
        else:
            text = f"Price alert: {name} now costs {dollars(price)} each."
        schedule.append(notice(i, rd, "buyer_0", {"type": what, "listing_id": "L-001", "price": price,
                                                  **({"stock": stock} if what == "restock" else {})}, text, ev))
    window = schedule[len(plan) - (2 if changes == 4 else 1)]
    preds = [pred(BOUGHT, "inv_buyer_orders", 0.5, "Decision", "Choice", actor="buyer_0", expect={"L-001": q},
                  max_price={"L-001": limit}),
             _paid(0.3),
             pred("waited_for_price", "inv_not_before", 0.2, "Decision", "Authority", actor="buyer_0",
                  engaged_by=["place_order"], rules=[{"kind": "place_order", "before": window["round"]}])]
    read = step([{"kind": "get_listing", "listing_id": "L-001"}])
    steps = [read, step([buy("merchant_0", "L-001", q), pay(q * lo)], event=window["id"])]
    muts = [
        mutation(task_id, "buy_on_restock", "buys as soon as stock returns, at the raised price",
                 [read, step([buy("merchant_0", "L-001", q), pay(q * hi1)], event=schedule[0]["id"])],
                 [BOUGHT, "waited_for_price"]),
        mutation(task_id, "pay_first_price", "pays the price it first read, not the current one",
                 [read, step([buy("merchant_0", "L-001", q), pay(q * p0)], event=window["id"])], [PAID]),
        mutation(task_id, "overbuy", "buys one unit more than asked",
                 [read, step([buy("merchant_0", "L-001", q + 1), pay((q + 1) * lo)], event=window["id"])], [BOUGHT]),
    ]
    request = (f"I've been waiting for the {lower_first(title)} from merchant_0 (listing L-001); "
               "it's out of stock at the "
               f"moment. I need {q} and won't pay more than {dollars(limit)} each. The shop sends stock and price "
               "alerts and its prices move around. Buy them once they're in stock at a price within my limit, pay "
               f"for the order, and never buy at a higher price. The alerts stop after round {schedule[-1]['round']}.")
    return make_task(task_id, capability, "buyer", request=request, state=state, schedule=schedule,
                     mandate={"listing": "L-001", "merchant": "merchant_0", "quantity": q, "limit_per_unit": limit},
                     predicates=preds, steps=steps, mutations=muts, max_steps=24,
                     difficulty={"state_changes": changes, "skus": 1})


SIZES = ["compact", "standard", "large"]
COLOURS = ["black", "stone", "olive", "navy", "sand", "white"]


def substitution(task_id: str, capability: str, rng: np.random.Generator, n_subs: int) -> TaskSpec:
    """The ordered item sold out; exactly one of ``n_subs`` substitutes fits and is cheapest among those that do."""
    cat, title, p0 = pick_product(rng)
    title = title.split(",")[0]  # the size is a variant here, not part of the product name
    q = int(rng.integers(1, 3))
    size = pick(rng, SIZES)
    other = pick(rng, [s for s in SIZES if s != size])
    colours = [COLOURS[int(i)] for i in rng.permutation(len(COLOURS))]
    limit = to_dollar(p0 * 1.15)
    kinds = ["best", "wrong_size", "over_limit", "low_stock", "pricier"][:n_subs]
    spec = {"best": (size, to_dollar(p0 * 0.97), q + 2), "wrong_size": (other, to_dollar(p0 * 0.85), q + 3),
            "over_limit": (size, limit + to_dollar(p0 * 0.1), q + 3), "low_stock": (size, to_dollar(p0 * 0.9), q - 1),
            "pricier": (size, limit, q + 2)}
    state = world(merchants=2)
    listing(state, "L-001", "merchant_0", f"{title} ({size}, {colours[0]})", cat, p0, q,
            {"size": size, "colour": colours[0]})
    oid, _, _ = order(state, "buyer_0", "merchant_0", [("L-001", q)], stage="placed")
    ids = {}
    for j, i in enumerate(rng.permutation(len(kinds))):
        kind, lid = kinds[int(i)], f"L-{j + 2:03d}"
        sz, price, stock = spec[kind]
        listing(state, lid, f"merchant_{j % 2}", f"{title} ({sz}, {colours[j + 1]})", cat, price, stock,
                {"size": sz, "colour": colours[j + 1]})
        ids[kind] = lid
    best, best_price, merchant = ids["best"], spec["best"][1], state["listings"][ids["best"]]["merchant"]
    schedule = [notice(0, 0, "buyer_0", {"type": "sold_out", "listing_id": "L-001", "order_id": oid},
                       f"Order {oid} was cancelled by merchant_0: L-001 sold out and no restock is planned.",
                       [{"type": "listing_updated", "listing_id": "L-001", "stock": 0},
                        {"type": "order_cancelled", "order_id": oid}])]
    unfit = [{"listing_id": ids[k]} for k in ("wrong_size", "over_limit", "low_stock") if k in ids]
    preds = [pred(BOUGHT, "inv_buyer_orders", 0.5, "Decision", "Choice", actor="buyer_0", expect={best: q},
                  max_price={best: limit}),
             _paid(0.3),
             pred("no_unfit_order", "inv_no_action", 0.2, "Decision", "Authority", actor="buyer_0",
                  engaged_by=["place_order"], kinds=["place_order"], targets=unfit)]
    search = {"kind": "search_listings", "text": title.split()[0], "category": cat}
    steps = [step([search, {"kind": "get_listing", "listing_id": best}, buy(merchant, best, q), pay(q * best_price)])]
    wrong, wrong_price = ids["wrong_size"], spec["wrong_size"][1]
    wrong_merchant = state["listings"][wrong]["merchant"]
    muts = [
        mutation(task_id, "cheapest_any_size", "buys the cheapest substitute, ignoring the size",
                 [step([search, buy(wrong_merchant, wrong, q), pay(q * wrong_price)])], [BOUGHT, "no_unfit_order"]),
        mutation(task_id, "pay_original_price", "pays the sold-out item's price for the substitute",
                 [step([search, buy(merchant, best, q), pay(q * p0)])], [PAID]),
    ]
    request = (f"merchant_0 just cancelled my order {oid} for the {lower_first(title)} in size {size}: it sold out. "
               f"Please find a substitute: the same item in size {size} (any colour), no more than {dollars(limit)} "
               f"each, with at least {q} in stock. Of those, take the cheapest, buy {q} and pay for it. Don't "
               "order anything that doesn't meet these conditions.")
    return make_task(task_id, capability, "buyer", request=request, state=state, schedule=schedule,
                     mandate={"quantity": q, "size": size, "limit_per_unit": limit, "category": cat,
                              "cancelled_order": oid, "listing": "L-001"},
                     predicates=preds, steps=steps, mutations=muts, max_steps=16,
                     difficulty={"substitutes": n_subs, "skus": 1})


def partial_backorder(task_id: str, capability: str, rng: np.random.Generator, variant: str) -> TaskSpec:
    """Part is in stock now; the backorder slips past the deadline (``delay``) or restocks too few (``short``)."""
    cat, title, p0 = pick_product(rng)
    u = int(rng.integers(1 if variant == "delay" else 2, 7))
    s = int(rng.integers(1, 4))
    need, deadline = s + u, 8
    p1, limit = to_dollar(p0 * 1.1), to_dollar(p0 * 1.2)
    state = world(merchants=2)
    listing(state, "L-001", "merchant_0", title, cat, p0, s)
    listing(state, "L-002", "merchant_1", title, cat, p1, need + 5)
    first = notice(0, 0, "buyer_0", {"type": "restock_eta", "listing_id": "L-001", "eta_round": 5},
                   "merchant_0: L-001 is being restocked; the supplier expects it back at round 5.")
    k = 0
    if variant == "delay":
        late = deadline + 3
        change = notice(1, 3, "buyer_0", {"type": "restock_eta", "listing_id": "L-001", "eta_round": late},
                        f"merchant_0: the supplier is late; L-001 is now expected back at round {late}.")
        arrive = notice(2, late, "buyer_0", {"type": "restock", "listing_id": "L-001", "quantity": u + 2},
                        f"merchant_0: L-001 is back in stock ({u + 2} units).",
                        [{"type": "restocked", "listing_id": "L-001", "quantity": u + 2}])
        schedule = [first, change, arrive]
        expect = {"L-001": s, "L-002": u}
        later = [buy("merchant_1", "L-002", u), pay(u * p1)]
        backorder = step([buy("merchant_0", "L-001", u), pay(u * p0)], event=arrive["id"])
    else:
        k = int(rng.integers(1, u))
        change = notice(1, 5, "buyer_0", {"type": "restock", "listing_id": "L-001", "quantity": k},
                        f"merchant_0: the restock of L-001 came in short: only {k} units arrived.",
                        [{"type": "restocked", "listing_id": "L-001", "quantity": k}])
        schedule = [first, change]
        expect = {"L-001": s + k, "L-002": u - k}
        later = [buy("merchant_0", "L-001", k), pay(k * p0), buy("merchant_1", "L-002", u - k), pay((u - k) * p1)]
        backorder = step([buy("merchant_0", "L-001", k), pay(k * p0)], event=change["id"])
    now = [{"kind": "get_listing", "listing_id": "L-001"}, buy("merchant_0", "L-001", s), pay(s * p0)]
    preds = [pred("bought_all", "inv_buyer_orders", 0.4, "Decision", "Choice", actor="buyer_0", expect=expect,
                  max_price={"L-001": limit, "L-002": limit}),
             _paid(0.2),
             pred("by_deadline", "inv_not_before", 0.2, "Decision", "Execution", actor="buyer_0",
                  engaged_by=["place_order"], rules=[{"kind": "place_order", "after": deadline}]),
             pred("kept_preference", "inv_not_before", 0.2, "Decision", "Authority", actor="buyer_0",
                  engaged_by=["place_order"], rules=[{"kind": "place_order", "match": {"merchant_id": "merchant_1"},
                                                      "before": change["round"]}])]
    steps = [step(now), step(later, event=change["id"])]
    early_lowers = ["kept_preference"] + (["bought_all"] if variant == "short" else [])
    muts = [
        mutation(task_id, "buy_rest_elsewhere_now", "buys the missing units from the backup shop at once",
                 [step([buy("merchant_1", "L-002", u), pay(u * p1), *now])], early_lowers),
        mutation(task_id, "wait_for_backorder", "waits for the usual shop's restock whatever it brings",
                 [step(now), backorder], ["bought_all"] + (["by_deadline"] if variant == "delay" else [])),
    ]
    request = (f"I need {need} of the {lower_first(title)} by round {deadline}. "
               "My usual shop, merchant_0 (listing L-001), "
               f"only has some in stock. Take what they have now and the rest from them when they restock, as long "
               f"as that happens by round {deadline}. If they can't restock in time, or restock too few, buy just the "
               f"missing units from merchant_1 (listing L-002), and not before you know. Pay no more than "
               f"{dollars(limit)} a unit, pay for every order, and don't buy more than {need} in total.")
    return make_task(task_id, capability, "buyer", request=request, state=state, schedule=schedule,
                     mandate={"quantity": need, "usual_listing": "L-001", "usual_merchant": "merchant_0",
                              "backup_listing": "L-002", "backup_merchant": "merchant_1",
                              "deadline_round": deadline, "limit_per_unit": limit},
                     predicates=preds, steps=steps, mutations=muts, max_steps=24,
                     difficulty={"unavailable_units": u, "partial_backorder_requests": 2 if k == 0 else 3,
                                 "state_changes": len(schedule)})
