"""Surface-only shortcut scripts for T4 Negotiation, run by the baseline gate.

Each reads only the surface of its observation (the limit in its mandate, the dollar amounts
in the request, the prices in its inbox) and bargains by a fixed rule, never by the
counterparty's behaviour. A suite whose tasks pay these scripts measures the rule, not
negotiation:

* ``limit_at_once``: a Buyer offers its ceiling at once; a Merchant accepts any offer at or
  above its floor and otherwise quotes the floor. Then order and pay / collect and ship.
* ``accept_first``: take the counterparty's first number when it is inside the limit (a Buyer
  first opens at 60 % of its ceiling to hear that number); otherwise fall back to the limit.
* ``split_once``: split the difference once between one's own number and the counterparty's,
  then accept the next number inside the limit, or walk away.
"""

from __future__ import annotations

import re
from typing import Any

from ..names import register_shortcut

FAMILY = "T4_negotiation"
_DOLLARS = re.compile(r"\$(\d[\d,]*(?:\.\d\d)?)")


def _dollar(cents: float) -> int:
    return int(round(cents / 100.0)) * 100


def request_amounts(request: str) -> list[int]:
    """Every dollar amount written in the request, in cents."""
    return [int(round(float(m.replace(",", "")) * 100)) for m in _DOLLARS.findall(request)]


class _Script:
    """Shared plumbing: the limit and side from the mandate, settlement after a deal."""

    def __init__(self) -> None:
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue: list[dict[str, Any]] = []
        self.started = False
        self.own: int | None = None
        self.heard = 0
        self.ended = False

    # -- what the surface shows ------------------------------------------------
    @staticmethod
    def side(obs: dict[str, Any]) -> str:
        return "buyer" if obs["role"] == "buyer" else "merchant"

    @staticmethod
    def limit(obs: dict[str, Any]) -> int:
        m = obs.get("mandate") or {}
        return int(m.get("max_unit_price") or m.get("min_unit_price") or 0)

    def within(self, obs: dict[str, Any], price: int) -> bool:
        lim = self.limit(obs)
        return price <= lim if self.side(obs) == "buyer" else price >= lim

    # -- the loop ------------------------------------------------------------------
    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Open (Buyer), answer offers by the script's rule, then settle."""
        if self.ended:
            return None
        if not self.started and obs["role"] == "buyer":
            self.started = True
            self.own = self.opening(obs)
            m = obs.get("mandate") or {}
            self.queue.append({"kind": "propose_offer", "to": "merchant_0", "listing_id": m.get("listing_id", ""),
                               "unit_price": self.own})
        last = obs.get("last_result") or {}
        if last.get("kind") == "place_order" and last.get("accepted") and isinstance(last.get("result"), dict):
            order = last["result"]
            self.queue.append({"kind": "authorize_payment", "order_id": order["order_id"], "amount": order["total"],
                               "idempotency_key": f"pay-{order['order_id']}"})
        for msg in obs.get("inbox", []):
            ev = msg.get("offer_event")
            if ev in {"offer", "counter"} and isinstance(msg.get("unit_price"), int):
                self.heard += 1
                self.queue += self.answer(obs, msg["thread_id"], msg["unit_price"])
            elif ev == "accepted" and obs["role"] == "buyer":
                self.queue.append({"kind": "place_order", "thread_id": msg["thread_id"]})
            elif ev == "rejected":
                self.queue.append(self.quit(obs))
            elif msg.get("payment_id") and obs["role"] == "merchant":
                self.queue += [
                    {"kind": "capture_payment", "payment_id": msg["payment_id"], "amount": msg["amount"]},
                    {"kind": "allocate_inventory", "order_id": msg["order_id"]},
                    {"kind": "ship_order", "order_id": msg["order_id"], "carrier": "standard"},
                    {"kind": "finish", "summary": "Sold and shipped."},
                ]
            elif msg.get("shipment_id") and obs["role"] == "buyer":
                self.queue.append({"kind": "finish", "summary": "Bought."})
        if not self.queue:
            return None
        action = self.queue.pop(0)
        if action["kind"] in {"finish", "abstain"}:
            self.ended = True
        return action

    def quit(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {"kind": "abstain", "reason": "No deal."}

    def accept_or_limit(self, obs: dict[str, Any], thread: str, price: int) -> list[dict[str, Any]]:
        """Accept inside the limit; otherwise (re)quote the limit until the other side comes round."""
        if self.within(obs, price):
            return [{"kind": "accept_offer", "thread_id": thread}]
        self.own = self.limit(obs)
        return [{"kind": "counter_offer", "thread_id": thread, "unit_price": self.own}]

    # -- the rule (overridden) -------------------------------------------------------
    def opening(self, obs: dict[str, Any]) -> int:
        return self.limit(obs)

    def answer(self, obs: dict[str, Any], thread: str, price: int) -> list[dict[str, Any]]:
        return self.accept_or_limit(obs, thread, price)


@register_shortcut(FAMILY, "limit_at_once")
class LimitAtOnce(_Script):
    """Offer (Buyer) or quote (Merchant) the private limit at once; accept anything inside it."""


@register_shortcut(FAMILY, "accept_first")
class AcceptFirst(_Script):
    """Take the counterparty's first number when it is inside the limit."""

    def opening(self, obs: dict[str, Any]) -> int:
        return _dollar(self.limit(obs) * 0.6)


@register_shortcut(FAMILY, "split_once")
class SplitOnce(_Script):
    """Split the difference once, then accept the next number inside the limit or walk away."""

    def opening(self, obs: dict[str, Any]) -> int:
        return _dollar(self.limit(obs) * 0.7)

    def answer(self, obs: dict[str, Any], thread: str, price: int) -> list[dict[str, Any]]:
        if self.heard > 1:
            if self.within(obs, price):
                return [{"kind": "accept_offer", "thread_id": thread}]
            return [{"kind": "reject_offer", "thread_id": thread}, self.quit(obs)]
        mine = self.own
        if mine is None:  # a Merchant's own number is the list price in its request
            mine = max(request_amounts(obs.get("request", "")), default=price)
        lim = self.limit(obs)
        mid = _dollar((mine + price) / 2)
        mid = min(mid, lim) if self.side(obs) == "buyer" else max(mid, lim)
        if mid == price:
            return [{"kind": "accept_offer", "thread_id": thread}]
        self.own = mid
        return [{"kind": "counter_offer", "thread_id": thread, "unit_price": mid}]
