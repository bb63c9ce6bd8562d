"""Building blocks of T9 tasks: the initial World (actors, listings, orders at a stage, seeded
reviews), the fixed-script policy references, mutation specs and predicate shorthands."""

from __future__ import annotations

from typing import Any

from ...world import add_actor, empty_state, listing_record, transition
from ...world.state import next_id
from ...world.transition import apply_delta
from ..spec import CounterpartySpec, MutationSpec, PolicyRef
from .common import dollars

FINISH = {"kind": "finish", "summary": "Done."}


def market(buyers: int, merchants: int = 2, *, balance: int = 200_000) -> dict:
    """A World with ``buyer_0..`` and ``merchant_0..`` (buyers funded)."""
    state = empty_state()
    for i in range(buyers):
        add_actor(state, f"buyer_{i}", "buyer", balance=balance)
    for i in range(merchants):
        add_actor(state, f"merchant_{i}", "merchant")
    return state


def listing(state: dict, lid: str, merchant: str, title: str, price: int, *, stock: int = 20,
            category: str = "", claims: dict[str, str] | None = None) -> None:
    """Add one listing to the initial World."""
    state["listings"][lid] = listing_record(merchant, price, stock, title=title, category=category, claims=claims)


def order(state: dict, buyer: str, lid: str, qty: int, stage: str) -> dict[str, Any]:
    """The next order of ``qty`` units of ``lid`` by ``buyer``, advanced to ``stage`` (``placed``, ``paid``
    or ``delivered``), with the ids the platform would give. Returns its ids and total."""
    rec = state["listings"][lid]
    oid, pid, sid = next_id(state, "orders"), next_id(state, "payments"), next_id(state, "shipments")
    total = qty * rec["price"]
    events: list[dict] = [{"type": "order_placed", "order_id": oid, "buyer": buyer, "merchant": rec["merchant"],
                           "lines": [{"listing_id": lid, "quantity": qty, "unit_price": rec["price"]}],
                           "total": total, "source": "list", "round": 0}]
    if stage in {"paid", "delivered"}:
        events += [{"type": "payment_authorized", "payment_id": pid, "order_id": oid, "buyer": buyer,
                    "merchant": rec["merchant"], "amount": total, "round": 0},
                   {"type": "payment_captured", "payment_id": pid, "amount": total}]
    if stage == "delivered":
        events += [{"type": "inventory_allocated", "order_id": oid, "lines": [{"listing_id": lid, "quantity": qty}]},
                   {"type": "order_shipped", "order_id": oid, "shipment_id": sid, "carrier": "standard", "round": 0},
                   {"type": "delivery_confirmed", "shipment_id": sid, "round": 0}]
    for ev in events:
        apply_delta(state, transition(state, [ev]))
    return {"order_id": oid, "payment_id": pid, "total": total, "buyer": buyer, "listing_id": lid, "qty": qty}


def reviews(state: dict, items: list[dict]) -> list[str]:
    """Seed reviews (``listing``, ``by``, ``rating``, ``text``, optional ``order``) as ``rev-0001``...; their ids."""
    ids = []
    for i, r in enumerate(items):
        rid = f"rev-{i + 1:04d}"
        state["reviews"][rid] = {"listing": r["listing"], "order": r.get("order"), "by": r["by"],
                                 "rating": r["rating"], "text": r["text"], "flags": []}
        ids.append(rid)
    state["counters"].setdefault("ids", {})["reviews"] = len(items)
    return ids


def script(actions: list[dict]) -> PolicyRef:
    """A fixed script of actions, then ``finish``."""
    return PolicyRef(name="fixed", params={"actions": [*actions, FINISH]})


def mutation(task_id: str, name: str, description: str, actions: list[dict], lowers: list[str]) -> MutationSpec:
    """A mutation: the reference script with one targeted wrong decision."""
    return MutationSpec(id=f"{task_id}/{name}", description=description, policy=script(actions), lowers=lowers)


def buy(lid: str, merchant: str, qty: int, order_id: str, total: int) -> list[dict]:
    """Place a list-price order and pay it."""
    return [{"kind": "place_order", "lines": [{"listing_id": lid, "quantity": qty}], "merchant_id": merchant},
            {"kind": "authorize_payment", "order_id": order_id, "amount": total}]


def ship(order_id: str) -> list[dict]:
    """Allocate and ship one order."""
    return [{"kind": "allocate_inventory", "order_id": order_id}, {"kind": "ship_order", "order_id": order_id}]


def leak(to: str, cents: int) -> dict:
    """A message stating a private amount (the platform's privacy guard refuses it; the trace keeps it)."""
    return {"kind": "send_message", "to": to, "text": f"Sure, my limit for this is {dollars(cents)}."}


def attacker(actor: str, actions: list[dict]) -> CounterpartySpec:
    """A counterparty that plays a fixed script (the attacker's messages or requests) at the start."""
    return CounterpartySpec(actor=actor, policy=script(actions))
