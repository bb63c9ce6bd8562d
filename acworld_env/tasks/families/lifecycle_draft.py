"""What a T7 capability builder returns (a :class:`Draft`), and helpers the builders share."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..spec import CounterpartySpec, PredicateSpec
from .common import PRODUCTS, dollars, pred
from .lifecycle_world import Order, WorldBuilder


@dataclass
class Mutation:
    """One targeted wrong decision: the plan that makes it and the predicates it must lower."""

    name: str
    description: str
    steps: list[dict]
    lowers: list[str]


@dataclass
class Draft:
    """One task's world, words, rubric, reference plan and mutations (the family module adds ids)."""

    state: dict
    request: str
    mandate: dict
    predicates: list[PredicateSpec]
    steps: list[dict]
    mutations: list[Mutation]
    difficulty: dict
    counterparties: list[CounterpartySpec] = field(default_factory=list)
    settings: dict = field(default_factory=dict)


def products(rng: np.random.Generator, k: int, exclude: tuple[str, ...] = ()) -> list[tuple[str, str, int]]:
    """``k`` distinct (category, title, price) products, none titled as in ``exclude``."""
    items = [(cat, t, p) for cat in sorted(PRODUCTS) for t, p in PRODUCTS[cat] if t not in exclude]
    return [items[int(i)] for i in rng.permutation(len(items))[:k]]


def shelf(w: WorldBuilder, rng: np.random.Generator, k: int, *, stock: int = 10,
          exclude: tuple[str, ...] = ()) -> list[str]:
    """``k`` listings of distinct products (none titled as in ``exclude``)."""
    return [w.listing(t, p, stock=stock, category=c) for c, t, p in products(rng, k, exclude)]


def title(w: WorldBuilder, listing_id: str) -> str:
    """A listing's title in lower case, as people write it in a sentence."""
    return str(w.state["listings"][listing_id]["title"]).lower()


def describe(w: WorldBuilder, o: Order) -> str:
    """``ord-0001 (2 x trail running shoes + 1 x cork yoga block pair; $304)``."""
    items = " + ".join(f"{x['quantity']} x {title(w, x['listing_id'])}" for x in o.lines)
    return f"{o.order_id} ({items}; {dollars(o.total)})"


def weights(total: float, n: int) -> list[float]:
    """``n`` weights summing to ``total`` (rounded to 4 places, the last takes the rest)."""
    each = round(total / n, 4)
    return [each] * (n - 1) + [round(total - each * (n - 1), 4)]


def settled(pid: str, order_id: str, net: int, weight: float, *, loss: str = "Execution",
            **params: object) -> PredicateSpec:
    """The order's records agree (see the ``lc_order_settled`` kind)."""
    return pred(pid, "lc_order_settled", weight, "World effect", loss, order_id=order_id, net=net, **params)


def field_check(table: str, key: str, path: str, value: object) -> dict:
    """One World check for ``lc_fields`` / ``lc_left_alone``."""
    return {"table": table, "key": key, "path": path, "value": value}


def case(o: Order, ask: str, **extra: object) -> dict:
    """One case of the mandate: an order and what was asked about it."""
    return {"order_id": o.order_id, "payment_id": o.payment_id, "ask": ask,
            "lines": [{"listing_id": x["listing_id"], "quantity": x["quantity"]} for x in o.lines], **extra}


def without(steps: list[dict], drop: dict) -> list[dict]:
    """The plan without one step."""
    out = list(steps)
    out.remove(drop)
    return out


def reads(orders: list[Order]) -> list[dict]:
    """Reading each order first, as a careful clerk does."""
    return [{"kind": "get_order", "order_id": o.order_id} for o in orders]
