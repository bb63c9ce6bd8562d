"""Registry of per-action platform rules, and shared market-rule helpers.

A rule takes the context and the parsed action and returns an :class:`Outcome`, or raises
:class:`Reject`. Rules never write: the events they return are committed by the World.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.name_tables import register_in
from ..world.state import listing_record
from .context import RuleContext
from .result import Outcome, Reject, require

Rule = Callable[[RuleContext, object], Outcome]
RULES: dict[str, Rule] = {}


def rule(kind: str) -> Callable[[Rule], Rule]:
    """Register the rule of one action kind."""
    return register_in(RULES, kind)


def record(ctx: RuleContext, table: str, key: str, *, what: str | None = None) -> dict:
    """A World record, or an ``unknown_id`` rejection."""
    rec = ctx.state[table].get(key)
    require(rec is not None, "unknown_id", f"no {what or table.rstrip('s')} {key!r}")
    return rec  # type: ignore[return-value]


def own(ctx: RuleContext, rec: dict, *fields: str, what: str = "record") -> None:
    """Reject unless the actor is named in one of ``fields`` of ``rec``."""
    require(any(rec.get(f) == ctx.actor for f in fields), "not_party", f"you are not a party to this {what}")


def listing(ctx: RuleContext, listing_id: str, events: list[dict]) -> dict:
    """A listing's overlay record; a catalog listing is materialised by an event prepended to ``events``."""
    rec = ctx.state["listings"].get(listing_id)
    if rec is not None:
        return rec
    for ev in events:
        if ev["type"] == "listing_materialized" and ev["listing_id"] == listing_id:
            return ev["record"]
    item = ctx.catalog.get(listing_id) if ctx.catalog is not None else None
    if item is None:
        raise Reject("unknown_listing", f"no listing {listing_id!r}")
    merchant = ctx.settings.merchant_actors.get(item.merchant_id, item.merchant_id)
    rec = listing_record(
        merchant, item.price, item.quantity if item.in_stock else 0, title=item.title,
        category=item.category, compare_at=item.compare_at_price,
    )
    events.append({"type": "listing_materialized", "listing_id": listing_id, "record": rec})
    return rec


def check_owner(ctx: RuleContext, rec: dict, listing_id: str) -> None:
    """Reject (``not_owner``) unless the acting merchant sells listing ``rec``."""
    require(rec["merchant"] == ctx.actor, "not_owner", f"{listing_id} is not yours")


def owned_listing(ctx: RuleContext, listing_id: str, events: list[dict]) -> dict:
    """A listing the acting merchant sells (materialised as :func:`listing` does), or a rejection."""
    rec = listing(ctx, listing_id, events)
    check_owner(ctx, rec, listing_id)
    return rec


def active_listing(ctx: RuleContext, listing_id: str, events: list[dict]) -> dict:
    """A listing that can be transacted."""
    rec = listing(ctx, listing_id, events)
    require(rec["status"] == "active", "listing_inactive", f"listing {listing_id} is {rec['status']}")
    require(rec["price"] > 0, "bad_price", f"listing {listing_id} has no positive price")
    return rec


def counterparty(ctx: RuleContext, actor: str, role: str) -> None:
    """Reject unless ``actor`` exists and has ``role``."""
    require(ctx.role_of(actor) is not None, "unknown_actor", f"no actor {actor!r}")
    require(ctx.role_of(actor) == role, "wrong_counterparty", f"{actor} is not a {role}")
    require(actor != ctx.actor, "wrong_counterparty", "you cannot trade with yourself")
