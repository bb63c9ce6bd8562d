"""Large-track Preference: must-haves over nice-to-haves, weighted wishes, a changed mind, the mandate's limits.

Capabilities (Buyer): hard_over_soft (a preferred brand only sold in listings that break a must-have),
weighted_soft_preferences (a stated score: stars times ten minus the price in whole units),
preference_update (the request changes one requirement; the first version must not decide),
mandate_consistency (the mandate's budget and excluded shop bind, not the looser words).
Every oracle ranks the full match space of the catalog.
"""

from __future__ import annotations

import numpy as np

from .discovery import feasible, pages_to, request_for, traps
from .draft import Draft
from .view import CatalogView, needs_of, query

CAPABILITIES = ("hard_over_soft", "mandate_consistency", "preference_update", "weighted_soft_preferences")


def _score(r: dict) -> int:
    """The weighted wish: stars x 10 minus the price in whole units (unrated counts 0 stars)."""
    return int(round((r["rating"] or 0) * 10)) - r["price"] // 100


def draft(view: CatalogView, cap: str, rng: np.random.Generator, variant: int) -> Draft | None:
    """One draw of a Preference task (None when it breaks a construction rule)."""
    drawn = view.draw_target(rng)
    if drawn is None:
        return None
    category, t, every = drawn
    if not every:
        return None
    needs = [every[int(rng.integers(len(every)))]]
    budget = int(np.ceil(t["price"] * rng.uniform(1.1, 1.5) / 100)) * 100
    fits = feasible(view, category, needs, budget)
    if not 2 <= len(fits) <= 30:
        return None
    extra: dict = {}
    mandate: dict = {}
    wrong_first: list[tuple[str, str, dict]] = []
    ranked = fits
    if cap == "hard_over_soft":
        near = view.scan(query(category, [], sort="price_asc", max_price=budget), 200)
        brands = {r["brand"] for r in near if r["brand"]} - {r["brand"] for r in fits}
        if not brands:
            return None
        brand = sorted(brands)[int(rng.integers(len(brands)))]
        lure = next(r for r in near if r["brand"] == brand)
        request = request_for(view, category, needs, budget, cheapest=True)
        request += (f" I'd love it to be by {brand} if possible, but that is only a wish; the rest is a must."
                    " Tell me which listing it is and its price in cents; don't buy anything.")
        wrong_first.append(("preferred_brand", f"answers the {brand} listing, which breaks a must-have",
                            {"listing_id": lure["listing_id"], "price": lure["price"]}))
        extra = {"wish_brand": brand}
    elif cap == "weighted_soft_preferences":
        ranked = sorted(fits, key=lambda r: (-_score(r), r["listing_id"]))
        if _score(ranked[0]) == _score(fits[0]) or ranked[0]["listing_id"] == fits[0]["listing_id"]:
            return None  # the cheapest must not already win
        request = request_for(view, category, needs, budget, cheapest=False)
        request += (" Several may fit: score each as its star rating times ten minus its price in whole units"
                    " (an unrated listing has 0 stars) and pick the highest score. Tell me which listing it is and"
                    " its price in cents; don't buy anything.")
        wrong_first.append(("cheapest_not_best", "answers the cheapest fit, ignoring the weighted wish",
                            {"listing_id": fits[0]["listing_id"], "price": fits[0]["price"]}))
    elif cap == "preference_update":
        others = [n for n in needs_of_category(view, category) if n["key"] == needs[0]["key"]
                  and n["value"] != needs[0]["value"]]
        if not others:
            return None
        old = others[0]
        before = feasible(view, category, [old], budget)
        if not before:
            return None
        request = request_for(view, category, [old], budget, cheapest=True).rstrip(".")
        request += (f". Actually, I've changed my mind: instead of {old['words']}, I want it {needs[0]['words']}; "
                    "everything else stays the same. Tell me which listing it is and its price in cents; don't buy anything.")
        wrong_first.append(("first_version", "answers for the requirement the shopper withdrew",
                            {"listing_id": before[0]["listing_id"], "price": before[0]["price"]}))
    else:  # mandate_consistency
        shops = sorted({r["merchant_id"] for r in fits})
        if len(shops) < 2 or len(fits) < 3:
            return None
        banned = fits[0]["merchant_id"]
        limit = budget
        looser = budget + int(rng.integers(2, 6)) * 500
        ranked = [r for r in fits if r["merchant_id"] != banned]
        mandate = {"budget": limit, "excluded_merchants": [banned]}
        request = request_for(view, category, needs, looser, cheapest=True)
        request += (" Stay within the limits in your mandate: its budget and the shop it rules out. Tell me which"
                    " listing it is and its price in cents; don't buy anything.")
        wrong_first.append(("excluded_shop", "answers the cheapest fit, sold by the shop the mandate rules out",
                            {"listing_id": fits[0]["listing_id"], "price": fits[0]["price"]}))
        over = [r for r in feasible(view, category, needs, looser) if r["price"] > limit and r["merchant_id"] != banned]
        if over:
            wrong_first.append(("over_mandate", "answers a fit within the stated budget but over the mandate's",
                                {"listing_id": over[0]["listing_id"], "price": over[0]["price"]}))
        extra = {"stated_budget": looser}
    key = _score if cap == "weighted_soft_preferences" else (lambda r: -r["price"])
    best = max(key(r) for r in ranked)
    accepted = [r for r in ranked if key(r) == best]
    acc = {r["listing_id"] for r in accepted}
    target = accepted[0]
    q = query(category, needs, sort="price_asc", max_price=budget)
    searches = pages_to(view, q, {target["listing_id"]})
    if searches is None:
        return None
    wrong = [w for w in wrong_first if w[2]["listing_id"] not in acc]
    wrong += [w for w in traps(view, category, needs, budget, acc) if w[2]["listing_id"] not in
              {x[2]["listing_id"] for x in wrong}]
    if len(wrong) < 2 or wrong[0] is not wrong_first[0]:
        return None
    return Draft(cap, "buyer", request, searches=searches, reads=[target["listing_id"]],
                 answer={"listing_id": target["listing_id"], "price": target["price"]},
                 choice={"listing_id": sorted(acc)}, figures={"price": {"price": target["price"]}},
                 seen=sorted(acc), wrong=wrong[:4], mandate=mandate,
                 factors={"candidates": len(fits), "hard_constraints": len(needs) + 2, "soft": cap},
                 oracle={"category": category, "needs": needs, "budget": budget, **extra})


def needs_of_category(view: CatalogView, category: str) -> list[dict]:
    """Every distinct requirement some in-stock listing of the category meets."""
    seen: dict[str, dict] = {}
    for r in view.scan(query(category, [], sort="price_asc"), 400):
        for n in needs_of(r):
            seen.setdefault(f"{n['key']}={n['value']}", n)
    return [seen[k] for k in sorted(seen)]
