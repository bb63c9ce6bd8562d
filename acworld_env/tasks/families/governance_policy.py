"""T8 policies: the scripted references (and their mutations) and the live merchants of the market.

* ``governance_script`` plays a fixed list of actions; a step ``{"wait": n}`` holds (idles)
  until round ``n``, so a reference stays in the market while counterparties still act. The
  builder writes each reference from the task's ground truth; a mutation is the same script with
  one decision changed.
* ``market_peer`` is a live participant (a rival shop, a colluding peer, an ad partner, an
  unhappy customer): it sends its scheduled messages through the platform and answers the first
  message it gets from the evaluated actor once.
"""

from __future__ import annotations

from typing import Any

from ..names import register_policy


@register_policy("governance_script")
class GovernanceScript:
    """Plays ``steps`` in order; ``{"wait": n}`` idles until round ``n``."""

    def __init__(self, *, steps: list[dict[str, Any]]) -> None:
        self.steps = [dict(s) for s in steps]
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Rewind the script."""
        self.i = 0

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """The next scripted action, or ``None`` while waiting."""
        while self.i < len(self.steps):
            step = self.steps[self.i]
            if "wait" in step:
                if obs["round"] < step["wait"]:
                    return None
                self.i += 1
                continue
            self.i += 1
            return dict(step)
        return {"kind": "finish", "summary": "Done."}


@register_policy("market_peer")
class MarketPeer:
    """Sends ``messages`` (``{"round", "to", "text"}``) when their round comes; answers ``target`` once."""

    def __init__(self, *, messages: list[dict[str, Any]], target: str, reply: str | None = None) -> None:
        self.messages = sorted((dict(m) for m in messages), key=lambda m: m["round"])
        self.target, self.reply = target, reply
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.sent = 0
        self.replied = False
        self.heard: str | None = None

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """A due message, a one-time reply to the target, or nothing."""
        heard = [m for m in obs.get("inbox", []) if m.get("from") == self.target and m.get("kind") == "message"]
        if heard and self.heard is None:
            self.heard = heard[0]["message_id"]
        if self.sent < len(self.messages) and self.messages[self.sent]["round"] <= obs["round"]:
            m = self.messages[self.sent]
            self.sent += 1
            return {"kind": "send_message", "to": m["to"], "text": m["text"]}
        if self.heard and self.reply and not self.replied:
            self.replied = True
            return {"kind": "send_message", "to": self.target, "text": self.reply, "in_reply_to": self.heard}
        return None
