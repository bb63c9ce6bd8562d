"""Large-track Multi-item: carts of two items, and a merchant's quote of two lines with a fee.

Capabilities: cross_merchant_cart (Buyer: the cheapest fit of each item, from two different shops),
bundle_relations (Buyer: both items from one shop, cheapest combined over every shop that has both),
total_budget (Buyer: the best-rated first item that still leaves room, within one total budget, for the
cheapest second item), merchant_total_quote (Merchant: quote two of its own lines with quantities and a
flat fee: line amounts, subtotal, fee and total in cents).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .discovery import pages_to
from .draft import Draft
from .view import CatalogView, join, needs_of, query

PLAN = (("bundle_relations", 4), ("cross_merchant_cart", 4), ("merchant_total_quote", 4), ("total_budget", 3))


def _item(view: CatalogView, rng: np.random.Generator, avoid: str = "") -> tuple[str, list[dict]] | None:
    cats = [c for c in view.categories() if c != avoid]
    category = cats[int(rng.integers(len(cats)))]
    t = view.sample(query(category, [], sort="price_asc"), rng)
    if t is None:
        return None
    every = needs_of(t)
    k = min(len(every), int(rng.integers(1, 3)))
    return category, [every[int(i)] for i in sorted(rng.choice(len(every), size=k, replace=False))] if k else []


def _say(category: str, needs: list[dict]) -> str:
    return f"one from the {category} category" + (f", {join([n['words'] for n in needs])}" if needs else "")


def _quote(view: CatalogView, rng: np.random.Generator) -> Draft | None:
    shops = view.cat.merchants() if callable(getattr(view.cat, "merchants", None)) else []
    ids = [m if isinstance(m, str) else getattr(m, "merchant_id", None) or m.get("merchant_id") for m in shops]
    if not ids:
        return None
    shop = ids[int(rng.integers(len(ids)))]
    stock = view.scan({"merchant_id": shop, "in_stock": True, "sort": "price_asc"}, 200)
    if len(stock) < 4:
        return None
    a, b = (stock[int(i)] for i in rng.choice(len(stock), size=2, replace=False))
    qa, qb = int(rng.integers(1, 4)), int(rng.integers(2, 5))
    fee = int(rng.integers(1, 6)) * 100
    la, lb = a["price"] * qa, b["price"] * qb
    answer = {"line_1": la, "line_2": lb, "subtotal": la + lb, "fee": fee, "total": la + lb + fee}
    request = (f"A customer wants {qa} x {a['listing_id']} and {qb} x {b['listing_id']} from your shop. Quote these two "
               f"lines with a {view.money(fee)} fee: give each line's amount (unit price times quantity) as line_1 and "
               "line_2, then subtotal, fee and total, all in cents, from your current listing records.")
    wrong = [("unit_prices", "quotes unit prices, forgetting the quantities",
              {**answer, "line_1": a["price"], "line_2": b["price"],
               "subtotal": a["price"] + b["price"], "total": a["price"] + b["price"] + fee}),
             ("fee_dropped", "leaves the fee out of the total", {**answer, "fee": 0, "total": la + lb}),
             ("fee_per_line", "charges the fee once per line", {**answer, "fee": 2 * fee, "total": la + lb + 2 * fee})]
    look = {"merchant_id": shop, "text": str(a["title"]).split(" - ")[0][:80], "page_size": 10}
    return Draft("merchant_total_quote", "merchant", request, searches=[look], reads=[a["listing_id"], b["listing_id"]],
                 answer=answer, figures={"lines": {"line_1": la, "line_2": lb},
                                         "totals": {"subtotal": la + lb, "fee": fee, "total": la + lb + fee}},
                 wrong=wrong, merchant=shop, factors={"lines": 2, "fee": fee, "quantities": [qa, qb]},
                 oracle={"merchant": shop, "quantities": [qa, qb]})


def _companion(view: CatalogView, rng: np.random.Generator, first: tuple[str, list[dict]]) -> tuple[str, list[dict]] | None:
    """A second item some shop selling the first also sells (so a one-shop bundle exists)."""
    fa = view.records(query(first[0], first[1], sort="price_asc"))
    if not fa:
        return None
    shop = fa[int(rng.integers(len(fa)))]["merchant_id"]
    mine = view.scan({"merchant_id": shop, "in_stock": True, "sort": "price_asc"}, 400)
    cats = sorted({r["category"] for r in mine} & set(view.categories()) - {first[0]})
    if not cats:
        return None
    category = cats[int(rng.integers(len(cats)))]
    every = needs_of(next(r for r in mine if r["category"] == category))
    return category, ([every[int(rng.integers(len(every)))]] if every else [])


def draft(view: CatalogView, cap: str, rng: np.random.Generator, variant: int) -> Draft | None:
    """One draw of a Multi-item task (None when it breaks a construction rule)."""
    if cap == "merchant_total_quote":
        return _quote(view, rng)
    first = _item(view, rng)
    second = _item(view, rng, avoid=first[0]) if first else None
    if cap == "bundle_relations" and first is not None:
        second = _companion(view, rng, first)
    if first is None or second is None:
        return None
    fa = view.records(query(first[0], first[1], sort="price_asc"))
    fb = view.records(query(second[0], second[1], sort="price_asc"))
    most = 800 if cap == "bundle_relations" else 200
    if not 2 <= len(fa) <= most or not 2 <= len(fb) <= most:
        return None
    scope: dict[str, Any] = {}
    budget = None
    if cap == "cross_merchant_cart":
        acc_a = [r for r in fa if r["price"] == fa[0]["price"]]
        acc_b = [r for r in fb if r["price"] == fb[0]["price"]]
        if {r["merchant_id"] for r in acc_a} & {r["merchant_id"] for r in acc_b}:
            return None
        ask = "I don't mind which shops they come from; I want the cheapest listing for each."
    elif cap == "bundle_relations":
        best: dict[str, int] = {}
        for m in {r["merchant_id"] for r in fa} & {r["merchant_id"] for r in fb}:
            best[m] = min(r["price"] for r in fa if r["merchant_id"] == m) + min(r["price"] for r in fb if r["merchant_id"] == m)
        if len(best) < 2:
            return None
        low = min(best.values())
        shops = [m for m, v in best.items() if v == low]
        if len(shops) != 1 or (fa[0]["merchant_id"] == shops[0] and fb[0]["merchant_id"] == shops[0]):
            return None
        acc_a = [r for r in fa if r["merchant_id"] == shops[0] and r["price"] == min(x["price"] for x in fa if x["merchant_id"] == shops[0])]
        acc_b = [r for r in fb if r["merchant_id"] == shops[0] and r["price"] == min(x["price"] for x in fb if x["merchant_id"] == shops[0])]
        ask = "Both must come from the same shop (one order, one delivery); choose the shop and items with the lowest combined price."
        scope = {"merchant_id": shops[0]}
    else:  # total_budget
        acc_b = [r for r in fb if r["price"] == fb[0]["price"]]
        rated = [r for r in fa if r["rating"] is not None]
        if not rated:
            return None
        best_price = min(r["price"] for r in rated if r["rating"] == max(x["rating"] for x in rated))
        budget = (best_price + fb[0]["price"] - 1) // 100 * 100  # the best-rated first item just misses it
        room = [r for r in fa if r["price"] <= budget - fb[0]["price"] and r["rating"] is not None]
        if len(room) < 2:
            return None
        top = max(r["rating"] for r in room)
        acc_a = [r for r in room if r["rating"] == top]
        if acc_a[0]["listing_id"] == fa[0]["listing_id"] or max(r["rating"] or 0 for r in fa) == top:
            return None  # the best-rated overall must not fit, and the cheapest must not win
        ask = (f"Together they must cost no more than {view.money(budget)}. Take the cheapest of the second item, and "
               "for the first the best-rated listing that still fits in the total.")
    a, b = acc_a[0], acc_b[0]
    answer: dict[str, Any] = {"first": a["listing_id"], "second": b["listing_id"], "total": a["price"] + b["price"]}
    request = (f"I need two things, each in stock and priced in {view.currency}: first, {_say(*first)}; second, "
               f"{_say(*second)}. {ask} Tell me both listings (first, second) and the total in cents; don't buy anything.")
    sa = pages_to(view, query(first[0], first[1], sort="price_asc", **scope), {a["listing_id"]})
    sb = pages_to(view, query(second[0], second[1], sort="price_asc", **scope), {b["listing_id"]})
    if sa is None or sb is None:
        return None
    wrong = []
    alt_a = [r for r in fa if r["listing_id"] not in {x["listing_id"] for x in acc_a}]
    alt_b = [r for r in fb if r["listing_id"] not in {x["listing_id"] for x in acc_b}]
    if alt_a:
        wrong.append(("wrong_first", "picks another first item", {**answer, "first": alt_a[0]["listing_id"],
                                                                   "total": alt_a[0]["price"] + b["price"]}))
    if alt_b:
        wrong.append(("wrong_second", "picks another second item", {**answer, "second": alt_b[-1]["listing_id"],
                                                                     "total": a["price"] + alt_b[-1]["price"]}))
    wrong.append(("total_off", "adds the total up wrong", {**answer, "total": answer["total"] + 100}))
    if len(wrong) < 3:
        return None
    return Draft(cap, "buyer", request, searches=sa + sb, reads=[a["listing_id"], b["listing_id"]], answer=answer,
                 choice={"first": sorted(r["listing_id"] for r in acc_a), "second": sorted(r["listing_id"] for r in acc_b)},
                 figures={"total": {"total": answer["total"]}}, seen=sorted({r["listing_id"] for r in acc_a + acc_b}),
                 wrong=wrong, factors={"items": 2, "candidates": [len(fa), len(fb)], **({"budget": budget} if budget else {})},
                 oracle={"items": [first, second], "budget": budget})
