"""Registry of per-action platform rules, and shared market-rule helpers.

A rule takes the context and the parsed action and returns an :class:`Outcome`, or raises
:class:`Reject`. Rules never write: the events they return are committed by the World.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.name_tables import register_in
from ..vcp.union import BUILTIN_KINDS, ActionRegistryError, check_kind_name
from ..vcp.union import RULES as _RULES
from ..world.state import listing_record
from .context import RuleContext
from .result import Outcome, Reject, require

Rule = Callable[[RuleContext, object], Outcome]
RULES: dict[str, Rule] = _RULES
"""Every action kind's rule (the protocol layer's table, so that ``register_action`` can check a kind has one)."""


def rule(kind: str) -> Callable[[Rule], Rule]:
    """Register the rule of one action kind (an extension registers its rule, then its action).

    Refused with :class:`~acworld_env.vcp.union.ActionRegistryError` when ``kind`` is not a plain
    identifier, or is a built-in kind whose rule is already in place (it is never replaced).
    """
    check_kind_name(kind)
    store = register_in(RULES, kind)

    def register(fn: Rule) -> Rule:
        old = RULES.get(kind)
        if kind in BUILTIN_KINDS and old is not None and old is not fn:
            raise ActionRegistryError(f"{kind!r} is a built-in action kind; its platform rule cannot be replaced")
        return store(fn)

    return register


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
