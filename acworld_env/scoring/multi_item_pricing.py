"""Cart pricing for T5 Multi-item: a listing's published terms -> an exact quote, in integer cents.

A listing record may carry ``terms`` (shown by ``get_listing``), all optional:

* ``quantity_pricing``: tiers ``[{"min_quantity": n, "unit_price": cents}, ...]`` in ascending
  order; every unit of a line costs the price of the highest tier its quantity reaches;
* ``bundle_prices``: ``[{"with_listing": id, "unit_price": cents}]``: the price of this line
  when the partner listing is on the same quote (a line takes its lowest applicable price);
* ``requires`` / ``incompatible_with``: listing ids (cart rules, see :func:`cart_problems`);
* ``checkout_fees``: the merchant's fee schedule, components in quote order, each with a
  ``name`` and a ``rule``: ``flat`` (``amount``, waived when the subtotal reaches
  ``waived_from_subtotal``), ``per_line``, ``per_unit``, ``below_subtotal`` (``amount`` when the
  subtotal is under ``below``), ``percent_of_subtotal`` (``basis_points`` of the subtotal,
  rounded to the cent, half a cent up).

The builder, the scripted counterparties and the predicates all price with these functions,
so a quote, a cart's cost and the optimum are computed one way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

Line = tuple[str, int]
"""A cart line: (listing id, quantity)."""


def terms_of(listing: Mapping[str, Any]) -> dict[str, Any]:
    """A listing's published terms ({} when it has none)."""
    return dict(listing.get("terms") or {})


def tier_price(listing: Mapping[str, Any], quantity: int) -> int:
    """Unit price at ``quantity`` by the quantity tiers (the list price without tiers)."""
    price = int(listing["price"])
    for tier in terms_of(listing).get("quantity_pricing", []):
        if quantity >= tier["min_quantity"]:
            price = int(tier["unit_price"])
    return price


def line_price(listings: Mapping[str, Mapping[str, Any]], listing_id: str, quantity: int,
               on_quote: Iterable[str]) -> int:
    """Unit price of a line: its tier price, or a lower bundle price whose partner is on the quote."""
    present = set(on_quote)
    rec = listings[listing_id]
    prices = [tier_price(rec, quantity)]
    prices += [int(b["unit_price"]) for b in terms_of(rec).get("bundle_prices", []) if b["with_listing"] in present]
    return min(prices)


def fee_amount(component: Mapping[str, Any], subtotal: int, lines: int, units: int) -> int:
    """One fee component's amount for an order of ``subtotal`` cents, ``lines`` lines and ``units`` units."""
    rule = component["rule"]
    if rule == "flat":
        waived = component.get("waived_from_subtotal")
        return 0 if waived is not None and subtotal >= waived else int(component["amount"])
    if rule == "per_line":
        return int(component["amount"]) * lines
    if rule == "per_unit":
        return int(component["amount"]) * units
    if rule == "below_subtotal":
        return int(component["amount"]) if subtotal < component["below"] else 0
    if rule == "percent_of_subtotal":
        return (subtotal * int(component["basis_points"]) + 5_000) // 10_000
    raise ValueError(f"unknown fee rule {rule!r}")


def fees_for(schedule: list[Mapping[str, Any]], subtotal: int, lines: int, units: int) -> list[dict[str, Any]]:
    """The fee lines of an order, in schedule order; zero-amount components are left out."""
    out = []
    for comp in schedule:
        amount = fee_amount(comp, subtotal, lines, units)
        if amount:
            out.append({"name": comp["name"], "amount": amount})
    return out


def price_quote(listings: Mapping[str, Mapping[str, Any]], lines: list[Line]) -> dict[str, Any]:
    """The exact quote of one merchant's lines: priced lines, subtotal, fees and total."""
    ids = [lid for lid, _ in lines]
    priced = [{"listing_id": lid, "quantity": q, "unit_price": line_price(listings, lid, q, ids)} for lid, q in lines]
    subtotal = sum(x["quantity"] * x["unit_price"] for x in priced)
    schedule = terms_of(listings[ids[0]]).get("checkout_fees", []) if ids else []
    fees = fees_for(schedule, subtotal, len(lines), sum(q for _, q in lines))
    return {"lines": priced, "subtotal": subtotal, "fees": fees, "total": subtotal + sum(f["amount"] for f in fees)}


def by_merchant(listings: Mapping[str, Mapping[str, Any]], cart: Mapping[str, int]) -> dict[str, list[Line]]:
    """A cart (listing -> quantity) split into one order per merchant, lines in listing order."""
    out: dict[str, list[Line]] = {}
    for lid in sorted(cart):
        out.setdefault(listings[lid]["merchant"], []).append((lid, cart[lid]))
    return out


def cart_cost(listings: Mapping[str, Mapping[str, Any]], cart: Mapping[str, int]) -> int:
    """Fee-inclusive cost of a cart bought as one quote per merchant."""
    return sum(price_quote(listings, lines)["total"] for lines in by_merchant(listings, cart).values())


def cart_problems(listings: Mapping[str, Mapping[str, Any]], cart: Mapping[str, int],
                  needs: list[Mapping[str, Any]]) -> list[str]:
    """Why a cart does not meet the shopping list (empty when it does).

    Each need is met by exactly one of its ``candidates`` with a quantity in ``[min, max]``; a
    listing's ``requires`` accessories are bought, one unit each; no two listings bought are
    incompatible; nothing else is bought.
    """
    problems = []
    allowed: set[str] = set()
    for need in needs:
        chosen = [lid for lid in need["candidates"] if cart.get(lid)]
        allowed |= set(need["candidates"])
        if len(chosen) != 1:
            problems.append(f"{need['item']}: {len(chosen)} listings bought, not one")
        elif not need["min"] <= cart[chosen[0]] <= need["max"]:
            problems.append(f"{need['item']}: {cart[chosen[0]]} units, not {need['min']}-{need['max']}")
    for lid in sorted(cart):
        terms = terms_of(listings[lid]) if lid in listings else {}
        for acc in terms.get("requires", []):
            allowed.add(acc)
            if cart.get(acc) != 1:
                problems.append(f"{lid} requires one unit of {acc}")
        problems += [f"{lid} is incompatible with {x}" for x in terms.get("incompatible_with", [])
                     if cart.get(x) and lid < x]
    problems += [f"{lid} is not on the shopping list" for lid in sorted(cart) if lid not in allowed]
    return problems


def fee_key(name: str) -> str:
    """A fee name reduced to lowercase letters (``"Small-order fee"`` -> ``"smallorderfee"``)."""
    return re.sub(r"[^a-z]", "", name.lower())


def fee_match(expected: list[Mapping[str, Any]], quoted: list[Mapping[str, Any]]) -> tuple[int, int]:
    """(components matched, components counted): each expected fee matches a quoted fee of the same
    amount whose name contains its name; unmatched quoted non-zero fees count against the quote."""
    left = [dict(f) for f in quoted if f["amount"]]
    matched = 0
    for exp in expected:
        key = fee_key(exp["name"]).removesuffix("fee") or fee_key(exp["name"])
        hit = next((f for f in left if key in fee_key(f["name"]) and f["amount"] == exp["amount"]), None)
        if hit is not None:
            left.remove(hit)
            matched += 1
    return matched, len(expected) + len(left)


def quote_credits(right: Mapping[str, Any], quoted: Mapping[str, Any]) -> dict[str, float]:
    """Credit of each part of a quote (``lines``, ``subtotal``, ``fees``, ``total``) against the right one."""
    want = {(x["listing_id"], x["quantity"]): x["unit_price"] for x in right["lines"]}
    got = {(x["listing_id"], x["quantity"]): x["unit_price"] for x in quoted["lines"]}
    lines_ok = sum(1 for k, v in want.items() if got.get(k) == v)
    matched, counted = fee_match(right["fees"], quoted["fees"])
    return {
        "lines": lines_ok / len(want) if want else 1.0,
        "subtotal": float(sum(x["quantity"] * x["unit_price"] for x in quoted["lines"]) == right["subtotal"]),
        "fees": matched / counted if counted else 1.0,
        "total": float(quoted["total"] == right["total"]),
    }


def graded(cost: int, optimum: int, band: int) -> float:
    """Credit of a feasible cart costing ``cost``: 1 at (or below) the optimum, 0 at ``band`` above it."""
    if cost <= optimum:
        return 1.0
    return max(0.0, 1.0 - (cost - optimum) / max(1, band))
