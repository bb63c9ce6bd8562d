"""T5 Merchant worlds: a shop whose listings publish tiers, bundle prices and checkout fees, and a cart to quote.

* ``merchant_tier_quote``: 2 to 4 lines, each listing with 2 to 5 quantity tiers; most lines
  reach a tier above the first, so list prices are wrong.
* ``merchant_bundle_quote``: 3 to 5 lines and 1 to 5 bundle prices; some partners are on the
  quote (the bundle price applies), some are listings of the shop the buyer did not ask for.
* ``merchant_total_quote``: 3 to 6 lines (one or two at a volume discount) and 3 or 4 fee
  components (shipping charged, handling or packaging, a small-order fee or tax) whose
  arithmetic decides the total.

Each world also names the mistakes its mutations make (one wrong line, a bundle applied
without its partner, a dropped fee, tax charged on fees), all self-consistent quotes the
platform accepts and only the predicates catch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...scoring.multi_item_pricing import Line, price_quote, tier_price
from .multi_item_world import Shop, cents, draw_ids, fee_schedule, pick_items, tiers


@dataclass
class SellerWorld:
    """A drawn Merchant task world: the shop, the cart asked for, and mutation tweaks."""

    shop: Shop
    lines: list[Line]
    tweaks: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    """Mutation name -> (description, tweak for :func:`~.multi_item_policy.quote_payload`)."""


def _listing(shop: Shop, rng: np.random.Generator, item: tuple[str, str, int]) -> str:
    cat, title, base = item
    return shop.new_listing("merchant_0", title, cat, cents(base * float(rng.uniform(0.9, 1.1)), 50), stock=60)


def _draw(rng: np.random.Generator, capability: str) -> SellerWorld | None:
    shop = Shop(merchants=["merchant_0"], ids=draw_ids(rng))
    shop.fees["merchant_0"] = []
    if capability == "merchant_tier_quote":
        n, count = int(rng.integers(2, 5)), int(rng.integers(2, 6))
        lids = [_listing(shop, rng, item) for item in pick_items(rng, n + 1)]
        lines = []
        for lid in lids:
            shop.listings[lid]["terms"]["quantity_pricing"] = tiers(rng, shop.listings[lid]["price"], count, 12)
        for i, lid in enumerate(lids[:n]):
            table = shop.listings[lid]["terms"]["quantity_pricing"]
            band = int(rng.integers(1, len(table))) if i or n == 1 else int(rng.integers(len(table)))
            hi = table[band + 1]["min_quantity"] - 1 if band + 1 < len(table) else table[band]["min_quantity"] + 3
            lines.append((lid, int(rng.integers(table[band]["min_quantity"], hi + 1))))
        shop.factors.update(cart_lines=n, price_tiers=count)
        components = int(rng.integers(2, 4))
    elif capability == "merchant_bundle_quote":
        n, count = int(rng.integers(3, 6)), int(rng.integers(1, 6))
        lids = [_listing(shop, rng, item) for item in pick_items(rng, n + 2)]
        on, off = lids[:n], lids[n:]
        lines = [(lid, int(rng.integers(1, 4))) for lid in on]
        for k in range(count):
            target = on[int(rng.integers(n))]
            pool = [x for x in (on if k % 2 == 0 else off) if x != target]
            partner = pool[int(rng.integers(len(pool)))]
            price = cents(shop.listings[target]["price"] * float(rng.uniform(0.7, 0.88)), 50)
            bundles = shop.listings[target]["terms"].setdefault("bundle_prices", [])
            if all(b["with_listing"] != partner for b in bundles):
                bundles.append({"with_listing": partner, "unit_price": price})
        shop.factors.update(cart_lines=n, bundle_relations=count)
        components = int(rng.integers(2, 4))
    else:
        n = int(rng.integers(3, 7))
        lids = [_listing(shop, rng, item) for item in pick_items(rng, n)]
        lines = [(lid, int(rng.integers(1, 3))) for lid in lids]
        for k in range(int(rng.integers(1, 3))):  # a volume discount or two: list prices are not the answer
            lid = lids[k]
            step = int(rng.integers(2, 4))
            shop.listings[lid]["terms"]["quantity_pricing"] = [
                {"min_quantity": 1, "unit_price": shop.listings[lid]["price"]},
                {"min_quantity": step, "unit_price": cents(shop.listings[lid]["price"] * float(rng.uniform(0.8, 0.92)))}]
            lines[k] = (lid, step + int(rng.integers(0, 2)))
        shop.factors.update(cart_lines=n)
        components = int(rng.integers(3, 5))
    sub = price_quote(shop.priced(), lines)["subtotal"]
    threshold = cents(sub * float(rng.uniform(1.05, 1.4)), 500) if capability == "merchant_total_quote" else \
        cents(sub * float(rng.uniform(0.7, 1.4)), 500)
    shop.fees["merchant_0"] = fee_schedule(rng, components, threshold)
    shop.factors["fee_components"] = components
    world = SellerWorld(shop, lines)
    if not _tweaks(world, capability):
        return None
    return world


def _tweaks(world: SellerWorld, capability: str) -> bool:
    """Name the mutations' mistakes; False when this world has too few distinct ones."""
    listings = world.shop.priced()
    right = price_quote(listings, world.lines)
    ids = [lid for lid, _ in world.lines]
    if capability == "merchant_tier_quote":
        above = [x for x in right["lines"] if x["unit_price"] != listings[x["listing_id"]]["price"]]
        if 2 * len(above) < len(right["lines"]):
            return False
        x = above[-1]
        world.tweaks["first_tier_line"] = (f"prices {x['listing_id']} at its first-tier (list) price although "
                                           f"{x['quantity']} units reach a lower tier",
                                           {"line": x["listing_id"], "unit_price": listings[x["listing_id"]]["price"]})
    elif capability == "merchant_bundle_quote":
        applied = [x for x in right["lines"] if x["unit_price"] < tier_price(listings[x["listing_id"]], x["quantity"])]
        stray = [(lid, b) for lid in ids for b in listings[lid]["terms"].get("bundle_prices", [])
                 if b["with_listing"] not in ids]
        if not applied or not stray:
            return False
        x = applied[0]
        world.tweaks["missed_bundle"] = (f"charges {x['listing_id']} its regular price although its bundle partner "
                                         "is on the quote", {"line": x["listing_id"], "unit_price": tier_price(
                                             listings[x["listing_id"]], x["quantity"])})
        lid, b = stray[0]
        world.tweaks["bundle_without_partner"] = (f"gives {lid} its bundle price although {b['with_listing']} is not "
                                                  "on the quote", {"line": lid, "unit_price": b["unit_price"]})
    else:
        names = [f["name"] for f in right["fees"]]
        droppable = [n for n in names if n != "shipping"]
        if "shipping" not in names or not droppable:
            return False
        world.tweaks["drop_fee"] = (f"leaves the {droppable[0]} out of the quote", {"drop_fee": droppable[0]})
        if "tax" in names and len(names) > 1:
            world.tweaks["tax_on_fees"] = ("charges tax on the fees as well as the merchandise", {"tax_on_fees": True})
    return True


def draw_seller(rng: np.random.Generator, capability: str) -> SellerWorld:
    """A Merchant world of ``capability`` with its mutation tweaks (redrawn until it has them)."""
    for _ in range(400):
        world = _draw(rng, capability)
        if world is not None:
            return world
    raise RuntimeError(f"no {capability} world found")
