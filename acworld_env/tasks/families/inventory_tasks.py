"""The T6 plan: capabilities, task counts and the controlled factors each task draws."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..spec import TaskSpec
from . import inventory_buyer as buyer
from . import inventory_carrier as carrier
from . import inventory_merchant as merchant
from . import inventory_supply as supply

Builder = Callable[[str, str, np.random.Generator, int, bool], TaskSpec]

PLAN = [
    ("buyer", "buyer_delivery_exception", 2), ("buyer", "buyer_partial_backorder", 2),
    ("buyer", "buyer_restock_price", 2), ("buyer", "buyer_stock_substitution", 2),
    ("merchant", "merchant_competing_commitment", 3), ("merchant", "merchant_delivery_exception", 2),
    ("merchant", "merchant_inventory_eta", 2), ("merchant", "merchant_partial_backorder", 3),
    ("merchant", "merchant_restock_price", 2),
]


def _draw(rng: np.random.Generator, frozen: bool, fixed: list, low: int, high: int, i: int) -> int:
    """The frozen factor of task ``i``, or a fresh one in ``[low, high]``."""
    return fixed[i] if frozen else int(rng.integers(low, high + 1))


def make(task_id: str, capability: str, rng: np.random.Generator, i: int, frozen: bool) -> TaskSpec:
    """Task ``i`` of ``capability``, its factors fixed (frozen) or drawn from ``rng``."""
    if capability == "buyer_delivery_exception":
        late, lost = ([2, 1], [1, 3]) if frozen else (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        return carrier.buyer_delivery(task_id, capability, rng, late[i] if frozen else late,
                                      lost[i] if frozen else lost)
    if capability == "merchant_delivery_exception":
        late, lost = ([2, 3], [1, 3]) if frozen else (int(rng.integers(2, 4)), int(rng.integers(1, 4)))
        return carrier.merchant_delivery(task_id, capability, rng, late[i] if frozen else late,
                                         lost[i] if frozen else lost)
    if capability == "buyer_partial_backorder":
        variant = ["delay", "short"][i % 2] if frozen else str(rng.choice(["delay", "short"]))
        return buyer.partial_backorder(task_id, capability, rng, variant)
    if capability == "buyer_restock_price":
        return buyer.restock_price(task_id, capability, rng, _draw(rng, frozen, [2, 4], 2, 4, i))
    if capability == "buyer_stock_substitution":
        return buyer.substitution(task_id, capability, rng, _draw(rng, frozen, [3, 5], 2, 5, i))
    if capability == "merchant_competing_commitment":
        return merchant.competing(task_id, capability, rng, _draw(rng, frozen, [2, 3, 4], 2, 4, i))
    if capability == "merchant_partial_backorder":
        return merchant.partial_backorder(task_id, capability, rng, _draw(rng, frozen, [2, 3, 4], 2, 4, i))
    if capability == "merchant_inventory_eta":
        skus, changes = ([2, 4], [3, 4]) if frozen else (int(rng.integers(2, 5)), int(rng.integers(2, 5)))
        return supply.inventory_eta(task_id, capability, rng, skus[i] if frozen else skus,
                                    changes[i] if frozen else changes)
    if capability == "merchant_restock_price":
        return supply.restock_price(task_id, capability, rng, _draw(rng, frozen, [3, 4], 3, 4, i))
    raise KeyError(capability)
