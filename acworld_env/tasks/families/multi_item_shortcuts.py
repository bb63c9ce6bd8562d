"""Surface shortcuts for T5 Multi-item, run by the baseline gate (``acworld validate``).

Each does the obvious thing without planning the cart or pricing the terms:

- ``add_every_line``: a Buyer orders every candidate listing of every item (through quotes) and
  pays; a Merchant quotes every bundle price it publishes and every fee at its full amount;
- ``first_tier``: a Buyer picks the lowest first-tier (list) price for each item at the minimum
  quantity; a Merchant prices every line at its first tier and adds the fees on that subtotal;
- ``list_price_sum``: a Buyer orders at list price without a quote and pays the list-price sum;
  a Merchant quotes the list-price sum with no fees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...scoring.multi_item_pricing import Line, fee_amount, fees_for, terms_of
from ..names import register_shortcut
from .multi_item_policy import CartPlanner, QuoteClerk, _view_record

FAMILY = "T5_multi_item"


def _orders(views: dict[str, dict[str, Any]], cart: dict[str, int]) -> list[dict[str, Any]]:
    by: dict[str, list[dict[str, Any]]] = {}
    for lid in sorted(cart):
        by.setdefault(str(views[lid]["merchant"]), []).append({"listing_id": lid, "quantity": cart[lid]})
    return [{"merchant": m, "lines": lines} for m, lines in by.items()]


class _Buyer:
    """Read every candidate on the shopping list, then hand a cart to a cart planner."""

    def __init__(self) -> None:
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue: list[dict[str, Any]] | None = None
        self.views: dict[str, dict[str, Any]] = {}
        self.inner: Any = None

    def cart(self, needs: list[dict[str, Any]]) -> dict[str, int]:
        """The cart to buy, from the shopping list and the listings read."""
        raise NotImplementedError

    def follow(self, needs: list[dict[str, Any]]) -> Any:
        """The policy that buys the cart."""
        return CartPlanner(read=[], orders=_orders(self.views, self.cart(needs)), skip_reading=True)

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Read, then buy."""
        needs = obs["mandate"].get("shopping_list", [])
        if self.queue is None:
            self.queue = [{"kind": "get_listing", "listing_id": lid} for n in needs for lid in n["candidates"]]
        last = obs.get("last_result") or {}
        if last.get("accepted") and last.get("kind") == "get_listing":
            self.views[last["result"]["listing_id"]] = _view_record(last["result"])
        if self.queue:
            return self.queue.pop(0)
        if self.inner is None:
            self.inner = self.follow(needs)
        return self.inner.act(obs)


def _cheapest(views: dict[str, dict[str, Any]], needs: list[dict[str, Any]]) -> dict[str, int]:
    return {min((lid for lid in n["candidates"] if lid in views), key=lambda x: (views[x]["price"], x)): n["min"]
            for n in needs if any(lid in views for lid in n["candidates"])}


class _ListOrder:
    """Place list-price orders (no quote) and pay each order's total."""

    def __init__(self, orders: list[dict[str, Any]]) -> None:
        self.queue = [{"kind": "place_order", "merchant_id": o["merchant"], "lines": o["lines"]} for o in orders]
        self.done = False

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Order, pay each order, finish."""
        last = obs.get("last_result") or {}
        if last.get("accepted") and last.get("kind") == "place_order":
            res = last["result"]
            self.queue.insert(0, {"kind": "authorize_payment", "order_id": res["order_id"], "amount": res["total"]})
        if self.queue:
            return self.queue.pop(0)
        if not self.done:
            self.done = True
            return {"kind": "finish", "summary": "Done."}
        return None


class _Both(_Buyer):
    """One shortcut for both roles: a buyer cart rule and a merchant pricing rule."""

    def __init__(self, cart: Any, price: Any, list_order: bool = False) -> None:
        self._cart, self._price, self.list_order = cart, price, list_order
        super().__init__()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        super().reset(seed)
        self.clerk = _Clerk(self._price)

    def cart(self, needs: list[dict[str, Any]]) -> dict[str, int]:
        """The buyer cart rule applied to the listings read."""
        return self._cart(self.views, needs)

    def follow(self, needs: list[dict[str, Any]]) -> Any:
        """List-price orders, or quotes through a cart planner."""
        if self.list_order:
            return _ListOrder(_orders(self.views, self.cart(needs)))
        return super().follow(needs)

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Act as a merchant clerk or as a buyer, by the observation's role."""
        if obs["role"] == "merchant":
            return self.clerk.act(obs)
        return super().act(obs)


class _Clerk(QuoteClerk):
    """A quote clerk with a shortcut pricing rule."""

    def __init__(self, price: Any) -> None:
        super().__init__(listings={})
        self._rule = price

    def price(self, known: Mapping[str, Mapping[str, Any]], lines: list[Line]) -> dict[str, Any]:
        """The shortcut's quote."""
        return self._rule(known, lines)


def _quote(priced: list[dict[str, Any]], fees: list[dict[str, Any]]) -> dict[str, Any]:
    subtotal = sum(x["quantity"] * x["unit_price"] for x in priced)
    return {"lines": priced, "subtotal": subtotal, "fees": fees, "total": subtotal + sum(f["amount"] for f in fees)}


def _first_tier_price(known: Mapping[str, Mapping[str, Any]], lines: list[Line]) -> dict[str, Any]:
    priced = [{"listing_id": lid, "quantity": q, "unit_price": int(known[lid]["price"])} for lid, q in lines]
    sub = sum(x["quantity"] * x["unit_price"] for x in priced)
    schedule = terms_of(known[lines[0][0]]).get("checkout_fees", [])
    return _quote(priced, fees_for(schedule, sub, len(lines), sum(q for _, q in lines)))


def _list_sum(known: Mapping[str, Mapping[str, Any]], lines: list[Line]) -> dict[str, Any]:
    return _quote([{"listing_id": lid, "quantity": q, "unit_price": int(known[lid]["price"])} for lid, q in lines], [])


def _every_price(known: Mapping[str, Mapping[str, Any]], lines: list[Line]) -> dict[str, Any]:
    priced = []
    for lid, q in lines:
        prices = [int(known[lid]["price"])] + [int(b["unit_price"]) for b in terms_of(known[lid]).get("bundle_prices", [])]
        priced.append({"listing_id": lid, "quantity": q, "unit_price": min(prices)})
    sub = sum(x["quantity"] * x["unit_price"] for x in priced)
    fees = []
    for comp in terms_of(known[lines[0][0]]).get("checkout_fees", []):
        full = {**comp, "waived_from_subtotal": None, "below": 10**12}
        fees.append({"name": comp["name"], "amount": fee_amount(full, sub, len(lines), sum(q for _, q in lines))})
    return _quote(priced, [f for f in fees if f["amount"]])


def _every_candidate(views: dict[str, dict[str, Any]], needs: list[dict[str, Any]]) -> dict[str, int]:
    return {lid: n["min"] for n in needs for lid in n["candidates"] if lid in views}


@register_shortcut(FAMILY, "add_every_line")
def add_every_line() -> _Both:
    """Buyer: every candidate of every item; Merchant: every bundle price and every fee at full amount."""
    return _Both(_every_candidate, _every_price)


@register_shortcut(FAMILY, "first_tier")
def first_tier() -> _Both:
    """Buyer: the lowest list price for each item; Merchant: every line at its first tier."""
    return _Both(_cheapest, _first_tier_price)


@register_shortcut(FAMILY, "list_price_sum")
def list_price_sum() -> _Both:
    """Buyer: a list-price order without a quote; Merchant: the list-price sum, no fees."""
    return _Both(_cheapest, _list_sum, list_order=True)
