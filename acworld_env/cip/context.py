"""What a platform rule sees when it judges one proposal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..vcp import Envelope
from ..world.state import next_id

if TYPE_CHECKING:
    from ..catalog import Catalog


@dataclass
class RuleContext:
    """Read-only inputs of a rule: the World state, the bound envelope, the catalog, market settings."""

    state: dict
    envelope: Envelope
    catalog: Catalog | None
    settings: dict[str, Any]

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
