"""Example extension: a new World event, ``loyalty_points_awarded``, with its handler and table.

The market awards a Buyer loyalty points for a shipped order (a scheduled market event, committed
by the ``market`` actor like any other). The handler keeps one ``loyalty`` record per Buyer and
refuses, as a broken precondition, an award for an order that is not the Buyer's, not shipped,
or already awarded. The table is added to the initial state by :func:`extend_state`; the World's
transition, commit log, digests and replay are unchanged.
"""

from __future__ import annotations

from acworld_env.world.transition import HANDLERS, TransitionError, View, handles

EVENT = "loyalty_points_awarded"
TABLE = "loyalty"


def _award(v: View, e: dict) -> None:
    order = v.need("orders", e["order_id"])
    if order["buyer"] != e["buyer"]:
        raise TransitionError(f"order {e['order_id']} is not {e['buyer']}'s")
    if order["status"] not in {"shipped", "delivered", "completed"}:
        raise TransitionError(f"order {e['order_id']} is {order['status']}, not shipped")
    if not isinstance(e.get("points"), int) or e["points"] < 1:
        raise TransitionError("points must be a positive integer")
    rec = v.get(TABLE, e["buyer"]) or {"points": 0, "orders": []}
    if e["order_id"] in rec["orders"]:
        raise TransitionError(f"order {e['order_id']} was already awarded")
    v.put(TABLE, e["buyer"], {"points": rec["points"] + e["points"], "orders": [*rec["orders"], e["order_id"]]})


def register() -> None:
    """Register the handler (idempotent)."""
    if HANDLERS.get(EVENT) is not _award:
        handles(EVENT)(_award)


def extend_state(state: dict) -> dict:
    """Add the extension's table to an initial state (before the World is made); return it."""
    state.setdefault(TABLE, {})
    return state


def award(buyer: str, order_id: str, order_total: int, points_per_dollar: int) -> dict:
    """The award event for one order."""
    return {"type": EVENT, "buyer": buyer, "order_id": order_id, "points": max(1, order_total // 100 * points_per_dollar)}
