"""Menu slot builders for multi-item carts and quotes, priced by the listings' published terms.

Builders have the :data:`~acworld_env.envs.candidates.Builder` signature ``(known, index)`` and read
only :class:`~acworld_env.envs.known.Known`: the shopping list of the agent's mandate, the listing
records it read (price, merchant, published terms) and the quote requests delivered to it.

* ``cart[c]@q.quote[m]`` (Buyer): a cart picks one candidate listing per shopping-list item, by the
  bits of ``c`` (bit ``i`` set: item ``i``'s second candidate); each item takes its minimum quantity
  (``q = min``) or the quantity in its range whose line costs least under the listing's quantity
  tiers (``q = tier``). The slot asks the ``m``-th merchant of the cart (in listing order) for a quote
  of its lines, in listing order.
* ``request[k].quote:terms`` (Merchant): quote a delivered request at the published terms (quantity
  tiers, bundle prices, checkout fees), valid for 20 rounds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..scoring.multi_item_pricing import price_quote, tier_price
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


def slots(n_requests: int) -> list[tuple[str, str, Builder, int]]:
    """The cart and quote slots: ``(label, kind, builder, index)``."""
    out: list[tuple[str, str, Builder, int]] = [
        (f"cart[{c}]@{mode}.quote[{m}]", "request_quote", cart_quote(mode, m), c)
        for c in range(N_CARTS) for mode in QUANTITY_MODES for m in range(N_CART_MERCHANTS)]
    out += [(f"request[{i}].quote:terms", "issue_quote", quote_terms, i) for i in range(n_requests)]
    return out
