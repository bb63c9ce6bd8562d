"""Worlds and supply notices for T6: actors, listings, orders at a given stage, scheduled changes.

A supply change (a restock, a price change, a carrier exception, a new supplier date) is a
scheduled market event: the World change it makes (if any) and a ``market_event_delivered``
record commit together in the round it is due, and the actor gets a notice saying what
happened. The agent must act on the state after the change, not the one it first read.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...world import add_actor, empty_state, listing_record, transition
from ...world.transition import apply_delta
from ..spec import MutationSpec, PolicyRef, PredicateSpec, TaskSpec
from .inventory_policy import plan_ref

FAMILY = "T6_inventory"


def apply(state: dict, events: list[dict]) -> None:
    """Commit ``events`` to an initial state being built."""
    apply_delta(state, transition(state, events))


def world(buyers: int = 1, merchants: int = 1) -> dict:
    """An empty World with ``buyer_0..`` (funded) and ``merchant_0..``."""
    state = empty_state()
    for i in range(buyers):
        add_actor(state, f"buyer_{i}", "buyer", balance=2_000_000)
    for i in range(merchants):
        add_actor(state, f"merchant_{i}", "merchant")
    return state


def listing(state: dict, lid: str, merchant: str, title: str, category: str, price: int, stock: int,
            claims: dict | None = None) -> None:
    """Add a listing to an initial state."""
    state["listings"][lid] = listing_record(merchant, price, stock, title=title, category=category, claims=claims)


def order(state: dict, buyer: str, merchant: str, lines: list[tuple[str, int]], *, stage: str = "paid",
          round_: int = 0) -> tuple[str, str, int]:
    """Place an order of ``(listing, units)`` lines and take it to ``stage`` ("placed", "paid" or "shipped").

    Returns ``(order id, payment id, total)``; ids follow the World's counters.
    """
    oid = f"ord-{state['counters'].get('ids', {}).get('orders', 0) + 1:04d}"
    pid = f"pay-{state['counters'].get('ids', {}).get('payments', 0) + 1:04d}"
    priced = [{"listing_id": lid, "quantity": q, "unit_price": state["listings"][lid]["price"]} for lid, q in lines]
    total = sum(x["quantity"] * x["unit_price"] for x in priced)
    apply(state, [{"type": "order_placed", "order_id": oid, "buyer": buyer, "merchant": merchant, "lines": priced,
                   "total": total, "source": "list", "round": round_}])
    if stage in {"paid", "shipped"}:
        apply(state, [{"type": "payment_authorized", "payment_id": pid, "order_id": oid, "buyer": buyer,
                       "merchant": merchant, "amount": total, "round": round_},
                      {"type": "payment_captured", "payment_id": pid, "amount": total}])
    if stage == "shipped":
        sid = f"shp-{state['counters'].get('ids', {}).get('shipments', 0) + 1:04d}"
        apply(state, [{"type": "inventory_allocated", "order_id": oid,
                       "lines": [{"listing_id": lid, "quantity": q} for lid, q in lines]},
                      {"type": "order_shipped", "order_id": oid, "shipment_id": sid, "carrier": "standard",
                       "round": round_}])
    return oid, pid, total


def notice(index: int, round_: int, to: str | list[str], record: dict, text: str,
           events: list[dict] | None = None) -> dict:
    """A schedule item: the World ``events`` of a supply change plus its notice to ``to``."""
    eid = f"evt-{index + 1:03d}"
    to = [to] if isinstance(to, str) else to
    return {"id": eid, "round": round_, "order": index, "events": [
        *(events or []), {"type": "market_event_delivered", "event_id": eid, "record": {**record, "to": to[0]}}],
        "notices": [{"to": a, "kind": "event", "event_id": eid, "market_event": record, "text": text} for a in to]}


def mutation(task_id: str, name: str, description: str, steps: list[dict], lowers: list[str],
             final: dict | None = None) -> MutationSpec:
    """A plan-runner mutation declaring the predicates it lowers."""
    return MutationSpec(id=f"{task_id}/{name}", description=description,
                        policy=PolicyRef(name="inventory_plan", params=plan_ref(steps, final)), lowers=sorted(lowers))


def lower_first(title: str) -> str:
    """A product title inside a sentence: "Vitamin C serum" -> "vitamin C serum" (acronyms kept)."""
    return title[:1].lower() + title[1:] if title[1:2].islower() else title


def pick(rng: np.random.Generator, items: list[Any]) -> Any:
    """One item drawn from ``items``."""
    return items[int(rng.integers(len(items)))]


def make_task(task_id: str, capability: str, role: str, *, request: str, mandate: dict, state: dict,
              schedule: list[dict], predicates: list[PredicateSpec], steps: list[dict],
              mutations: list[MutationSpec], difficulty: dict, max_steps: int, final: dict | None = None,
              actor: str | None = None) -> TaskSpec:
    """A T6 task whose reference is the plan runner with ``steps``."""
    total = round(sum(p.weight for p in predicates), 6)
    if total != 1.0:
        raise ValueError(f"{task_id}: predicate weights sum to {total}")
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=capability, role=role,  # type: ignore[arg-type]
        actor=actor or ("buyer_0" if role == "buyer" else "merchant_0"), difficulty=difficulty, request=request,
        mandate=mandate, initial_state=state, schedule=schedule, max_steps=max_steps, predicates=predicates,
        reference=PolicyRef(name="inventory_plan", params=plan_ref(steps, final)), mutations=mutations)
