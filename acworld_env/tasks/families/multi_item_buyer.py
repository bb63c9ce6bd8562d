"""T5 Buyer worlds: a shopping list whose cheapest fee-inclusive cart is not the list-price cart.

Each capability draws its own shape (cart lines, tiers, bundle relations, merchants, fees) and
is redrawn until the trap bites: the cart of lowest list prices is infeasible or costs more
than the exact optimum (and, for tiers, buying exactly the minimum costs more too).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...scoring.multi_item_pricing import by_merchant, price_quote
from .multi_item_world import (
    ACCESSORIES,
    Shop,
    add_need,
    cents,
    draw_ids,
    evaluate,
    fee_schedule,
    naive,
    optimum,
    pick_items,
    tiers,
)


@dataclass
class BuyerWorld:
    """A drawn Buyer task world, its optimum, and the alternative carts mutations buy."""

    shop: Shop
    optimum: int
    cart: dict[str, int]
    band: int
    budget: int | None = None
    carts: dict[str, tuple[str, dict[str, int]]] = field(default_factory=dict)
    """Mutation name -> (description, cart)."""


def _threshold(shop: Shop, cart: dict[str, int], merchant: str, rng: np.random.Generator, lo: float,
               hi: float) -> int:
    lines = [(lid, q) for lid, q in sorted(cart.items()) if shop.listings[lid]["merchant"] == merchant]
    base = price_quote(shop.priced(), lines)["subtotal"] if lines else 10_000
    return cents(base * float(rng.uniform(lo, hi)), 500) + 500


def _fees(shop: Shop, rng: np.random.Generator, components: int, cart: dict[str, int], lo: float, hi: float) -> None:
    for m in shop.merchants:
        shop.fees[m] = []
    for m in shop.merchants:
        shop.fees[m] = fee_schedule(rng, components, _threshold(shop, cart, m, rng, lo, hi))
    shop.factors["fee_components"] = components


def _shipping_trap(shop: Shop, rng: np.random.Generator, components: int, plain: dict[str, int]) -> bool:
    """Free shipping from just above the list-price cart's subtotal, within reach of the cheapest upgrade."""
    m = shop.merchants[0]
    shop.fees[m] = []
    listings = shop.priced()
    sub = price_quote(listings, sorted(plain.items()))["subtotal"]
    steps = [(listings[alt]["price"] - listings[lid]["price"]) * plain[lid] for lid in plain
             for n in shop.needs if lid in n["candidates"] for alt in n["candidates"] if alt != lid]
    steps = [d for d in steps if d > 0]
    if not steps:
        return False
    step = min(steps)
    threshold = cents(sub + step * float(rng.uniform(0.4, 1.0)), 100)
    shipping = -(-int(step * 1.15 + max(300, sub // 60)) // 100) * 100 - 5
    if not sub < threshold <= sub + step or shipping > 3_000:
        return False
    shop.fees[m] = fee_schedule(rng, components, threshold, shipping)
    shop.factors["fee_components"] = components
    return True


def _shape(rng: np.random.Generator, capability: str, index: int) -> Shop:
    """Listings and needs of one draw (fees not yet set)."""
    if capability == "cross_merchant_cart":
        merchants = [f"merchant_{i}" for i in range(int(rng.integers(2, 4)))]
    else:
        merchants = ["merchant_0"]
    shop = Shop(merchants=merchants, ids=draw_ids(rng))
    if capability == "multi_item_cart":
        n = [2, 4, 6, 8][index % 4]
        for item in pick_items(rng, n):
            q = int(rng.integers(1, 3))
            add_need(shop, rng, item, merchants * 2, q, q)
    elif capability == "quantity_tiers":
        count = int(rng.integers(2, 6))
        for item in pick_items(rng, int(rng.integers(2, 4))):
            qmin = int(rng.integers(3, 9))
            need = add_need(shop, rng, item, merchants * 2, qmin, qmin + int(rng.integers(3, 7)))
            for lid in need["candidates"]:
                shop.listings[lid]["terms"]["quantity_pricing"] = tiers(rng, shop.listings[lid]["price"], count,
                                                                        need["max"] + 2, (qmin + 1, need["max"]))
        shop.factors["price_tiers"] = count
    elif capability == "bundle_relations":
        _relations(shop, rng, [add_need(shop, rng, item, merchants * 2, 1, 1)
                               for item in pick_items(rng, int(rng.integers(2, 5)))])
    else:
        for item in pick_items(rng, int(rng.integers(3, 6))):
            q = int(rng.integers(1, 3))
            add_need(shop, rng, item, merchants if capability == "cross_merchant_cart" else merchants * 2, q, q)
    shop.factors.update(cart_lines=len(shop.needs), merchants=len(merchants))
    return shop


def _relations(shop: Shop, rng: np.random.Generator, needs: list[dict[str, Any]]) -> None:
    """1 to 5 relations: bundle prices, required accessories and incompatible pairs."""
    count = int(rng.integers(1, 6))
    accessories = [ACCESSORIES[int(i)] for i in rng.permutation(len(ACCESSORIES))]
    for k in range(count):
        kind = ["bundle", "requires", "incompatible"][int(rng.integers(3))] if k else "bundle"
        a_need, b_need = (needs[int(i)] for i in rng.choice(len(needs), size=2, replace=False))
        a, b = (n["candidates"][int(rng.integers(len(n["candidates"])))] for n in (a_need, b_need))
        terms_a, terms_b = shop.listings[a]["terms"], shop.listings[b]["terms"]
        if kind == "bundle":
            price = cents(shop.listings[b]["price"] * float(rng.uniform(0.7, 0.88)), 50)
            terms_b.setdefault("bundle_prices", []).append({"with_listing": a, "unit_price": price})
        elif kind == "requires" and accessories:
            title, base = accessories.pop()
            acc = shop.new_listing(shop.listings[a]["merchant"], title, "Accessories",
                                   cents(base * float(rng.uniform(0.9, 1.3)), 50))
            terms_a.setdefault("requires", []).append(acc)
        else:
            terms_a.setdefault("incompatible_with", []).append(b)
            terms_b.setdefault("incompatible_with", []).append(a)
    for rec in shop.listings.values():
        for key in ("requires", "incompatible_with"):
            if key in rec["terms"]:
                rec["terms"][key] = sorted(set(rec["terms"][key]))
    shop.factors["bundle_relations"] = count


def _draw(rng: np.random.Generator, capability: str, index: int) -> BuyerWorld | None:
    shop = _shape(rng, capability, index)
    plain = naive(shop.listings, shop.needs)
    components = int(rng.integers(3, 5)) if capability == "total_budget" else int(rng.integers(2, 5))
    if capability in {"multi_item_cart", "total_budget"}:
        if not _shipping_trap(shop, rng, components, plain):
            return None
    elif capability == "cross_merchant_cart":
        everything = {n["candidates"][i]: n["min"] for n in shop.needs for i in range(len(n["candidates"]))}
        _fees(shop, rng, components, everything, 0.75, 0.95)
    else:
        _fees(shop, rng, components, plain, 1.01, 1.12)
    listings = shop.priced()
    best = optimum(listings, shop.needs)
    if best is None:
        return None
    cost, cart = best
    ok, plain_cost = evaluate(listings, shop.needs, plain)
    if ok and plain_cost - cost < max(200, cost // 100):
        return None
    band = plain_cost - cost if ok else max(500, cost // 10)
    world = BuyerWorld(shop, cost, cart, band)
    world.carts["list_price_cart"] = ("buys the cheapest listing by list price for each item, ignoring tiers, "
                                      "bundles, cart rules and fees", plain)
    if capability == "quantity_tiers":
        fixed = optimum(listings, shop.needs, fixed=True)
        if fixed is None or fixed[0] <= cost:
            return None
        world.carts["exact_quantity"] = ("buys exactly the minimum of each item, missing the cheaper tier", fixed[1])
        over = dict(cart)
        lid = next(x for x in cart if x in shop.needs[0]["candidates"])
        over[lid] = shop.needs[0]["max"] + 1
        world.carts["overbuy"] = ("buys more units than the most the shopper allows, for a lower tier", over)
    if capability == "bundle_relations":
        stripped = {k: {**v, "terms": {t: x for t, x in v["terms"].items() if t != "bundle_prices"}}
                    for k, v in listings.items()}
        blind = optimum(stripped, shop.needs)
        if blind is not None and evaluate(listings, shop.needs, blind[1])[1] > cost:
            world.carts["ignore_bundle_prices"] = ("plans the cart without the bundle prices", blind[1])
        accessory = [x for x in cart if shop.listings[x]["category"] == "Accessories"]
        if accessory:
            world.carts["drop_accessory"] = ("leaves out the accessory a chosen item needs",
                                             {k: v for k, v in cart.items() if k != accessory[0]})
    if capability == "total_budget":
        if ok:
            margin = min(cost // 10, (plain_cost - cost) // 2)
            budget = (cost + margin) // 100 * 100
            if budget < cost:
                budget = -(-cost // 100) * 100
            if budget >= plain_cost:
                return None
        else:
            budget = -(-int(cost * 1.04) // 100) * 100
        world.budget = budget
        shop.factors["budget_slack"] = budget - cost
    return world


def draw_buyer(rng: np.random.Generator, capability: str, index: int) -> BuyerWorld:
    """A Buyer world of ``capability`` whose list-price cart is not the optimum (redrawn until so)."""
    for _ in range(400):
        world = _draw(rng, capability, index)
        if world is not None:
            return world
    raise RuntimeError(f"no {capability} world found")


def orders_of(world: BuyerWorld, cart: dict[str, int]) -> list[dict[str, Any]]:
    """A cart as one quote request per merchant."""
    return [{"merchant": m, "lines": [{"listing_id": lid, "quantity": q} for lid, q in lines]}
            for m, lines in by_merchant(world.shop.listings, cart).items()]


def subtotals(world: BuyerWorld, cart: dict[str, int]) -> dict[str, int]:
    """Merchant -> merchandise subtotal of the cart's order there (before fees)."""
    listings = world.shop.priced()
    return {m: price_quote(listings, lines)["subtotal"] for m, lines in by_merchant(listings, cart).items()}
