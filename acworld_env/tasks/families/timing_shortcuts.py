"""Surface shortcuts for T10 Timing, run by the baseline gate (``acworld validate``).

Each does the obvious thing an agent might do without judging the notice feed:

- ``act_on_every_notice``: carry out every notice's request (pay every payment notice,
  ship every fulfilment request, refund every refund request), citing it;
- ``classify_apply_and_act``: the same, and tell the platform every notice is to be applied;
- ``settle_every_order``: pay or ship every order the principal lists, at once, without
  reading the feed (nothing cites a notice).

The rubric must keep each of them well below full credit (see ``timing_rubric``).
"""

from __future__ import annotations

import re
from typing import Any

from ..names import register_shortcut
from .timing_policy import effect_actions

FAMILY = "T10_timing"


class _FeedScript:
    """Queue actions for each new notice; finish once the feed has closed."""

    def __init__(self) -> None:
        self.queue: list[dict] = []

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue = []

    def on_notice(self, event_id: str, event: dict) -> list[dict]:
        """Actions for one delivered notice."""
        return effect_actions(event, event_id)

    def act(self, obs: dict[str, Any]) -> dict | None:
        """Next queued action; ``finish`` after the feed closes."""
        for m in obs["inbox"]:
            if m.get("market_event"):
                self.queue += self.on_notice(m["event_id"], m["market_event"])
        if self.queue:
            return self.queue.pop(0)
        if obs["round"] > obs["mandate"].get("feed_closes_round", 0):
            return {"kind": "finish", "summary": "Done."}
        return None


@register_shortcut(FAMILY, "act_on_every_notice")
class ActOnEveryNotice(_FeedScript):
    """Carry out every notice's request, citing it."""


@register_shortcut(FAMILY, "classify_apply_and_act")
class ClassifyApplyAndAct(_FeedScript):
    """Carry out every notice's request and classify every notice as ``apply``."""

    def on_notice(self, event_id: str, event: dict) -> list[dict]:
        """The effect, then the verdict ``apply``."""
        return [*effect_actions(event, event_id), {"kind": "classify_event", "event_id": event_id, "verdict": "apply"}]


@register_shortcut(FAMILY, "settle_every_order")
class SettleEveryOrder:
    """Pay (Buyer) or allocate and ship (Merchant) every listed order once, never reading the feed."""

    def __init__(self) -> None:
        self.queue: list[dict] | None = None

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue = None

    def act(self, obs: dict[str, Any]) -> dict | None:
        """The next settlement action, then ``finish``."""
        if self.queue is None:
            self.queue = []
            for oid in obs["mandate"].get("orders", []):
                if obs["role"] == "buyer":
                    self.queue.append({"kind": "authorize_payment", "order_id": oid,
                                       "amount": _listed_total(obs["request"], oid)})
                else:
                    self.queue += [{"kind": "allocate_inventory", "order_id": oid},
                                   {"kind": "ship_order", "order_id": oid}]
        return self.queue.pop(0) if self.queue else {"kind": "finish", "summary": "Done."}


def _listed_total(request: str, order_id: str) -> int:
    """The dollar total the request text gives for an order, in cents (100 when absent)."""
    m = re.search(re.escape(order_id) + r" \([^)]*?\$([\d,]+)(?:\.(\d\d))?\)", request)
    if not m:
        return 100
    return int(m.group(1).replace(",", "")) * 100 + int(m.group(2) or 0)
