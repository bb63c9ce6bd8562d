"""World state: plain JSON tables keyed by id, and how to build an initial state.

The state is a dict of tables. Every table maps an id to a record (a dict of JSON
values: strings, integers, booleans, lists, dicts; never floats). Money is integer
minor units. The read-only catalog is represented by its content hash in ``meta``;
the ``listings`` table is the episode's overlay of price, stock, claims and status.
"""

from __future__ import annotations

import marshal
from typing import Any

TABLES = (
    "meta", "counters", "actors", "listings", "threads", "quote_requests", "quotes", "orders",
    "payments", "shipments", "returns", "refunds", "exchanges", "disputes", "reviews",
    "reputation", "ledger", "market_events",
)

ID_PREFIX = {
    "threads": "thr", "quote_requests": "qrq", "quotes": "quo", "orders": "ord",
    "payments": "pay", "shipments": "shp", "returns": "ret", "refunds": "rfd",
    "exchanges": "exc", "disputes": "dsp", "reviews": "rev", "ledger": "led",
    "listings": "L-new",
}


def empty_state(catalog_hash: str = "", currency: str = "USD") -> dict[str, Any]:
    """A World with no actors, listings or history."""
    state: dict[str, Any] = {t: {} for t in TABLES}
    state["meta"] = {"catalog_hash": catalog_hash, "currency": currency, "schema": 1}
    return state


def add_actor(state: dict, actor_id: str, role: str, balance: int = 0) -> None:
    """Register an actor in an initial state (before any commit)."""
    state["actors"][actor_id] = {"role": role, "balance": balance, "held": 0}
    if role == "merchant":
        state["reputation"][actor_id] = {"orders": 0, "fulfilled": 0, "disputes": 0, "ratings": 0, "rating_sum": 0}


def listing_record(
    merchant: str, price: int, stock: int, *, title: str = "", category: str = "",
    claims: dict | None = None, compare_at: int | None = None, status: str = "active",
) -> dict[str, Any]:
    """The overlay record of one listing."""
    return {
        "merchant": merchant, "price": price, "stock": stock, "reserved": 0, "status": status,
        "title": title, "category": category, "claims": dict(claims or {}), "sponsor": None,
        "compare_at": compare_at,
    }


def next_id(state: dict, table: str) -> str:
    """The id the next record of ``table`` will get (deterministic: table prefix and sequence)."""
    n = state["counters"].get("ids", {}).get(table, 0) + 1
    return f"{ID_PREFIX.get(table, table[:3])}-{n:04d}"


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def clone(state: dict) -> dict:
    """Independent deep copy of a state (JSON values only).

    ``marshal`` format 2 (no shared references, so the copy shares nothing) copies plain JSON
    values several times faster than a recursive copy; anything else falls back to the latter.
    """
    try:
        return marshal.loads(marshal.dumps(state, 2))
    except ValueError:  # a value marshal cannot write; the recursive copy keeps it as it is
        return _copy(state)
