"""Surface shortcuts for T7 after-sales, run by the baseline gate (``acworld validate``).

Each reads only the cases its mandate lists (what each customer asked, or, for a Buyer, the
orders in play) and applies one blanket answer without reading a record or the policy:

- ``approve_everything``: grant every ask as made (cancel, approve and refund the amount
  asked, send the exchange asked for, concede a dispute; a Buyer returns every unit, cancels
  every order, disputes every problem, orders the replacement it first thought of);
- ``refuse_everything``: refuse every refund and return (deny returns, contest disputes, close
  books as they stand; a Buyer asks for nothing);
- ``refund_in_full``: settle everything with a full refund of the amount asked (no fee, no
  exchange, no evidence); a Buyer sends every unit back.
"""

from __future__ import annotations

from typing import Any

from ..names import register_shortcut

FAMILY = "T7_lifecycle"


class _CaseScript:
    """Queue actions for every case of the mandate, then finish (pays a new order once it exists)."""

    def __init__(self) -> None:
        self.queue: list[dict] | None = None

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue = None

    def merchant(self, case: dict) -> list[dict]:
        """Actions for one customer ask."""
        return []

    def buyer(self, case: dict) -> list[dict]:
        """Actions for one of the principal's orders."""
        return []

    def act(self, obs: dict[str, Any]) -> dict | None:
        """Next queued action; ``finish`` when none is left."""
        if self.queue is None:
            self.queue = []
            for case in obs["mandate"].get("cases", []):
                self.queue += self.merchant(case) if obs["role"] == "merchant" else self.buyer(case)
        last = obs.get("last_result") or {}
        if last.get("kind") == "place_order" and last.get("accepted"):
            res = last["result"]
            self.queue.insert(0, {"kind": "authorize_payment", "order_id": res["order_id"], "amount": res["total"]})
        return self.queue.pop(0) if self.queue else {"kind": "finish", "summary": "Done."}


def _refund(case: dict, amount: int | None = None) -> dict:
    ret = {"return_id": case["return_id"]} if case.get("return_id") else {}
    return {"kind": "issue_refund", "payment_id": case["payment_id"], "amount": amount or case["asked"], **ret}


def _return_all(case: dict) -> list[dict]:
    return [{"kind": "request_return", "order_id": case["order_id"], "lines": case["lines"],
             "reason": "Not what I want."}]


@register_shortcut(FAMILY, "approve_everything")
class ApproveEverything(_CaseScript):
    """Grant every ask as made."""

    def merchant(self, case: dict) -> list[dict]:
        """Cancel, approve and refund, exchange as asked, concede, close."""
        ask = case["ask"]
        if ask == "cancel":
            return [{"kind": "cancel_order", "order_id": case["order_id"]}]
        if ask == "return":
            return [{"kind": "authorize_return", "return_id": case["return_id"], "approve": True}, _refund(case)]
        if ask in {"refund", "dispute"}:
            return [_refund(case)]
        if ask == "exchange":
            return [{"kind": "offer_exchange", "return_id": case["return_id"], "listing_id": case["asked_listing"]}]
        return [{"kind": "close_ledger", "order_id": case["order_id"]}]

    def buyer(self, case: dict) -> list[dict]:
        """Cancel, return everything, order the first replacement, dispute."""
        ask = case["ask"]
        if ask == "cancel":
            return [{"kind": "cancel_order", "order_id": case["order_id"]}]
        if ask == "dispute":
            return [{"kind": "open_dispute", "order_id": case["order_id"], "reason": "not_as_described",
                     "evidence": [case["order_id"]]}]
        out = _return_all(case)
        if ask == "exchange":
            out.append({"kind": "place_order", "merchant_id": "merchant_0",
                        "lines": [{"listing_id": case["asked_listing"], "quantity": 1}]})
        return out


@register_shortcut(FAMILY, "refuse_everything")
class RefuseEverything(_CaseScript):
    """Refuse every refund and return."""

    def merchant(self, case: dict) -> list[dict]:
        """Deny returns, contest disputes, close books as they are."""
        ask = case["ask"]
        if ask == "return":
            return [{"kind": "authorize_return", "return_id": case["return_id"], "approve": False}]
        if ask == "dispute":
            return [{"kind": "respond_dispute", "dispute_id": case["dispute_id"], "evidence": [case["order_id"]],
                     "note": "We do not accept this claim."}]
        if ask == "close":
            return [{"kind": "close_ledger", "order_id": case["order_id"]}]
        return []


@register_shortcut(FAMILY, "refund_in_full")
class RefundInFull(_CaseScript):
    """Settle everything with a full refund of the amount asked."""

    def merchant(self, case: dict) -> list[dict]:
        """Cancel in full, approve and refund in full, refund instead of exchanging, concede, refund and close."""
        ask = case["ask"]
        if ask == "cancel":
            return [{"kind": "cancel_order", "order_id": case["order_id"]}]
        if ask == "return":
            return [{"kind": "authorize_return", "return_id": case["return_id"], "approve": True}, _refund(case)]
        if ask == "close":
            pay = [_refund(case)] if case.get("return_id") else []
            return [*pay, {"kind": "close_ledger", "order_id": case["order_id"]}]
        return [_refund(case)]

    def buyer(self, case: dict) -> list[dict]:
        """Cancel every order, send every unit back."""
        if case["ask"] == "cancel":
            return [{"kind": "cancel_order", "order_id": case["order_id"]}]
        return _return_all(case)
