"""T5 worlds: merchants, listings with published terms, shopping lists, and the exact optimum.

Everything is integer cents. A listing's ``terms`` (quantity tiers, bundle prices, cart rules,
the merchant's checkout fees, and the same in plain words under ``notes``) are priced by
:mod:`acworld_env.scoring.multi_item_pricing`. :func:`optimum` enumerates every feasible cart
(one listing per need, each quantity in its range, required accessories added) and returns
the cheapest; nothing here is greedy.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...scoring.multi_item_pricing import cart_cost, cart_problems
from ...world import add_actor, empty_state, listing_record
from .common import PRODUCTS, dollars

BRANDS = ["Alder & Co", "Northwind", "Brightline", "Kestrel", "Marlow", "Juniper", "Fenwick"]
ACCESSORIES = [("Wall power adapter", 1_200), ("Mounting bracket kit", 1_500), ("Replacement filter pack", 900),
               ("Protective carry case", 1_800), ("Calibration tool", 700)]
ITEMS = [(cat, title, price) for cat in sorted(PRODUCTS) for title, price in PRODUCTS[cat]]
BUYER_BALANCE = 2_000_000


@dataclass
class Shop:
    """A world being drawn: listings by id, the shopping list, and the controlled factors."""

    merchants: list[str]
    listings: dict[str, dict[str, Any]] = field(default_factory=dict)
    needs: list[dict[str, Any]] = field(default_factory=list)
    factors: dict[str, Any] = field(default_factory=dict)
    fees: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)

    def new_listing(self, merchant: str, title: str, category: str, price: int, stock: int = 40) -> str:
        """Add a listing with empty terms; its id comes from the drawn id pool."""
        lid = self.ids.pop(0)
        rec = listing_record(merchant, price, stock, title=title, category=category)
        rec["terms"] = {}
        self.listings[lid] = rec
        return lid

    def state(self) -> dict[str, Any]:
        """The initial World: buyer_0, the merchants, every listing with its terms and notes."""
        state = empty_state()
        add_actor(state, "buyer_0", "buyer", balance=BUYER_BALANCE)
        for m in self.merchants:
            add_actor(state, m, "merchant")
        for lid, rec in sorted(self.listings.items()):
            terms = dict(rec["terms"])
            terms["checkout_fees"] = self.fees[rec["merchant"]]
            terms["notes"] = notes(lid, self.listings, terms)
            state["listings"][lid] = {**rec, "terms": terms}
        return state

    def priced(self) -> dict[str, dict[str, Any]]:
        """Listings as the pricing functions read them (with the fee schedules)."""
        return {lid: {**rec, "terms": {**rec["terms"], "checkout_fees": self.fees[rec["merchant"]]}}
                for lid, rec in self.listings.items()}


def draw_ids(rng: np.random.Generator, n: int = 40) -> list[str]:
    """Distinct listing ids like ``L-4821``."""
    return [f"L-{int(x)}" for x in rng.choice(np.arange(1000, 10000), size=n, replace=False)]


def cents(x: float, step: int = 10) -> int:
    """Round to a multiple of ``step`` cents."""
    return int(round(x / step)) * step


def tiers(rng: np.random.Generator, price: int, count: int, top: int,
          within: tuple[int, int] | None = None) -> list[dict[str, int]]:
    """``count`` quantity tiers from 1 unit up to about ``top`` units, each cheaper than the last; with
    ``within`` (lo, hi), one tier starts in that range."""
    pool = np.arange(2, max(top, count + 1) + 1)
    first = 0
    if within is None:
        mins = sorted(int(x) for x in rng.choice(pool, size=count - 1, replace=False))
    else:
        first = int(rng.integers(within[0], min(within[0] + 2, within[1] + 1)))
        rest = [x for x in pool if int(x) != first]
        mins = sorted([first, *(int(x) for x in rng.choice(rest, size=count - 2, replace=False))])
    out, unit = [{"min_quantity": 1, "unit_price": price}], price
    for m in mins:
        deep = within is not None and m == first
        unit = cents(unit * (1 - float(rng.uniform(0.2, 0.3) if deep else rng.uniform(0.05, 0.16))))
        out.append({"min_quantity": m, "unit_price": unit})
    return out


def fee_schedule(rng: np.random.Generator, components: int, threshold: int,
                 shipping: int | None = None) -> list[dict[str, Any]]:
    """Shipping (waived from ``threshold``) plus ``components - 1`` of handling, packaging, small-order fee, tax."""
    amount = shipping if shipping is not None else int(rng.choice([995, 1_295, 1_495, 1_895]))
    out: list[dict[str, Any]] = [{"name": "shipping", "rule": "flat", "amount": amount,
                                  "waived_from_subtotal": threshold}]
    extra = [int(i) for i in rng.permutation(4)][:components - 1]
    for i in sorted(extra):
        if i == 0:
            out.append({"name": "handling", "rule": "per_line", "amount": int(rng.choice([100, 150, 200, 250]))})
        elif i == 1:
            out.append({"name": "packaging", "rule": "per_unit", "amount": int(rng.choice([25, 40, 50, 75]))})
        elif i == 2:
            out.append({"name": "small-order fee", "rule": "below_subtotal", "amount": int(rng.choice([400, 600])),
                        "below": cents(threshold * 0.6, 500)})
    if 3 in extra:
        out.append({"name": "tax", "rule": "percent_of_subtotal", "basis_points": int(rng.choice([600, 725, 825, 950]))})
    return out


def fee_words(merchant: str, schedule: list[dict[str, Any]]) -> str:
    """The fee schedule in plain words."""
    parts = []
    for c in schedule:
        if c["rule"] == "flat":
            parts.append(f"{c['name']} {dollars(c['amount'])} per order, free when the merchandise subtotal is "
                         f"{dollars(c['waived_from_subtotal'])} or more")
        elif c["rule"] == "per_line":
            parts.append(f"{c['name']} {dollars(c['amount'])} per order line")
        elif c["rule"] == "per_unit":
            parts.append(f"{c['name']} {dollars(c['amount'])} per unit")
        elif c["rule"] == "below_subtotal":
            parts.append(f"a {c['name']} of {dollars(c['amount'])} when the merchandise subtotal is under "
                         f"{dollars(c['below'])}")
        else:
            bp = c["basis_points"]
            parts.append(f"{c['name']} {bp // 100}.{bp % 100:02d}% of the merchandise subtotal, rounded to the cent "
                         "(half a cent rounds up)")
    return f"Checkout fees at {merchant}, per order: " + "; ".join(parts) + "."


def notes(lid: str, listings: dict[str, dict[str, Any]], terms: dict[str, Any]) -> list[str]:
    """A listing's terms in plain words."""
    out = []
    tiers_ = terms.get("quantity_pricing", [])
    if tiers_:
        bands = []
        for i, t in enumerate(tiers_):
            hi = tiers_[i + 1]["min_quantity"] - 1 if i + 1 < len(tiers_) else None
            span = f"{t['min_quantity']}+" if hi is None else (
                f"{t['min_quantity']}" if hi == t["min_quantity"] else f"{t['min_quantity']}-{hi}")
            bands.append(f"{span} units {dollars(t['unit_price'])} each")
        out.append("Quantity pricing (every unit of the line at the tier its quantity reaches): " + "; ".join(bands) + ".")
    for b in terms.get("bundle_prices", []):
        out.append(f"Bundle price: {dollars(b['unit_price'])} each when {b['with_listing']} "
                   f"({listings[b['with_listing']]['title']}) is on the same order.")
    for acc in terms.get("requires", []):
        out.append(f"Needs {acc} ({listings[acc]['title']}) to work; buy exactly one with it.")
    for x in terms.get("incompatible_with", []):
        out.append(f"Not compatible with {x} ({listings[x]['title']}); do not buy both.")
    out.append(fee_words(listings[lid]["merchant"], terms["checkout_fees"]))
    return out


def options(need: dict[str, Any]) -> list[tuple[str, int]]:
    """Every (listing, quantity) that meets one need."""
    return [(lid, q) for lid in need["candidates"] for q in range(need["min"], need["max"] + 1)]


def full_cart(listings: dict[str, dict[str, Any]], choice: tuple[tuple[str, int], ...]) -> dict[str, int]:
    """A choice of one option per need, plus one unit of each accessory the chosen listings require."""
    cart = dict(choice)
    for lid, _ in choice:
        for acc in listings[lid]["terms"].get("requires", []):
            cart[acc] = 1
    return cart


def optimum(listings: dict[str, dict[str, Any]], needs: list[dict[str, Any]], budget: int | None = None,
            fixed: bool = False) -> tuple[int, dict[str, int]] | None:
    """The cheapest feasible cart by enumeration (``fixed``: only the minimum quantities); None when none is."""
    best: tuple[int, dict[str, int]] | None = None
    per_need = [[o for o in options(n) if not fixed or o[1] == n["min"]] for n in needs]
    for choice in itertools.product(*per_need):
        cart = full_cart(listings, choice)
        if cart_problems(listings, cart, needs):
            continue
        cost = cart_cost(listings, cart)
        if (budget is None or cost <= budget) and (best is None or (cost, sorted(cart.items())) <
                                                    (best[0], sorted(best[1].items()))):
            best = (cost, cart)
    return best


def naive(listings: dict[str, dict[str, Any]], needs: list[dict[str, Any]]) -> dict[str, int]:
    """The list-price cart: the candidate with the lowest list price for each need, minimum quantity, nothing else."""
    return {min(n["candidates"], key=lambda lid: (listings[lid]["price"], lid)): n["min"] for n in needs}


def evaluate(listings: dict[str, dict[str, Any]], needs: list[dict[str, Any]], cart: dict[str, int],
             budget: int | None = None) -> tuple[bool, int]:
    """(feasible, fee-inclusive cost) of a cart."""
    cost = cart_cost(listings, cart)
    ok = not cart_problems(listings, cart, needs) and (budget is None or cost <= budget)
    return ok, cost


def pick_items(rng: np.random.Generator, n: int) -> list[tuple[str, str, int]]:
    """``n`` distinct products (category, title, list price)."""
    return [ITEMS[int(i)] for i in rng.choice(len(ITEMS), size=n, replace=False)]


def add_need(shop: Shop, rng: np.random.Generator, item: tuple[str, str, int], merchants: list[str],
             qmin: int, qmax: int) -> dict[str, Any]:
    """A need met by one listing at each of ``merchants`` (brand variants, prices within about 15 %)."""
    cat, title, base = item
    brands = [BRANDS[int(i)] for i in rng.choice(len(BRANDS), size=len(merchants), replace=False)]
    cands = [shop.new_listing(m, f"{title} ({b})", cat, cents(base * float(rng.uniform(0.85, 1.15)), 50))
             for m, b in zip(merchants, brands, strict=True)]
    need = {"item": title.lower(), "candidates": cands, "min": qmin, "max": qmax}
    shop.needs.append(need)
    return need
