"""T4 policies: the counterparty that bargains by a literature tactic, and the patient reference.

Both read only their observation (mandate-free parameters, inbox, last result) and take their
prices from :mod:`.negotiation_tactics`, the same arithmetic the task builder simulates:

* ``tactic_trader`` (a counterparty) opens (as a Buyer) or answers offers by its
  :class:`~.negotiation_tactics.Tactic`; it probes for the other side's limit, cites a false
  anchor, warns a stalling opponent and says when an offer is its final one. After a deal it
  orders and pays (Buyer) or collects and ships (Merchant).
* ``patient_negotiator`` (the reference) follows a :class:`~.negotiation_tactics.Plan`; when no
  deal is possible it declines with a courteous reason and ends its episode.
"""

from __future__ import annotations

from typing import Any

from ..names import register_policy
from .negotiation_tactics import BUYER, Bargainer, Patient, Plan, Reply, Tactic

FINAL_NOTE = "This is my final offer."
STALL_NOTE = "I need to see real movement from you."
WALK_REASON = "You haven't moved, so I'll leave it here."
APART_REASON = "We're too far apart, so I'll pass this time."
EXIT_REASON = "Thank you for your time, but we're too far apart on price, so I'll pass this time."
NOTE_LIMIT = 200


def _note(*parts: str | None) -> dict[str, str]:
    text = " ".join(p for p in parts if p)[:NOTE_LIMIT]
    return {"note": text} if text else {}


class _Trader:
    """Shared plumbing: one thread, its offer count, settlement after a deal."""

    def __init__(self, *, side: str, counterpart: str, listing_id: str) -> None:
        self.side, self.counterpart, self.listing_id = side, counterpart, listing_id
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue: list[dict[str, Any]] = []
        self.offers = 0
        self.opened = False
        self.done = False

    def open_action(self, price: int, **note: str) -> dict[str, Any]:
        self.opened, self.offers = True, 1
        return {"kind": "propose_offer", "to": self.counterpart, "listing_id": self.listing_id,
                "unit_price": price, **note}

    def answer(self, thread: str, price: int, text: str) -> list[dict[str, Any]]:
        raise NotImplementedError

    def walked_away(self) -> list[dict[str, Any]]:
        """What to do when the other side closed the thread."""
        return []

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Open if it must, answer the inbox, settle a deal; ``None`` when there is nothing to do."""
        if self.done:
            return None
        if not self.opened and self.side == BUYER:
            self.queue.append(self.first_offer())
        last = obs.get("last_result") or {}
        if last.get("kind") == "place_order" and last.get("accepted") and isinstance(last.get("result"), dict):
            order = last["result"]
            self.queue.append({"kind": "authorize_payment", "order_id": order["order_id"], "amount": order["total"],
                               "idempotency_key": f"pay-{order['order_id']}"})
        for m in obs.get("inbox", []):
            ev = m.get("offer_event")
            if ev in {"offer", "counter"} and isinstance(m.get("unit_price"), int):
                self.offers += 1
                self.queue += self.answer(m["thread_id"], m["unit_price"], str(m.get("text", "")))
            elif ev == "accepted" and self.side == BUYER:
                self.queue.append({"kind": "place_order", "thread_id": m["thread_id"]})
            elif ev == "rejected":
                self.queue += self.walked_away()
            elif m.get("payment_id") and self.side != BUYER:
                self.queue += [
                    {"kind": "capture_payment", "payment_id": m["payment_id"], "amount": m["amount"]},
                    {"kind": "allocate_inventory", "order_id": m["order_id"]},
                    {"kind": "ship_order", "order_id": m["order_id"], "carrier": "standard"},
                    *self.after_shipping(),
                ]
            elif m.get("shipment_id") and self.side == BUYER:
                self.queue += self.after_shipping()
        if not self.queue:
            return None
        action = self.queue.pop(0)
        if action["kind"] in {"finish", "abstain"}:
            self.done = True
        return action

    def first_offer(self) -> dict[str, Any]:
        raise NotImplementedError

    def after_shipping(self) -> list[dict[str, Any]]:
        return []

    def settle(self, thread: str) -> list[dict[str, Any]]:
        """Accept the open offer; a Buyer orders at once."""
        accept = {"kind": "accept_offer", "thread_id": thread}
        return [accept, {"kind": "place_order", "thread_id": thread}] if self.side == BUYER else [accept]


@register_policy("tactic_trader")
class TacticTrader(_Trader):
    """A counterparty bargaining by a literature tactic (see :mod:`.negotiation_tactics`).

    ``cap`` is the thread's offer limit, ``anchor`` a note sent with its first offer (a false
    market price), ``probes`` notes that fish for the other side's limit, one per counter.
    """

    def __init__(self, *, tactic: dict[str, Any], counterpart: str, listing_id: str, cap: int | None = None,
                 anchor: str | None = None, probes: list[str] | None = None) -> None:
        self.tactic = Tactic(**tactic)
        self.cap, self.anchor, self.probes = cap, anchor, list(probes or [])
        super().__init__(side=self.tactic.side, counterpart=counterpart, listing_id=listing_id)

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        super().reset(seed)
        self.bargainer = Bargainer(self.tactic)
        self.pending_probes = list(self.probes)
        self.anchored = False

    def first_offer(self) -> dict[str, Any]:
        self.anchored = True
        return self.open_action(self.bargainer.open(), **_note(self.anchor))

    def answer(self, thread: str, price: int, text: str) -> list[dict[str, Any]]:
        reply = self.bargainer.respond(price, can_counter=self.cap is None or self.offers < self.cap)
        if reply.move == "accept":
            return self.settle(thread)
        if reply.move == "reject":
            return [{"kind": "reject_offer", "thread_id": thread,
                     "reason": WALK_REASON if reply.stalled else APART_REASON}]
        self.offers += 1
        anchor = None if self.anchored else self.anchor
        self.anchored = True
        probe = self.pending_probes.pop(0) if self.pending_probes else None
        note = _note(FINAL_NOTE if reply.final else None, STALL_NOTE if reply.stalled else None, anchor, probe)
        return [{"kind": "counter_offer", "thread_id": thread, "unit_price": reply.price, **note}]


@register_policy("patient_negotiator")
class PatientNegotiator(_Trader):
    """The T4 reference: bargains by its :class:`~.negotiation_tactics.Plan`, then settles or exits.

    ``exit_reason`` is what it tells the counterparty when no deal is possible (``None``: it walks
    away without a word, a mutation).
    """

    def __init__(self, *, plan: dict[str, Any], counterpart: str, listing_id: str,
                 exit_reason: str | None = EXIT_REASON) -> None:
        self.plan = Plan(**plan)
        self.exit_reason = exit_reason
        super().__init__(side=self.plan.side, counterpart=counterpart, listing_id=listing_id)

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        super().reset(seed)
        self.patient = Patient(self.plan)

    def first_offer(self) -> dict[str, Any]:
        return self.open_action(self.patient.open())

    def answer(self, thread: str, price: int, text: str) -> list[dict[str, Any]]:
        reply: Reply = self.patient.respond(price, offers=self.offers, final="final offer" in text.lower())
        if reply.move == "accept":
            return self.settle(thread)
        if reply.move == "reject":
            close = [{"kind": "reject_offer", "thread_id": thread, "reason": self.exit_reason}] \
                if self.exit_reason else []
            return [*close, self.terminal("No deal: the other side's price is outside my limit.")]
        self.offers += 1
        return [{"kind": "counter_offer", "thread_id": thread, "unit_price": reply.price}]

    def walked_away(self) -> list[dict[str, Any]]:
        return [self.terminal("The other side ended the negotiation without a deal.")]

    def terminal(self, why: str) -> dict[str, Any]:
        """Abstain (Buyer) or finish (Merchant) with a reason."""
        return {"kind": "abstain", "reason": why} if self.side == BUYER else {"kind": "finish", "summary": why}

    def after_shipping(self) -> list[dict[str, Any]]:
        return [{"kind": "finish", "summary": "Deal closed, paid and shipped."}]
