"""The T10 event handler: applies each market event once, in order, while it is fresh and ours.

Every effect it takes cites the notice it answers (``event_id``). Mutations flip one of its
judgements (trust duplicates, ignore sequence, ignore expiry, act on foreign events) so
exactly one kind of mistake enters the trace.
"""

from __future__ import annotations

from typing import Any

from ..names import register_policy


@register_policy("event_handler")
class EventHandler:
    """Classifies every delivered event and performs the effect of the ones to apply."""

    def __init__(self, *, own_orders: list[str], close_round: int, trust_duplicates: bool = False,
                 ignore_sequence: bool = False, ignore_expiry: bool = False, trust_foreign: bool = False) -> None:
        self.own = set(own_orders)
        self.close_round = close_round
        self.flags = (trust_duplicates, ignore_sequence, ignore_expiry, trust_foreign)
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.expected: dict[str, int] = {}
        self.queue: list[dict] = []

    def verdict(self, ev: dict, round_: int) -> str:
        """The classification this handler gives an event."""
        trust_dup, ignore_seq, ignore_exp, trust_foreign = self.flags
        if ev["order_id"] not in self.own and not trust_foreign:
            return "foreign"
        if ev.get("valid_until_round") is not None and round_ > ev["valid_until_round"] and not ignore_exp:
            return "stale"
        expected = self.expected.get(ev["stream"], 1)
        if ev["seq"] < expected and not trust_dup:
            return "duplicate"
        if ev["seq"] > expected and not ignore_seq:
            return "out_of_order"
        return "apply"

    def act(self, obs: dict[str, Any]) -> dict | None:
        """Queue verdicts and effects for new events; finish after the feed closes."""
        for m in obs["inbox"]:
            ev = m.get("market_event")
            if not ev:
                continue
            verdict = self.verdict(ev, obs["round"])
            if verdict == "apply":
                self.expected[ev["stream"]] = max(self.expected.get(ev["stream"], 1), ev["seq"] + 1)
                self.queue += effect_actions(ev, m["event_id"])
            self.queue.append({"kind": "classify_event", "event_id": m["event_id"], "verdict": verdict})
        if self.queue:
            return self.queue.pop(0)
        if obs["round"] > self.close_round:
            return {"kind": "finish", "summary": "All notices handled."}
        return None


def effect_actions(ev: dict, event_id: str | None = None) -> list[dict]:
    """The actions that carry out an event's request, citing the notice ``event_id`` when given."""
    cite = {"event_id": event_id} if event_id else {}
    if ev["type"] == "payment_request":
        return [{"kind": "authorize_payment", "order_id": ev["order_id"], "amount": ev["amount"], **cite}]
    if ev["type"] == "ship_request":
        return [{"kind": "allocate_inventory", "order_id": ev["order_id"], **cite},
                {"kind": "ship_order", "order_id": ev["order_id"], **cite}]
    if ev["type"] == "refund_request":
        return [{"kind": "issue_refund", "payment_id": ev["payment_id"], "amount": ev["amount"], **cite}]
    return []
