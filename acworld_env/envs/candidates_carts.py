"""Menu slot builders for multi-item carts and quotes, priced by the listings' published terms.

Builders have the :data:`~acworld_env.envs.candidates.Builder` signature ``(known, index)`` and read
only :class:`~acworld_env.envs.known.Known`: the shopping list of the agent's mandate, the listing
records it read (price, merchant, published terms) and the quote requests delivered to it.

* ``cart[c]@q.quote[m]`` (Buyer): a cart picks one candidate listing per shopping-list item, by the
  bits of ``c`` (bit ``i`` set: item ``i``'s second candidate); each item takes its minimum quantity
  (``q = min``) or the quantity in its range whose line costs least under the listing's quantity
  tiers (``q = tier``). The slot asks the ``m``-th merchant of the cart (in listing order) for a quote
  of its lines, in listing order.
* ``cart:cheapest.quote[m]`` (Buyer): of every cart the shopping list allows (one candidate per item,
  a quantity in its range, one unit of each accessory a chosen listing requires, no incompatible
  pair, within the mandate's budget), the one whose fee-inclusive cost by the published terms of the
  listings read is lowest (ties: the first by listing and quantity); ask its ``m``-th merchant (by
  listing order) for a quote of its lines, in listing order. Needs every candidate read.
* ``request[k].quote:terms`` (Merchant): quote a delivered request at the published terms (quantity
  tiers, bundle prices, checkout fees), valid for 20 rounds.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..scoring.multi_item_pricing import (
    by_merchant,
    cart_cost,
    cart_problems,
    price_quote,
    tier_price,
)
from .known import Known

Builder = Callable[[Known, int], "dict[str, Any] | None"]
N_CARTS = 16
"""Candidate combinations the menu can quote (two candidates for each of up to four items)."""
N_CART_MERCHANTS = 2
QUANTITY_MODES = ("min", "tier")
QUOTE_ROUNDS = 20


def _items(k: Known) -> list[dict[str, Any]]:
    items = k.mandate.get("shopping_list")
    return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []


def _quantity(rec: dict[str, Any], low: int, high: int, mode: str) -> int:
    if mode == "min" or "price" not in rec:
        return low
    return min(range(low, high + 1), key=lambda q: (q * tier_price(rec, q), q))


def _cart(k: Known, c: int, mode: str) -> dict[str, list[dict[str, Any]]] | None:
    """Cart ``c``'s lines by merchant (computed once per menu, see ``Known.memo``)."""
    key = ("cart", c, mode)
    if key not in k.memo:
        k.memo[key] = _cart_lines(k, c, mode)
    return k.memo[key]


def _cart_lines(k: Known, c: int, mode: str) -> dict[str, list[dict[str, Any]]] | None:
    items = _items(k)
    if not items or c >= 2 ** len(items):
        return None
    cart: dict[str, int] = {}
    for i, item in enumerate(items):
        cands = item.get("candidates") or []
        pick = (c >> i) & 1
        if pick >= len(cands):
            return None
        low, high = int(item.get("min", 1)), int(item.get("max", item.get("min", 1)))
        cart[cands[pick]] = _quantity(k["listings"].get(cands[pick], {}), low, max(low, high), mode)
    groups: dict[str, list[dict[str, Any]]] = {}
    for lid in sorted(cart):
        seller = k["listings"].get(lid, {}).get("merchant")
        if not isinstance(seller, str):
            return None
        groups.setdefault(seller, []).append({"listing_id": lid, "quantity": cart[lid]})
    return groups


def cart_quote(mode: str, merchant: int) -> Builder:
    """Ask the ``merchant``-th merchant of cart ``c`` for a quote (see the module docstring)."""
    def build(k: Known, c: int) -> dict[str, Any] | None:
        groups = _cart(k, c, mode)
        if groups is None or merchant >= len(groups):
            return None
        seller = list(groups)[merchant]
        return {"kind": "request_quote", "merchant_id": seller, "lines": [dict(x) for x in groups[seller]]}

    return build


def quote_terms(k: Known, i: int) -> dict[str, Any] | None:
    """Quote the ``i``-th delivered quote request at the published terms of the listings read."""
    rid = k.nth("quote_requests", i)
    lines = k["quote_requests"][rid].get("lines") if rid else None
    if not lines:
        return None
    records = {}
    for x in lines:
        rec = k["listings"].get(x["listing_id"], {})
        if "terms" not in rec or "price" not in rec:
            return None
        records[x["listing_id"]] = rec
    q = price_quote(records, [(x["listing_id"], int(x.get("quantity", 1))) for x in lines])
    return {"kind": "issue_quote", "request_id": rid, "lines": q["lines"], "fees": q["fees"], "total": q["total"],
            "valid_rounds": QUOTE_ROUNDS}


MAX_CARTS = 50_000
"""Most carts the cheapest-cart slot enumerates (beyond, it stays unavailable)."""
N_CHEAPEST_MERCHANTS = 3


@lru_cache(maxsize=64)
def _cheapest_of(key: str) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...] | None:
    """The cheapest feasible cart of a problem (JSON: needs, budget, records), by merchant; None when none is."""
    needs, budget, records = json.loads(key)
    per_need = [[(lid, q) for lid in n["candidates"] for q in range(n["min"], n["max"] + 1)] for n in needs]
    count = 1
    for options in per_need:
        count *= len(options)
    if count > MAX_CARTS:
        return None
    best: tuple[int, list[tuple[str, int]], dict[str, int]] | None = None
    for choice in itertools.product(*per_need):
        cart = dict(choice)
        for lid, _ in choice:
            for acc in records[lid]["terms"].get("requires", []):
                cart[acc] = 1
        if any(lid not in records for lid in cart) or cart_problems(records, cart, needs):
            continue
        cost = cart_cost(records, cart)
        rank = (cost, sorted(cart.items()))
        if (budget is None or cost <= budget) and (best is None or rank < best[:2]):
            best = (*rank, cart)
    if best is None:
        return None
    return tuple((m, tuple(lines)) for m, lines in by_merchant(records, best[2]).items())


def _cheapest(k: Known) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...] | None:
    """The cheapest cart by the terms of the listings read (computed once per menu, cached per problem)."""
    if "cheapest_cart" in k.memo:
        return k.memo["cheapest_cart"]
    k.memo["cheapest_cart"] = None
    items = _items(k)
    needs = [{"item": str(x.get("item", "")), "candidates": list(x.get("candidates") or []),
              "min": int(x.get("min", 1)), "max": int(x.get("max", x.get("min", 1)))} for x in items]
    records: dict[str, dict[str, Any]] = {}
    wanted = [lid for n in needs for lid in n["candidates"]]
    while wanted:
        lid = wanted.pop()
        rec = k["listings"].get(lid, {})
        if lid in records:
            continue
        if not isinstance(rec.get("terms"), dict) or "price" not in rec or not isinstance(rec.get("merchant"), str):
            return None  # a candidate (or an accessory it needs) not read yet
        records[lid] = {"price": rec["price"], "merchant": rec["merchant"], "terms": rec["terms"]}
        wanted += [x for x in rec["terms"].get("requires", []) if isinstance(x, str)]
    if not needs or not all(n["candidates"] for n in needs):
        return None
    budget = k.mandate.get("budget") if isinstance(k.mandate.get("budget"), int) else None
    key = json.dumps([needs, budget, records], sort_keys=True)
    k.memo["cheapest_cart"] = _cheapest_of(key)
    return k.memo["cheapest_cart"]


def cheapest_quote(merchant: int) -> Builder:
    """Ask the ``merchant``-th merchant of the cheapest cart for a quote of its lines."""
    def build(k: Known, _: int) -> dict[str, Any] | None:
        groups = _cheapest(k)
        if groups is None or merchant >= len(groups):
            return None
        seller, lines = groups[merchant]
        return {"kind": "request_quote", "merchant_id": seller,
                "lines": [{"listing_id": lid, "quantity": q} for lid, q in lines]}

    return build


def cheapest_slots() -> list[tuple[str, str, Builder, int]]:
    """The cheapest-cart quote slots: ``(label, kind, builder, index)``."""
    return [(f"cart:cheapest.quote[{m}]", "request_quote", cheapest_quote(m), 0) for m in range(N_CHEAPEST_MERCHANTS)]


def slots(n_requests: int) -> list[tuple[str, str, Builder, int]]:
    """The cart and quote slots: ``(label, kind, builder, index)``."""
    out: list[tuple[str, str, Builder, int]] = [
        (f"cart[{c}]@{mode}.quote[{m}]", "request_quote", cart_quote(mode, m), c)
        for c in range(N_CARTS) for mode in QUANTITY_MODES for m in range(N_CART_MERCHANTS)]
    out += [(f"request[{i}].quote:terms", "issue_quote", quote_terms, i) for i in range(n_requests)]
    return out
