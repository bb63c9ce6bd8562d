"""Exposure and clearing: the platform's bounded candidates and the deterministic assignment.

Exposure: a Buyer sees the ``k`` feasible listings with the highest public relevance to it.
Feasible means active, in stock and quoted at or below the Buyer's budget (the platform holds the
budget; it never sees values). Order: relevance descending, then price ascending, then listing id.

Clearing (immediate acceptance with fallback), declared tie-breaks:

1. Every Buyer ranks some of its own candidates (a ranking naming anything else is refused).
2. In each round every unassigned Buyer with a choice left proposes to its next choice.
3. A listing accepts proposals while it has units, in **Buyer priority** order: ascending
   ``sha256("<seed>:<buyer id>")`` (fixed by the seed, not by ids or arrival order).
4. An accepted Buyer is assigned for good; a refused one falls back to its next choice in the
   next round. Clearing ends when no Buyer can propose.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .mandates import Mandates

TIE_BREAK = "relevance desc, price asc, listing id asc (exposure); sha256(seed:buyer) asc (clearing priority)"


def expose(mandates: Mandates, listings: dict[str, dict], budgets: dict[str, int], k: int) -> dict[str, list[str]]:
    """Each Buyer's ``k`` feasible candidates, best first (see the module's ordering)."""
    live = [(j, lid, rec["price"]) for j, mm in enumerate(mandates.merchants)
            for lid in [mm.listing_id] if (rec := listings.get(lid)) is not None
            and rec["status"] == "active" and rec["stock"] - rec.get("reserved", 0) > 0]
    out: dict[str, list[str]] = {}
    for i, b in enumerate(mandates.buyers):
        rel = mandates.relevance[i]
        feasible = [(-int(rel[j]), price, lid) for j, lid, price in live if price <= budgets[b.actor]]
        feasible.sort()
        out[b.actor] = [lid for _, _, lid in feasible[:k]]
    return out


def priority(seed: int, buyers: list[str]) -> list[str]:
    """Buyers in clearing priority order (the declared tie-break)."""
    return sorted(buyers, key=lambda b: (hashlib.sha256(f"{seed}:{b}".encode()).hexdigest(), b))


@dataclass
class Clearing:
    """The outcome of clearing: who gets which listing, at which choice, after how many rounds."""

    assignment: dict[str, str] = field(default_factory=dict)
    """Buyer -> listing, in priority order."""
    choice: dict[str, int] = field(default_factory=dict)
    """Buyer -> index of its assigned listing in its ranking (0: first choice)."""
    contested: list[str] = field(default_factory=list)
    """Listings that refused at least one proposal."""
    rounds: int = 0

    @property
    def fallbacks(self) -> list[str]:
        """Buyers assigned to a choice other than their first (after contention)."""
        return [b for b, c in self.choice.items() if c > 0]


def clear(rankings: dict[str, list[str]], capacity: dict[str, int], order: list[str]) -> Clearing:
    """Assign Buyers to listings from their rankings (see the module docstring). Deterministic."""
    rank = {b: i for i, b in enumerate(order)}
    left = dict(capacity)
    pointer = {b: 0 for b in rankings}
    result = Clearing()
    contested: set[str] = set()
    while True:
        proposals: dict[str, list[str]] = {}
        for b, choices in rankings.items():
            if b not in result.choice and pointer[b] < len(choices):
                proposals.setdefault(choices[pointer[b]], []).append(b)
        if not proposals:
            break
        result.rounds += 1
        for lid in sorted(proposals):
            for b in sorted(proposals[lid], key=rank.__getitem__):
                if left.get(lid, 0) > 0:
                    left[lid] -= 1
                    result.choice[b] = pointer[b]
                    result.assignment[b] = lid
                else:
                    contested.add(lid)
                    pointer[b] += 1
    result.assignment = {b: result.assignment[b] for b in order if b in result.assignment}
    result.contested = sorted(contested)
    return result
