"""Read-only queries. They never change the World and never produce a commit."""


from typing import Literal

from pydantic import Field

from .base import MERCHANT, Id, Money, VCPAction
from .text import FreeStr, ShortText, TextKey


class Query(VCPAction):
    """Base of read-only queries."""

    readonly = True
    group = "query"


class SearchListings(Query):
    """Search the catalog with filters, a text query, a sort and a page."""

    kind: Literal["search_listings"] = "search_listings"
    text: ShortText | None = Field(None, description="Free-text query over titles, brands and descriptions.")
    category: ShortText | None = Field(None, description="Exact category name, e.g. 'Coffee'.")
    brand: ShortText | None = Field(None, description="Exact brand name.")
    merchant_id: Id | None = Field(None, description="Only listings of this merchant.")
    min_price: Money | None = Field(None, description="Lowest price in cents, inclusive.")
    max_price: Money | None = Field(None, description="Highest price in cents, inclusive.")
    in_stock: bool | None = Field(None, description="True for in-stock listings only.")
    options: dict[TextKey, ShortText] = Field(
        default_factory=dict, description="Option equality filters, e.g. {'size': 'M', 'color': 'Black'}."
    )
    attributes: dict[TextKey, FreeStr | int | float | bool | dict[TextKey, float]] = Field(
        default_factory=dict,
        description="Attribute filters: equality, or a range {'min': x, 'max': y}.",
    )
    min_rating: float | None = Field(None, ge=0, le=5, description="Minimum average rating, 0 to 5.")
    sort: Literal["relevance", "price_asc", "price_desc", "rating_desc"] = Field(
        "relevance", description="Sort order; ties are broken by listing id."
    )
    page: int = Field(1, ge=1, le=10_000, description="Page number, from 1.")
    page_size: int = Field(10, ge=1, le=50, description="Results per page, 1 to 50.")


class GetListing(Query):
    """Read one listing's full record, with the current price, stock and claims."""

    kind: Literal["get_listing"] = "get_listing"
    listing_id: Id = Field(description="The listing to read.")


class GetReviews(Query):
    """Read the reviews posted for a listing."""

    kind: Literal["get_reviews"] = "get_reviews"
    listing_id: Id = Field(description="The listing whose reviews to read.")


class GetMerchantReputation(Query):
    """Read a merchant's reputation: rating, disputes, fulfilment record."""

    kind: Literal["get_merchant_reputation"] = "get_merchant_reputation"
    merchant_id: Id = Field(description="The merchant to look up.")


class GetOrder(Query):
    """Read one of your orders: lines, total, status, payments and shipments."""

    kind: Literal["get_order"] = "get_order"
    order_id: Id = Field(description="The order to read.")


class ListOrders(Query):
    """List your orders with their status."""

    kind: Literal["list_orders"] = "list_orders"


class GetPayment(Query):
    """Read a payment's authorised, captured and refunded amounts."""

    kind: Literal["get_payment"] = "get_payment"
    payment_id: Id = Field(description="The payment to read.")


class GetShipment(Query):
    """Read a shipment's status, carrier and exceptions."""

    kind: Literal["get_shipment"] = "get_shipment"
    shipment_id: Id = Field(description="The shipment to read.")


class GetOfferThread(Query):
    """Read a negotiation thread: every offer and counter-offer so far."""

    kind: Literal["get_offer_thread"] = "get_offer_thread"
    thread_id: Id = Field(description="The negotiation thread to read.")


class GetQuote(Query):
    """Read a cart quote: lines, fees, total and validity."""

    kind: Literal["get_quote"] = "get_quote"
    quote_id: Id = Field(description="The quote to read.")


class GetReturn(Query):
    """Read a return request and its authorisation status."""

    kind: Literal["get_return"] = "get_return"
    return_id: Id = Field(description="The return to read.")


class GetDispute(Query):
    """Read a dispute and the evidence filed so far."""

    kind: Literal["get_dispute"] = "get_dispute"
    dispute_id: Id = Field(description="The dispute to read.")


class GetInbox(Query):
    """Read the messages and market events addressed to you."""

    kind: Literal["get_inbox"] = "get_inbox"
    unread_only: bool = Field(False, description="Only messages not yet shown to you.")


class GetMandate(Query):
    """Read your own private mandate (never visible to anyone else)."""

    kind: Literal["get_mandate"] = "get_mandate"


class GetBalance(Query):
    """Read your own account balance."""

    kind: Literal["get_balance"] = "get_balance"


class GetInventory(Query):
    """Merchant only: read stock, reservations and backorders of your listings."""

    roles = MERCHANT
    kind: Literal["get_inventory"] = "get_inventory"
    listing_id: Id | None = Field(None, description="One listing, or all of yours when omitted.")


class GetLedger(Query):
    """Read the ledger entries of one of your orders, or all of yours."""

    kind: Literal["get_ledger"] = "get_ledger"
    order_id: Id | None = Field(None, description="One order, or all of yours when omitted.")


class GetMarketEvent(Query):
    """Read a market event (payment notice, certificate, webhook) delivered to you."""

    kind: Literal["get_market_event"] = "get_market_event"
    event_id: Id = Field(description="The market event to read.")


QUERIES: tuple[type[Query], ...] = (
    SearchListings, GetListing, GetReviews, GetMerchantReputation, GetOrder, ListOrders,
    GetPayment, GetShipment, GetOfferThread, GetQuote, GetReturn, GetDispute, GetInbox,
    GetMandate, GetBalance, GetInventory, GetLedger, GetMarketEvent,
)
