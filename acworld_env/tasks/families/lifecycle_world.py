"""Worlds for T7 after-sales tasks: orders advanced to a stage by applying the World's own events.

As T10 does, a task's initial state is built by committing events through the pure transition,
so every record (order, payment, shipment, return, refund, dispute, ledger) is exactly what
the platform would have written. History happens before the episode: rounds are negative
(``delivered_round -12`` means twelve days before the episode starts at day 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...world import add_actor, empty_state, listing_record, next_id, transition
from ...world.transition import apply_delta

STAGES = ("placed", "authorized", "paid", "allocated", "shipped", "delivered")
"""Order stages in lifecycle order."""


@dataclass
class Order:
    """What a builder needs to know of one order it made."""

    order_id: str
    lines: list[dict]
    total: int
    payment_id: str | None = None
    shipment_id: str | None = None
    extra_payments: list[str] = field(default_factory=list)


class WorldBuilder:
    """Builds a World with buyer_0, buyer_1 and merchant_0, listings, and orders at chosen stages."""

    def __init__(self) -> None:
        self.state = empty_state()
        add_actor(self.state, "buyer_0", "buyer", balance=800_000)
        add_actor(self.state, "buyer_1", "buyer", balance=800_000)
        add_actor(self.state, "merchant_0", "merchant", balance=0)
        self.orders: dict[str, Order] = {}

    def apply(self, *events: dict) -> None:
        """Commit events to the state."""
        apply_delta(self.state, transition(self.state, list(events)))

    def listing(self, title: str, price: int, *, stock: int = 10, category: str = "",
                claims: dict | None = None) -> str:
        """A listing of merchant_0; returns its id."""
        lid = f"L-{len(self.state['listings']) + 1:03d}"
        self.state["listings"][lid] = listing_record("merchant_0", price, stock, title=title, category=category,
                                                     claims=claims)
        return lid

    def price(self, listing_id: str) -> int:
        """Current list price of a listing."""
        return int(self.state["listings"][listing_id]["price"])

    def order(self, lines: list[tuple[str, int]], *, buyer: str = "buyer_0", stage: str = "placed",
              day: int = -20, delivered_day: int | None = None, fees: int = 0) -> Order:
        """An order of ``(listing, quantity)`` lines, advanced to ``stage`` (see :data:`STAGES`)."""
        oid = next_id(self.state, "orders")
        rows = [{"listing_id": lid, "quantity": q, "unit_price": self.price(lid)} for lid, q in lines]
        fee_rows = [{"name": "shipping", "amount": fees}] if fees else []
        total = sum(r["quantity"] * r["unit_price"] for r in rows) + fees
        self.apply({"type": "order_placed", "order_id": oid, "buyer": buyer, "merchant": "merchant_0",
                    "lines": rows, "fees": fee_rows, "total": total, "source": "list", "round": day})
        o = Order(oid, rows, total)
        self.orders[oid] = o
        at = STAGES.index(stage)
        if at >= 1:
            o.payment_id = self.authorize(o, total, day=day)
        if at >= 2:
            self.capture(o.payment_id, total)
        if at >= 3:
            self.apply({"type": "inventory_allocated", "order_id": oid,
                        "lines": [{"listing_id": r["listing_id"], "quantity": r["quantity"]} for r in rows]})
        if at >= 4:
            o.shipment_id = next_id(self.state, "shipments")
            self.apply({"type": "order_shipped", "order_id": oid, "shipment_id": o.shipment_id,
                        "carrier": "standard", "round": day + 1})
        if at >= 5:
            self.apply({"type": "delivery_confirmed", "shipment_id": o.shipment_id,
                        "round": delivered_day if delivered_day is not None else day + 4})
        return o

    def authorize(self, o: Order, amount: int, *, day: int = -20) -> str:
        """Authorise a payment on an order (a second one on a paid order is kept as an extra charge)."""
        pid = next_id(self.state, "payments")
        buyer = self.state["orders"][o.order_id]["buyer"]
        self.apply({"type": "payment_authorized", "payment_id": pid, "order_id": o.order_id, "buyer": buyer,
                    "merchant": "merchant_0", "amount": amount, "round": day})
        if o.payment_id is not None:
            o.extra_payments.append(pid)
        return pid

    def capture(self, payment_id: str | None, amount: int) -> None:
        """Capture part or all of an authorisation."""
        self.apply({"type": "payment_captured", "payment_id": payment_id, "amount": amount})

    def refund(self, payment_id: str | None, amount: int, return_id: str | None = None) -> str:
        """A refund issued before the episode."""
        rid = next_id(self.state, "refunds")
        self.apply({"type": "refund_issued", "payment_id": payment_id, "refund_id": rid, "amount": amount,
                    "return_id": return_id})
        return rid

    def carrier_report(self, shipment_id: str | None, reason: str) -> None:
        """A carrier's delivery exception on a shipment (the record damage claims rest on)."""
        self.apply({"type": "delivery_exception_reported", "shipment_id": shipment_id, "reason": reason,
                    "by": "carrier"})

    def request_return(self, o: Order, lines: list[tuple[str, int]], reason: str) -> str:
        """A buyer's return request on an order (status ``requested``)."""
        rid = next_id(self.state, "returns")
        prices = {r["listing_id"]: r["unit_price"] for r in o.lines}
        order = self.state["orders"][o.order_id]
        self.apply({"type": "return_requested", "return_id": rid, "order_id": o.order_id, "buyer": order["buyer"],
                    "merchant": "merchant_0", "lines": [{"listing_id": lid, "quantity": q} for lid, q in lines],
                    "reason": reason, "amount": sum(prices[lid] * q for lid, q in lines)})
        return rid

    def decide_return(self, return_id: str, approve: bool) -> None:
        """The merchant's decision on a return, made before the episode."""
        self.apply({"type": "return_decided", "return_id": return_id, "approve": approve})

    def dispute(self, o: Order, reason: str, evidence: list[str]) -> str:
        """A buyer's open dispute on an order."""
        did = next_id(self.state, "disputes")
        order = self.state["orders"][o.order_id]
        self.apply({"type": "dispute_opened", "dispute_id": did, "order_id": o.order_id, "buyer": order["buyer"],
                    "merchant": "merchant_0", "reason": reason, "evidence": evidence})
        return did

    def eta(self, o: Order, day: int) -> None:
        """The merchant's promised arrival day on an order."""
        self.apply({"type": "eta_set", "order_id": o.order_id, "eta_round": day})

    def next(self, table: str, offset: int = 0) -> str:
        """The id the platform will give the ``offset``-th next record of ``table``."""
        n = self.state["counters"].get("ids", {}).get(table, 0) + offset
        return next_id({"counters": {"ids": {table: n}}}, table)
