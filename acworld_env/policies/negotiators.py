"""Deterministic scripted traders: counterparties in tasks and the two agents of the demo.

They see only their own observation (request, mandate, inbox, last result) like any policy.
"""

from __future__ import annotations

from typing import Any


def _round_dollar(cents: float) -> int:
    return int(round(cents / 100.0)) * 100


class ScriptedMerchant:
    """Sells one listing: counters below its floor, accepts at or above it, then collects and ships.

    ``first_counter`` is its opening ask; each later ask concedes ``concession`` of the gap to the floor.
    ``probes`` are messages it sends to the buyer to fish for the buyer's private limit.
    """

    def __init__(self, floor: int, first_counter: int, *, concession: float = 0.5, accept_at: int | None = None,
                 probes: list[str] | None = None, max_counters: int = 6, fulfil: bool = True,
                 finish_when_done: bool = False) -> None:
        self.floor, self.first_counter, self.concession = floor, first_counter, concession
        self.accept_at = accept_at if accept_at is not None else floor
        self.probes, self.max_counters, self.fulfil = list(probes or []), max_counters, fulfil
        self.finish_when_done = finish_when_done
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.ask: int | None = None
        self.counters = 0
        self.queue: list[dict] = []
        self.pending_probes = list(self.probes)

    def act(self, obs: dict[str, Any]) -> dict | None:
        """React to the inbox; None when there is nothing to do."""
        for m in obs["inbox"]:
            ev = m.get("offer_event")
            if ev in {"offer", "counter"}:
                self.queue += self._answer(m["thread_id"], m["unit_price"])
            elif m.get("payment_id") and self.fulfil:
                self.queue += [
                    {"kind": "capture_payment", "payment_id": m["payment_id"], "amount": m["amount"]},
                    {"kind": "allocate_inventory", "order_id": m["order_id"]},
                    {"kind": "ship_order", "order_id": m["order_id"], "carrier": "standard"},
                ]
                if self.finish_when_done:
                    self.queue.append({"kind": "finish", "summary": "Sold, paid and shipped."})
        if self.queue:
            return self.queue.pop(0)
        return None

    def _answer(self, thread_id: str, price: int) -> list[dict]:
        if price >= self.accept_at:
            return [self._accept(thread_id)]
        previous = self.ask
        if self.ask is None:
            self.ask = self.first_counter
        else:
            self.ask = max(self.floor, _round_dollar(self.ask - self.concession * (self.ask - self.floor)))
        if self.counters >= self.max_counters or self.ask == previous:
            if price >= self.floor:
                return [self._accept(thread_id)]
            done = [{"kind": "finish", "summary": "No deal above my floor."}] if self.finish_when_done else []
            return [{"kind": "reject_offer", "thread_id": thread_id, "reason": "We are too far apart."}, *done]
        if self.ask <= price:
            return [self._accept(thread_id)]
        self.counters += 1
        note = self.pending_probes.pop(0) if self.pending_probes else None
        return [{"kind": "counter_offer", "thread_id": thread_id, "unit_price": self.ask,
                 **({"note": note} if note else {})}]

    def _accept(self, thread_id: str) -> dict:
        return {"kind": "accept_offer", "thread_id": thread_id}


class ScriptedBuyer:
    """Buys one listing: opens low, concedes toward its ceiling, never above it; then orders and pays."""

    def __init__(self, merchant: str, listing_id: str, ceiling: int, opening: int, *,
                 concession: float = 0.75, max_counters: int = 6, note: str | None = None,
                 probes: list[str] | None = None) -> None:
        self.merchant, self.listing_id = merchant, listing_id
        self.note, self.probes = note, list(probes or [])
        self.ceiling, self.opening, self.concession = ceiling, opening, concession
        self.max_counters = max_counters
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.bid: int | None = None
        self.counters = 0
        self.queue: list[dict] = []
        self.done = False

    def act(self, obs: dict[str, Any]) -> dict | None:
        """Open, answer counters, then order, pay and finish."""
        if self.bid is None:
            self.bid = self.opening
            return {"kind": "propose_offer", "to": self.merchant, "listing_id": self.listing_id,
                    "unit_price": self.opening, **({"note": self.note} if self.note else {})}
        last = obs.get("last_result") or {}
        if last.get("kind") == "place_order" and last.get("accepted"):
            order = last["result"]
            self.queue.append({"kind": "authorize_payment", "order_id": order["order_id"],
                               "amount": order["total"], "idempotency_key": f"pay-{order['order_id']}"})
        for m in obs["inbox"]:
            ev = m.get("offer_event")
            if ev == "counter":
                self.queue.append(self._answer(m["thread_id"], m["unit_price"]))
            elif ev == "accepted":
                self.queue.append({"kind": "place_order", "thread_id": m["thread_id"]})
            elif ev == "rejected":
                self.queue.append({"kind": "abstain", "reason": "The seller would not meet my price."})
            elif m.get("shipment_id"):
                self.queue.append({"kind": "finish", "summary": "Bought at the agreed price; it has shipped."})
        if self.queue:
            return self.queue.pop(0)
        return None

    def _answer(self, thread_id: str, price: int) -> dict:  # noqa: D401
        assert self.bid is not None
        nxt = min(self.ceiling, _round_dollar(self.bid + self.concession * (price - self.bid)))
        if price <= nxt or price <= self.bid or self.counters >= self.max_counters or nxt == self.bid:
            if price <= self.ceiling:
                return {"kind": "accept_offer", "thread_id": thread_id}
            self.queue.append({"kind": "abstain", "reason": "We could not agree on a price I can pay."})
            return {"kind": "reject_offer", "thread_id": thread_id, "reason": "Too expensive for me."}
        self.bid = nxt
        self.counters += 1
        probe = self.probes.pop(0) if self.probes else None
        return {"kind": "counter_offer", "thread_id": thread_id, "unit_price": nxt, **({"note": probe} if probe else {})}
