"""T7 policies: the reference (a worked plan) and the shop counterparty of Buyer tasks.

The reference of each T7 task is given its plan, the reads and decisions a careful clerk would
make under the stated policy (parameters the evaluated agent never sees), with each record id
the platform will assign computed ahead (ids are deterministic). A mutation is the same plan
with one targeted wrong decision. In Buyer tasks the shop is a scripted merchant
(``lifecycle_shop``): it reads each return request, denies it when a line is a final-sale item,
and otherwise approves it and refunds the requested amount.
"""

from __future__ import annotations

import re
from typing import Any

from ..names import register_policy

_RETURN = re.compile(r"Return request (ret-\d+)")


@register_policy("lifecycle_plan")
class LifecyclePlan:
    """Carries out a fixed list of actions, then finishes."""

    def __init__(self, *, steps: list[dict], summary: str = "Handled every request as policy says.") -> None:
        self.steps = [dict(s) for s in steps]
        self.summary = summary
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Start the plan again."""
        self.queue = list(self.steps)
        self.done = False

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """The next planned action; ``finish`` when the plan is done."""
        if self.queue:
            return dict(self.queue.pop(0))
        return {"kind": "finish", "summary": self.summary}


@register_policy("lifecycle_shop")
class LifecycleShop:
    """A merchant answering return requests: deny final-sale items, else approve and refund in full."""

    def __init__(self, *, payments: dict[str, str], final_sale: list[str] | None = None) -> None:
        self.payments = dict(payments)
        self.final_sale = set(final_sale or [])
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.pending: list[str] = []
        self.queue: list[dict] = []
        self.reading: str | None = None

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Read each new return request, then decide it (and refund an approved one)."""
        for m in obs["inbox"]:
            found = _RETURN.search(m.get("text", ""))
            if found:
                self.pending.append(found.group(1))
        last = obs.get("last_result") or {}
        if self.reading and last.get("kind") == "get_return":
            ret, rid = last.get("result") or {}, self.reading
            self.reading = None
            if last.get("accepted") and ret.get("status") == "requested":
                deny = any(x["listing_id"] in self.final_sale for x in ret["lines"])
                self.queue.append({"kind": "authorize_return", "return_id": rid, "approve": not deny,
                                   "reason": "final sale" if deny else "accepted"})
                if not deny and ret["order"] in self.payments:
                    self.queue.append({"kind": "issue_refund", "payment_id": self.payments[ret["order"]],
                                       "amount": ret["amount"], "return_id": rid})
        if self.queue:
            return self.queue.pop(0)
        if self.pending:
            self.reading = self.pending.pop(0)
            return {"kind": "get_return", "return_id": self.reading}
        return None
