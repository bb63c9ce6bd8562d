"""Business tools after the sale: cancel, return, refund, exchange, dispute, ledger close."""


from typing import Literal

from pydantic import Field

from .base import BUYER, MERCHANT, Id, PositiveMoney, VCPAction
from .checkout import CartLine
from .text import ShortText, Text, TextId


class CancelOrder(VCPAction):
    """Cancel an order that has not shipped; any captured money is refunded."""

    group = "aftersales"
    one_shot = True
    kind: Literal["cancel_order"] = "cancel_order"
    order_id: Id = Field(description="The order cancelled.")
    reason: ShortText = Field("", description="Why.")


class RequestReturn(VCPAction):
    """Ask to return delivered units."""

    roles = BUYER
    group = "aftersales"
    one_shot = True
    kind: Literal["request_return"] = "request_return"
    order_id: Id = Field(description="The order.")
    lines: list[CartLine] = Field(min_length=1, max_length=50, description="Units to return.")
    reason: ShortText = Field(description="Why.")


class AuthorizeReturn(VCPAction):
    """Approve or deny a return request."""

    roles = MERCHANT
    group = "aftersales"
    one_shot = True
    kind: Literal["authorize_return"] = "authorize_return"
    return_id: Id = Field(description="The return request.")
    approve: bool = Field(description="True to approve, false to deny.")
    reason: ShortText = Field("", description="Why.")


class IssueRefund(VCPAction):
    """Refund captured money on a payment (never above what was captured)."""

    roles = MERCHANT
    group = "aftersales"
    one_shot = True
    answers = frozenset({"refund_request"})
    kind: Literal["issue_refund"] = "issue_refund"
    payment_id: Id = Field(description="The payment refunded.")
    amount: PositiveMoney = Field(description="Refund in cents.")
    return_id: Id | None = Field(None, description="Return this refund settles, if any.")
    event_id: Id | None = Field(
        None, description="The market notice (its event id) this refund answers, if any: it must have been "
        "sent to you and concern this payment. A new refund (new idempotency key) is a new refund.")


class OfferExchange(VCPAction):
    """Settle a return by sending a different listing instead of refunding."""

    roles = MERCHANT
    group = "aftersales"
    kind: Literal["offer_exchange"] = "offer_exchange"
    return_id: Id = Field(description="The approved return.")
    listing_id: Id = Field(description="The replacement listing.")


class OpenDispute(VCPAction):
    """Open a dispute on an order, citing evidence (trace record or object ids)."""

    roles = BUYER
    group = "aftersales"
    one_shot = True
    kind: Literal["open_dispute"] = "open_dispute"
    order_id: Id = Field(description="The order disputed.")
    reason: Literal["not_received", "not_as_described", "damaged", "unauthorized", "other"] = Field(
        description="Dispute reason."
    )
    evidence: list[TextId] = Field(default_factory=list, max_length=20, description="Ids of supporting records.")
    note: Text = Field("", description="Explanation.")


class RespondDispute(VCPAction):
    """Answer a dispute with evidence."""

    roles = MERCHANT
    group = "aftersales"
    one_shot = True
    kind: Literal["respond_dispute"] = "respond_dispute"
    dispute_id: Id = Field(description="The dispute.")
    evidence: list[TextId] = Field(default_factory=list, max_length=20, description="Ids of supporting records.")
    note: Text = Field("", description="Explanation.")


class CloseLedger(VCPAction):
    """Close an order's ledger once money and goods are settled."""

    roles = MERCHANT
    group = "aftersales"
    one_shot = True
    kind: Literal["close_ledger"] = "close_ledger"
    order_id: Id = Field(description="The order closed.")


AFTERSALES = (
    CancelOrder, RequestReturn, AuthorizeReturn, IssueRefund, OfferExchange, OpenDispute,
    RespondDispute, CloseLedger,
)
