"""T5 Multi-item planning and checkout (family ``T5_multi_item``).

A Buyer plans a whole cart: it reads the listings (quantity tiers, bundle prices, accessories
an item needs, incompatible pairs, each merchant's checkout fees), asks each merchant for a
quote, orders from the quote and pays its fee-inclusive total. The builder enumerates every
feasible cart to find the cheapest, and the score grades the cart bought against it (nothing
for an infeasible one). A Merchant prices a customer's quote request from its own published
terms; each line, the subtotal, the fees and the grand total are checked against the World.
Factors: 2 to 8 cart lines, 2 to 5 price tiers, 1 to 5 bundle relations, 2 to 4 fee
components, 2 to 3 merchants.
"""

from __future__ import annotations

import numpy as np

from ..names import register_family
from ..spec import TaskSpec
from . import (
    multi_item_policy,  # noqa: F401  (registers the reference and counterparty policies)
    multi_item_shortcuts,  # noqa: F401  (registers the baseline shortcuts)
)
from .multi_item_build import FAMILY, make_task

PLAN = [  # (role, capability, frozen count)
    ("buyer", "bundle_relations", 3), ("buyer", "cross_merchant_cart", 2), ("buyer", "multi_item_cart", 4),
    ("buyer", "quantity_tiers", 3), ("buyer", "total_budget", 2),
    ("merchant", "merchant_bundle_quote", 2), ("merchant", "merchant_tier_quote", 3),
    ("merchant", "merchant_total_quote", 1),
]


@register_family(FAMILY)
def build(seed: int = 0, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T5 tasks, or fresh ones from ``seed``."""
    rng = np.random.default_rng([5, 2026] if frozen else [5, seed, 7])
    prefix = "capability-v1/T5" if frozen else f"generated-{seed}/T5"
    return [make_task(f"{prefix}/{role}/{cap}/{i + 1:02d}", role, cap, i, rng)
            for role, cap, count in PLAN for i in range(count)]
