"""T3 Preference policies: the scripted shopper (reference and mutations) and the message-sending advisors.

The shopper reads what its parameters list, flags the reviews it is told to flag, waits until
a round (the last signed revision), places one list-price order, and finishes. A mutation is
the same shopper with one wrong parameter: another listing, fewer reads, no flags, no wait.
Advisors, delegates, impostors and pushy sellers are :class:`Messenger` counterparties that
send their messages through the platform at set rounds, so their sender is authenticated.
"""

from __future__ import annotations

from typing import Any

from ..names import register_policy


@register_policy("preference_shopper")
class PreferenceShopper:
    """Reads, flags, waits, orders one listing, finishes."""

    def __init__(self, *, listing_id: str, merchant: str, reads: list[dict] | None = None,
                 flags: list[str] | None = None, not_before: int = 0) -> None:
        self.listing_id, self.merchant = listing_id, merchant
        self.plan = [dict(a) for a in reads or []]
        self.plan += [{"kind": "flag_review", "review_id": r, "reason": "undisclosed_incentive"} for r in flags or []]
        self.not_before = not_before
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue = list(self.plan)
        self.ordered = False

    def act(self, obs: dict[str, Any]) -> dict | None:
        """The next read or flag; then wait; then the order; then finish."""
        if self.queue:
            return self.queue.pop(0)
        if obs["round"] < self.not_before:
            return None
        if not self.ordered:
            self.ordered = True
            return {"kind": "place_order", "merchant_id": self.merchant,
                    "lines": [{"listing_id": self.listing_id, "quantity": 1}]}
        return {"kind": "finish", "summary": "Ordered the option that fits the instructions."}


@register_policy("preference_messenger")
class Messenger:
    """Sends each of its messages (``{"round", "to", "text"}``) once its round has come."""

    def __init__(self, *, messages: list[dict]) -> None:
        self.messages = sorted((dict(m) for m in messages), key=lambda m: m["round"])
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget what was sent."""
        self.sent = 0

    def act(self, obs: dict[str, Any]) -> dict | None:
        """The next due message, or nothing."""
        if self.sent < len(self.messages) and self.messages[self.sent]["round"] <= obs["round"]:
            m = self.messages[self.sent]
            self.sent += 1
            return {"kind": "send_message", "to": m["to"], "text": m["text"]}
        return None
