"""The T2 reference (and mutation) policy: replays a plan of reads and claims worked out from the records.

The builder knows the authoritative record, so it writes the plan an honest agent would follow
(read the record, then claim only what it shows). A mutation is the same plan with one
targeted wrong decision (trusting the seller's copy, skipping a read, asserting a comparison
the records do not back). ``"$question"`` in a plan stands for the id of the first question
delivered to the actor.
"""

from __future__ import annotations

from typing import Any

from ..names import register_policy

QUESTION = "$question"


@register_policy("grounded_plan")
class GroundedPlan:
    """Submits the planned actions in order, one per step, then nothing."""

    def __init__(self, *, plan: list[dict]) -> None:
        """A policy replaying ``plan``."""
        self.plan = [dict(a) for a in plan]
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Start the plan again."""
        self.i = 0
        self.question: str | None = None

    def act(self, obs: dict[str, Any]) -> dict | None:
        """The next planned action (question links resolved from the inbox)."""
        for m in obs["inbox"]:
            if m.get("kind") == "question" and self.question is None:
                self.question = m["message_id"]
        if self.i >= len(self.plan):
            return None
        action = dict(self.plan[self.i])
        self.i += 1
        if action.get("in_reply_to") == QUESTION:
            action["in_reply_to"] = self.question or "msg-0001"
        return action
