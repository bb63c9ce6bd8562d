"""T5 policies: the two references (a cart planner, a quote clerk) and the two scripted counterparties.

* ``t5_cart_planner`` (Buyer reference): reads the listings, asks each merchant of its planned
  cart for a quote, accepts it, orders from it and pays the order total. Mutations give it
  another cart, skip the reading, or pay a wrong amount.
* ``t5_quote_clerk`` (Merchant reference): reads every listing on a quote request, prices the
  quote from what it read (:func:`quote_payload`), captures the payment. Mutations apply one
  ``tweak``: a wrong line price, a dropped or mis-based fee, or a first quote the platform
  refuses for bad arithmetic before the right one.
* ``t5_quote_desk`` (Merchant counterparty): answers every quote request with the exact quote.
* ``t5_quote_shopper`` (Buyer counterparty): asks for a quote of a fixed cart, then accepts,
  orders and pays whatever is quoted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...scoring.multi_item_pricing import Line, fees_for, price_quote, terms_of
from ..names import register_policy

QUOTE_ID = re.compile(r"\b(quo-\d+)\b")


def quote_payload(listings: Mapping[str, Mapping[str, Any]], lines: list[Line],
                  tweak: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The quote a clerk issues for ``lines``: exact, or with one mistake (``tweak``), always self-consistent.

    Tweaks: ``{"line": id, "unit_price": p}`` prices one line at ``p`` (and fees follow the wrong
    subtotal); ``{"drop_fee": name}`` leaves a fee out; ``{"tax_on_fees": True}`` charges the tax
    on the subtotal plus the other fees.
    """
    quote = price_quote(listings, lines)
    tweak = dict(tweak or {})
    if "line" in tweak:
        priced = [{**x, "unit_price": tweak["unit_price"]} if x["listing_id"] == tweak["line"] else x
                  for x in quote["lines"]]
        subtotal = sum(x["quantity"] * x["unit_price"] for x in priced)
        schedule = terms_of(listings[lines[0][0]]).get("checkout_fees", [])
        fees = fees_for(schedule, subtotal, len(lines), sum(q for _, q in lines))
        quote = {"lines": priced, "subtotal": subtotal, "fees": fees}
    elif "drop_fee" in tweak:
        quote = {**quote, "fees": [f for f in quote["fees"] if f["name"] != tweak["drop_fee"]]}
    elif tweak.get("tax_on_fees"):
        schedule = terms_of(listings[lines[0][0]]).get("checkout_fees", [])
        others = sum(f["amount"] for f in quote["fees"] if f["name"] != "tax")
        bps = next(c["basis_points"] for c in schedule if c["rule"] == "percent_of_subtotal")
        tax = ((quote["subtotal"] + others) * bps + 5_000) // 10_000
        quote = {**quote, "fees": [{**f, "amount": tax} if f["name"] == "tax" else f for f in quote["fees"]]}
    quote["total"] = quote["subtotal"] + sum(f["amount"] for f in quote["fees"])
    return quote


def _view_record(view: Mapping[str, Any]) -> dict[str, Any]:
    """A ``get_listing`` result as the pricing functions read a listing record."""
    return {"price": view["price"], "merchant": view.get("merchant_id"), "terms": view.get("terms") or {}}


@register_policy("t5_quote_desk")
class QuoteDesk:
    """Merchant counterparty: answers each quote request with the exact quote of its listings."""

    def __init__(self, *, listings: dict[str, dict[str, Any]]) -> None:
        self.listings = listings

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Quote the first unanswered request in the inbox."""
        for m in obs["inbox"]:
            if m.get("request_id") and m.get("lines"):
                lines = [(x["listing_id"], x["quantity"]) for x in m["lines"]]
                if not all(lid in self.listings for lid, _ in lines):
                    continue
                q = price_quote(self.listings, lines)
                return {"kind": "issue_quote", "request_id": m["request_id"], "lines": q["lines"], "fees": q["fees"],
                        "total": q["total"], "valid_rounds": 60}
        return None


@register_policy("t5_quote_shopper")
class QuoteShopper:
    """Buyer counterparty: asks for a quote, then accepts, orders and pays what is quoted."""

    def __init__(self, *, merchant: str, lines: list[dict[str, Any]], note: str) -> None:
        self.merchant, self.lines, self.note = merchant, lines, note
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue: list[dict[str, Any]] = [{"kind": "request_quote", "merchant_id": self.merchant,
                                             "lines": list(self.lines)}]

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Next step of request, message, accept, order, pay."""
        last = obs.get("last_result") or {}
        res = last.get("result") if last.get("accepted") else None
        if isinstance(res, dict):
            if last["kind"] == "request_quote":
                self.queue.append({"kind": "send_message", "to": self.merchant,
                                   "text": f"Hello! I just sent quote request {res['request_id']}: {self.note}"})
            elif last["kind"] == "place_order":
                self.queue.append({"kind": "authorize_payment", "order_id": res["order_id"], "amount": res["total"]})
        for m in obs["inbox"]:
            found = QUOTE_ID.search(str(m.get("text", ""))) if m.get("from") == self.merchant else None
            if found and str(m.get("text", "")).startswith("Quote "):
                self.queue += [{"kind": "accept_quote", "quote_id": found.group(1)},
                               {"kind": "place_order", "quote_id": found.group(1)}]
        return self.queue.pop(0) if self.queue else None


@register_policy("t5_cart_planner")
class CartPlanner:
    """Buyer reference: read, quote per merchant, accept, order from the quote, pay."""

    def __init__(self, *, read: list[str], orders: list[dict[str, Any]], skip_reading: bool = False,
                 amounts: dict[str, int] | None = None, pay_first_only: bool = False, pay_twice: bool = False) -> None:
        self.read, self.orders = read, orders
        self.skip_reading, self.amounts, self.pay_first_only = skip_reading, amounts or {}, pay_first_only
        self.pay_twice = pay_twice
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue: list[dict[str, Any]] = [] if self.skip_reading else [
            {"kind": "get_listing", "listing_id": lid} for lid in self.read]
        self.queue += [{"kind": "request_quote", "merchant_id": o["merchant"], "lines": o["lines"]}
                       for o in self.orders]
        self.paid = 0
        self.by_quote: dict[str, str] = {}
        self.placing = ""
        self.done = False

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """The next planned step; ``finish`` once every order is paid."""
        last = obs.get("last_result") or {}
        res = last.get("result") if last.get("accepted") else None
        if isinstance(res, dict) and last["kind"] == "place_order":
            amount = self.amounts.get(self.placing, res["total"])
            if not (self.pay_first_only and self.paid):
                pay = {"kind": "authorize_payment", "order_id": res["order_id"], "amount": amount}
                self.queue[:0] = [pay, pay] if self.pay_twice else [pay]
            self.paid += 1
        for m in obs["inbox"]:
            found = QUOTE_ID.search(str(m.get("text", "")))
            if found and str(m.get("text", "")).startswith("Quote ") and found.group(1) not in self.by_quote:
                self.by_quote[found.group(1)] = str(m.get("from", ""))
                self.queue += [{"kind": "accept_quote", "quote_id": found.group(1)},
                               {"kind": "place_order", "quote_id": found.group(1)}]
        if self.queue:
            nxt = self.queue.pop(0)
            if nxt["kind"] == "place_order":
                self.placing = self.by_quote.get(nxt["quote_id"], "")
            return nxt
        if not self.done:
            self.done = True
            return {"kind": "finish", "summary": "Ordered and paid the planned cart."}
        return None


@register_policy("t5_quote_clerk")
class QuoteClerk:
    """Merchant reference: read each listing asked about, issue the exact quote, capture the payment."""

    def __init__(self, *, listings: dict[str, dict[str, Any]], skip_reading: bool = False,
                 tweak: dict[str, Any] | None = None, misadd_first: int = 0) -> None:
        self.listings, self.skip_reading, self.tweak, self.misadd_first = listings, skip_reading, tweak, misadd_first
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue: list[dict[str, Any]] = []
        self.seen: dict[str, dict[str, Any]] = {}
        self.pending: dict[str, Any] | None = None
        self.captured = False
        self.done = False

    def _quote(self) -> list[dict[str, Any]]:
        req = self.pending
        assert req is not None
        lines = [(x["listing_id"], x["quantity"]) for x in req["lines"]]
        q = self.price(self.listings if self.skip_reading else self.seen, lines)
        action = {"kind": "issue_quote", "request_id": req["request_id"], "lines": q["lines"], "fees": q["fees"],
                  "total": q["total"], "valid_rounds": 20}
        out = [action]
        if self.misadd_first:  # a first quote whose total is off: the platform refuses it, the clerk redoes it
            out.insert(0, {**action, "total": q["total"] + self.misadd_first})
        return out

    def price(self, known: Mapping[str, Mapping[str, Any]], lines: list[Line]) -> dict[str, Any]:
        """The quote to issue for ``lines``, from the listings it knows."""
        return quote_payload(known, lines, self.tweak)

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Read, quote, capture, finish."""
        last = obs.get("last_result") or {}
        if last.get("accepted") and last.get("kind") == "get_listing" and isinstance(last.get("result"), dict):
            view = last["result"]
            self.seen[view["listing_id"]] = _view_record(view)
        for m in obs["inbox"]:
            if m.get("request_id") and m.get("lines") and self.pending is None:
                self.pending = m
                if not self.skip_reading:
                    self.queue += [{"kind": "get_listing", "listing_id": x["listing_id"]} for x in m["lines"]]
                self.queue.append({"kind": "_quote"})
            elif m.get("payment_id") and m.get("amount") and not self.captured:
                self.captured = True
                self.queue += [{"kind": "capture_payment", "payment_id": m["payment_id"], "amount": m["amount"]},
                               {"kind": "finish", "summary": "Quoted, sold and collected."}]
        if self.queue:
            nxt = self.queue.pop(0)
            if nxt["kind"] == "_quote":
                quotes = self._quote()
                self.queue[:0] = quotes[1:]
                nxt = quotes[0]
            return nxt
        return None
