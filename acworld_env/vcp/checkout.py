"""Business tools for quotes, checkout and payment."""


from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .base import BUYER, MERCHANT, Id, Money, PositiveMoney, Quantity, VCPAction
from .text import ShortText


class CartLine(BaseModel):
    """A listing and a quantity."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    listing_id: Id = Field(description="The listing.")
    quantity: Quantity = Field(1, description="Units.")


class QuoteLine(BaseModel):
    """A quoted line: listing, quantity and unit price."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    listing_id: Id = Field(description="The listing.")
    quantity: Quantity = Field(description="Units.")
    unit_price: PositiveMoney = Field(description="Price per unit in cents.")


class Fee(BaseModel):
    """A named fee on a quote (shipping, handling, tax)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    name: ShortText = Field(description="What the fee is for.")
    amount: Money = Field(description="Fee in cents.")


class RequestQuote(VCPAction):
    """Ask a merchant for a priced quote of a cart."""

    roles = BUYER
    group = "quotes"
    kind: Literal["request_quote"] = "request_quote"
    merchant_id: Id = Field(description="The merchant asked.")
    lines: list[CartLine] = Field(min_length=1, max_length=50, description="The cart.")


class IssueQuote(VCPAction):
    """Answer a quote request with lines, fees and an exact total."""

    roles = MERCHANT
    group = "quotes"
    one_shot = True
    kind: Literal["issue_quote"] = "issue_quote"
    request_id: Id = Field(description="The quote request answered.")
    lines: list[QuoteLine] = Field(min_length=1, max_length=50, description="Priced lines.")
    fees: list[Fee] = Field(default_factory=list, max_length=10, description="Fees added to the lines.")
    total: Money = Field(description="Exact total in cents: sum of quantity x unit price plus fees.")
    valid_rounds: int = Field(5, ge=1, le=100, description="Rounds the quote stays valid.")


class AcceptQuote(VCPAction):
    """Accept a quote; an order can then be placed from it."""

    roles = BUYER
    group = "quotes"
    one_shot = True
    kind: Literal["accept_quote"] = "accept_quote"
    quote_id: Id = Field(description="The quote accepted.")


class PlaceOrder(VCPAction):
    """Place an order from an accepted offer thread, an accepted quote, or at list price."""

    roles = BUYER
    group = "checkout"
    kind: Literal["place_order"] = "place_order"
    thread_id: Id | None = Field(None, description="Agreed negotiation thread to order from.")
    quote_id: Id | None = Field(None, description="Accepted quote to order from.")
    lines: list[CartLine] | None = Field(
        None, max_length=50, description="Lines bought at the current list price when no thread or quote."
    )
    merchant_id: Id | None = Field(None, description="Merchant of the lines (list-price orders).")


class AuthorizePayment(VCPAction):
    """Authorise payment of an order for an exact amount."""

    roles = BUYER
    group = "checkout"
    one_shot = True
    answers = frozenset({"payment_request"})
    kind: Literal["authorize_payment"] = "authorize_payment"
    order_id: Id = Field(description="The order paid.")
    amount: PositiveMoney = Field(description="Amount in cents; must equal the order total.")
    event_id: Id | None = Field(
        None, description="The market notice (its event id) this payment answers, if any: it must have been "
        "sent to you and concern this order. A new payment (new idempotency key) is a new charge.")


class CapturePayment(VCPAction):
    """Capture an authorised payment (merchant collects the money)."""

    roles = MERCHANT
    group = "checkout"
    one_shot = True
    answers = frozenset({"capture_request"})
    kind: Literal["capture_payment"] = "capture_payment"
    payment_id: Id = Field(description="The authorised payment.")
    amount: PositiveMoney = Field(description="Amount in cents, at most the authorised amount.")
    event_id: Id | None = Field(
        None, description="The market notice (its event id) this capture answers, if any: it must have been "
        "sent to you and concern this payment.")


class VoidAuthorization(VCPAction):
    """Release an authorisation that was not captured."""

    group = "checkout"
    one_shot = True
    kind: Literal["void_authorization"] = "void_authorization"
    payment_id: Id = Field(description="The authorised payment.")


class ConfirmOrder(VCPAction):
    """Merchant accepts an incoming order (order intake)."""

    roles = MERCHANT
    group = "checkout"
    one_shot = True
    kind: Literal["confirm_order"] = "confirm_order"
    order_id: Id = Field(description="The order confirmed.")


CHECKOUT = (
    RequestQuote, IssueQuote, AcceptQuote, PlaceOrder, AuthorizePayment, CapturePayment,
    VoidAuthorization, ConfirmOrder,
)
