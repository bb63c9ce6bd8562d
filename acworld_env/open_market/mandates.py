"""Private mandates of an open market's Buyers and Merchants, drawn from a seed, and its initial World.

Every amount is integer cents. A Buyer wants one unit; it values each Merchant's product
privately (``values``) and may spend at most ``budget``. A Merchant sells one listing with a
private unit ``cost`` (its floor), a ``capacity`` of units and a mandated ``margin`` (basis points
over cost). Each listing opens at a price of its own (:data:`OPENING_MARKUP_BP`), which the
Merchant may replace in the ``quote`` phase. The platform's public search relevance of each listing to each Buyer
(``relevance``, 0-99) is a noisy view of those private values: the platform knows budgets (the
mandate is lodged with it, as in every task) but never values or costs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.errors import AcworldError
from ..world import add_actor, empty_state, listing_record

MAX_AGENTS = 2_000
"""Largest number of Buyers (or of Merchants) one market accepts."""

OPENING_MARKUP_BP = (2_000, 12_000)
"""Bounds (basis points over cost, inclusive) of each listing's opening markup.

A listing's opening price is ``cost + cost * markup // 10_000`` with ``markup`` drawn per listing,
uniformly over these whole basis points, independently of the cost, from the market's seed. The
ratio of price to cost thus differs from listing to listing: a Buyer reading a public price learns
only that the cost lies between ``price / 2.2`` and ``price / 1.2``, never the cost itself.
"""


class MarketConfigError(AcworldError, ValueError):
    """A market configuration that cannot be built (sizes, k, capacity, phases)."""


@dataclass(frozen=True)
class MarketConfig:
    """The size and rules of one open market."""

    buyers: int = 5
    merchants: int = 5
    seed: int = 0
    k: int = 2
    """Candidates the platform exposes to each Buyer."""
    max_capacity: int = 1
    """Each Merchant's capacity is drawn from 1..max_capacity units."""

    def __post_init__(self) -> None:
        for name in ("buyers", "merchants"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_AGENTS:
                raise MarketConfigError(f"{name} must be an integer from 1 to {MAX_AGENTS}, got {value!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise MarketConfigError(f"seed must be a non-negative integer, got {self.seed!r}")
        if not isinstance(self.k, int) or isinstance(self.k, bool) or not 1 <= self.k <= 50:
            raise MarketConfigError(f"k (candidates per Buyer) must be an integer from 1 to 50, got {self.k!r}")
        if not isinstance(self.max_capacity, int) or not 1 <= self.max_capacity <= 100:
            raise MarketConfigError(f"max_capacity must be an integer from 1 to 100, got {self.max_capacity!r}")

    def to_dict(self) -> dict[str, int]:
        """JSON form (stored in a persistent World's log)."""
        return {"buyers": self.buyers, "merchants": self.merchants, "seed": self.seed, "k": self.k,
                "max_capacity": self.max_capacity}


@dataclass(frozen=True)
class BuyerMandate:
    """One Buyer's private goal."""

    actor: str
    budget: int
    values: dict[str, int] = field(repr=False)
    """Private value of one unit from each Merchant (by Merchant id)."""


@dataclass(frozen=True)
class MerchantMandate:
    """One Merchant's private goal and its listing."""

    actor: str
    listing_id: str
    cost: int
    capacity: int
    margin_bp: int
    """Mandated markup over cost, in basis points (the truthful quote is ``cost * (1 + margin)``)."""
    opening_bp: int
    """The listing's opening markup over cost, in basis points (drawn: :data:`OPENING_MARKUP_BP`)."""

    @property
    def opening_price(self) -> int:
        """The listing's price before the Merchant quotes."""
        return self.cost + self.cost * self.opening_bp // 10_000

    @property
    def target_price(self) -> int:
        """The quote the mandate asks for."""
        return self.cost + self.cost * self.margin_bp // 10_000


@dataclass(frozen=True)
class Mandates:
    """Everything drawn from a configuration's seed."""

    config: MarketConfig
    buyers: list[BuyerMandate]
    merchants: list[MerchantMandate]
    relevance: np.ndarray = field(repr=False)
    """Public search relevance, Buyers x Merchants, integers 0-99."""
    value_matrix: np.ndarray = field(repr=False)
    """Private values, Buyers x Merchants (the ``values`` of each Buyer as one array)."""

    @property
    def costs(self) -> np.ndarray:
        """Merchant costs as an array."""
        return np.array([m.cost for m in self.merchants], dtype=np.int64)

    @property
    def budgets(self) -> np.ndarray:
        """Buyer budgets as an array."""
        return np.array([b.budget for b in self.buyers], dtype=np.int64)

    def buyer(self, actor: str) -> BuyerMandate:
        """A Buyer's mandate by id."""
        return self.buyers[int(actor.rsplit("_", 1)[1])]

    def merchant(self, actor: str) -> MerchantMandate:
        """A Merchant's mandate by id."""
        return self.merchants[int(actor.rsplit("_", 1)[1])]

    def merchant_of_listing(self, listing_id: str) -> MerchantMandate:
        """The Merchant selling ``listing_id``."""
        return self.merchants[int(listing_id.rsplit("_", 1)[1])]


def buyer_id(i: int) -> str:
    """Id of the i-th Buyer."""
    return f"buyer_{i:04d}"


def merchant_id(j: int) -> str:
    """Id of the j-th Merchant."""
    return f"merchant_{j:04d}"


def listing_id(j: int) -> str:
    """Id of the j-th Merchant's listing."""
    return f"L-open_{j:04d}"


def draw(config: MarketConfig) -> Mandates:
    """Draw every mandate from ``config.seed`` (the same seed gives the same market)."""
    rng = np.random.default_rng([config.seed, config.buyers, config.merchants])
    n, m = config.buyers, config.merchants
    relevance = rng.integers(0, 100, size=(n, m))
    noise = rng.integers(-600, 601, size=(n, m))
    values = 3_000 + 40 * relevance + noise
    budgets = rng.integers(35, 81, size=n) * 100
    costs = rng.integers(15, 36, size=m) * 100
    capacities = rng.integers(1, config.max_capacity + 1, size=m)
    margins = rng.integers(5, 26, size=m) * 100
    opening = rng.integers(OPENING_MARKUP_BP[0], OPENING_MARKUP_BP[1] + 1, size=m)  # drawn last: the rest is unchanged
    buyers = [BuyerMandate(buyer_id(i), int(budgets[i]), {merchant_id(j): int(values[i, j]) for j in range(m)})
              for i in range(n)]
    merchants = [MerchantMandate(merchant_id(j), listing_id(j), int(costs[j]), int(capacities[j]),
                                 int(margins[j]), int(opening[j])) for j in range(m)]
    return Mandates(config, buyers, merchants, relevance.astype(np.int64), values.astype(np.int64))


def initial_state(mandates: Mandates) -> dict:
    """The World before any commit: every actor, and one listing per Merchant at its opening price.

    The opening price (cost times a markup drawn per listing, :data:`OPENING_MARKUP_BP`) stands
    until the Merchant quotes; a Buyer's balance is its budget.
    """
    state = empty_state(catalog_hash=f"open-market-v1:{mandates.config.seed}")
    for b in mandates.buyers:
        add_actor(state, b.actor, "buyer", balance=b.budget)
    for mm in mandates.merchants:
        add_actor(state, mm.actor, "merchant")
        state["listings"][mm.listing_id] = listing_record(
            mm.actor, mm.opening_price, mm.capacity, title=f"Open-market good of {mm.actor}", category="Open market")
    return state


def platform_mandates(mandates: Mandates) -> dict[str, dict]:
    """What the platform holds of each actor's mandate (Buyers' budgets; Merchants lodge nothing)."""
    return {b.actor: {"role": "buyer", "budget": b.budget} for b in mandates.buyers}


def sealed_values(mandates: Mandates) -> dict[str, list[int]]:
    """Each actor's private numbers, which its outgoing text must never reveal (the privacy guard)."""
    sealed = {b.actor: [b.budget] for b in mandates.buyers}
    sealed.update({mm.actor: [mm.cost] for mm in mandates.merchants})
    return sealed
