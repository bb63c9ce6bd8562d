"""The deterministic reference allocation: truthful quotes and rankings computed from the mandates alone.

No env, no agents, no World: every Merchant quotes its mandated price, the platform exposes
candidates as it would, every Buyer ranks them by its true surplus, and :func:`.clearing.clear`
assigns. A market of scripted truthful agents must reproduce it exactly.
"""

from __future__ import annotations

from .clearing import Clearing, clear, expose, priority
from .mandates import MarketConfig, draw, initial_state


def reference_allocation(config: MarketConfig) -> Clearing:
    """The clearing truthful agents should reach in ``config``'s market."""
    mandates = draw(config)
    listings = initial_state(mandates)["listings"]
    for mm in mandates.merchants:
        listings[mm.listing_id]["price"] = mm.target_price
    budgets = {b.actor: b.budget for b in mandates.buyers}
    exposure = expose(mandates, listings, budgets, config.k)
    rankings = {}
    for b in mandates.buyers:
        surplus = [(b.values[listings[lid]["merchant"]] - listings[lid]["price"], lid) for lid in exposure[b.actor]]
        rankings[b.actor] = [lid for s, lid in sorted(surplus, key=lambda x: (-x[0], x[1])) if s >= 0]
    capacity = {mm.listing_id: mm.capacity for mm in mandates.merchants}
    return clear(rankings, capacity, priority(config.seed, [b.actor for b in mandates.buyers]))
