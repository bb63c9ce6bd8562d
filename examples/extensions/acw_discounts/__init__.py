"""Example extension: a new platform tool, ``set_discount``, registered from outside ``acworld_env``.

A Merchant discounts its own listing by a whole percentage of the reference price. The action
gets a platform rule through ``rule`` and then joins the VCP union through ``register_action``
(which refuses a kind without a rule); its
rule emits the World's existing ``listing_updated`` event, so no World change is needed. Every
platform check still applies: identity, role (Buyers may not use it), ownership, field bounds
and the privacy guard on its free-text ``note``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from acworld_env.cip.context import RuleContext
from acworld_env.cip.result import Outcome, require
from acworld_env.cip.rules import owned_listing, rule
from acworld_env.vcp.base import MERCHANT, VCPAction
from acworld_env.vcp.text import PlainId, ShortText
from acworld_env.vcp.union import TOOLS, register_action

KIND = "set_discount"


class SetDiscount(VCPAction):
    """Discount your own listing by a percentage of its reference price."""

    roles = MERCHANT
    group = "authoring"
    kind: Literal["set_discount"] = "set_discount"
    listing_id: PlainId = Field(description="Your listing (an id: not free text).")
    percent: int = Field(ge=1, le=90, description="Discount in whole percent of the reference price, 1 to 90.")
    note: ShortText = Field("", description="Message shown with the discount (free text: privacy-checked).")


def _set_discount(ctx: RuleContext, a: SetDiscount) -> Outcome:
    events: list[dict] = []
    rec = owned_listing(ctx, a.listing_id, events)
    base = rec.get("compare_at") or rec["price"]
    price = base - base * a.percent // 100
    require(price >= 1, "invalid_field", "the discount leaves no price")
    events.append({"type": "listing_updated", "listing_id": a.listing_id, "price": price, "stock": None,
                   "status": None, "compare_at": base, "claims": {}})
    return Outcome(True, events=events, result={"listing_id": a.listing_id, "price": price, "compare_at": base})


def register() -> None:
    """Register the action and its rule (idempotent)."""
    if TOOLS.get(KIND) is SetDiscount:
        return
    rule(KIND)(_set_discount)
    register_action(SetDiscount)
