"""What a platform rule sees when it judges one proposal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..vcp import Envelope
from ..world.state import next_id
from .privacy import tolerance_of

if TYPE_CHECKING:
    from ..catalog import Catalog

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class RuleSettings:
    """The task settings rules read, typed, with their defaults (built once per market)."""

    max_offers: int | None = None
    """Most offers a negotiation thread may hold (None: no limit)."""
    auth_valid_rounds: int = 20
    """Rounds a payment authorisation stays capturable."""
    return_window_rounds: int = 30
    """Rounds after delivery during which a return may be requested."""
    merchant_actors: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    """Catalog merchant id -> the actor that sells as that merchant."""
    privacy_tolerance: int = 1
    """Cents within which an amount in free text reveals a sealed value (see :mod:`.privacy`)."""

    @classmethod
    def from_dict(cls, settings: Mapping[str, Any] | None) -> RuleSettings:
        """Typed settings from a task's free-form settings (missing keys take the defaults)."""
        s = settings or {}
        return cls(max_offers=s.get("max_offers"), auth_valid_rounds=s.get("auth_valid_rounds", 20),
                   return_window_rounds=s.get("return_window_rounds", 30),
                   merchant_actors=MappingProxyType(dict(s.get("merchant_actors", {}))),
                   privacy_tolerance=tolerance_of(s))


@dataclass(frozen=True, slots=True)
class MarketView:
    """The market's live state outside the World that rules read (the market's own dicts; rules never write)."""

    messages: Mapping[str, dict] = field(default_factory=lambda: _EMPTY)
    """Every delivered message by id."""
    inboxes: Mapping[str, list[dict]] = field(default_factory=lambda: _EMPTY)
    """Each actor's delivered messages, in order."""
    mandates: Mapping[str, dict] = field(default_factory=lambda: _EMPTY)
    """Each actor's private mandate (what ``get_mandate`` returns to it)."""
    sealed: Mapping[str, list[int]] = field(default_factory=lambda: _EMPTY)
    """Each actor's sealed private values (cents), which the privacy check keeps out of its text."""


@dataclass
class RuleContext:
    """Read-only inputs of a rule: the World state, the bound envelope, the catalog, settings and market state."""

    state: dict
    envelope: Envelope
    catalog: Catalog | None
    settings: RuleSettings
    market: MarketView
    recorded: dict[str, Any] | None = None
    """The action's JSON form as the trace records it (``model_dump(mode="json", exclude_none=True)``), made
    once per proposal by whoever has it first (the market passes the one it records; checks read it through
    :meth:`action_json`)."""

    def action_json(self, action: Any) -> dict[str, Any]:
        """The action's recorded JSON form (made once per proposal; read it, never change it)."""
        if self.recorded is None:
            self.recorded = action.model_dump(mode="json", exclude_none=True)
        return self.recorded

    @property
    def actor(self) -> str:
        """The authenticated actor."""
        return self.envelope.actor

    @property
    def round(self) -> int:
        """The logical round."""
        return self.envelope.round

    def new_id(self, table: str, offset: int = 0) -> str:
        """Deterministic id of the next record in ``table``."""
        if offset == 0:
            return next_id(self.state, table)
        n = self.state["counters"].get("ids", {}).get(table, 0) + 1 + offset
        return next_id({"counters": {"ids": {table: n - 1}}}, table)

    def role_of(self, actor: str) -> str | None:
        """Role of any actor, or None if unknown."""
        rec = self.state["actors"].get(actor)
        return rec["role"] if rec else None
