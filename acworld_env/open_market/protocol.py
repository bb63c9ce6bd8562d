"""What the observation, rubric and persistence modules read of a running episode (no import of it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..market import Market
    from .clearing import Clearing
    from .mandates import Mandates, MarketConfig
    from .welfare import Welfare


class Episode(Protocol):
    """The parts of :class:`~acworld_env.open_market.session.OpenMarket` other modules read."""

    config: MarketConfig
    mandates: Mandates
    market: Market
    buyer_set: frozenset[str]
    agents: list[str]
    phases: list[str]
    turns: list[str]
    exposure: dict[str, list[str]]
    quotes: dict[str, int]
    rankings: dict[str, list[str]]
    orders: dict[str, str]
    clearing: Clearing
    last: dict[str, list[dict[str, Any]]]
    scores: dict[str, float]

    @property
    def phase(self) -> str | None:
        """The current phase."""

    def welfare(self) -> Welfare:
        """The welfare report."""
