"""Business tools for fulfilment and supply: allocation, shipping, exceptions, restock."""


from typing import Literal

from pydantic import Field

from .base import BUYER, MERCHANT, Id, Quantity, VCPAction
from .checkout import CartLine
from .text import ShortText


class AllocateInventory(VCPAction):
    """Reserve stock for an order's lines."""

    roles = MERCHANT
    group = "fulfilment"
    one_shot = True
    answers = frozenset({"ship_request"})
    kind: Literal["allocate_inventory"] = "allocate_inventory"
    order_id: Id = Field(description="The order whose lines to reserve.")
    event_id: Id | None = Field(
        None, description="The market notice (its event id) this allocation answers, if any: it must have been "
        "sent to you and concern this order.")


class PartialFill(VCPAction):
    """Fill part of an order now and backorder or cancel the rest."""

    roles = MERCHANT
    group = "fulfilment"
    kind: Literal["partial_fill"] = "partial_fill"
    order_id: Id = Field(description="The order.")
    lines: list[CartLine] = Field(min_length=1, max_length=50, description="Units filled now.")
    remainder: Literal["backorder", "cancel"] = Field(description="What happens to the units not filled.")


class ShipOrder(VCPAction):
    """Ship an order's allocated units."""

    roles = MERCHANT
    group = "fulfilment"
    one_shot = True
    answers = frozenset({"ship_request"})
    kind: Literal["ship_order"] = "ship_order"
    order_id: Id = Field(description="The order shipped.")
    carrier: ShortText = Field("standard", description="Carrier name.")
    event_id: Id | None = Field(
        None, description="The market notice (its event id) this shipment answers, if any: it must have been "
        "sent to you and concern this order.")


class ReportDeliveryException(VCPAction):
    """Report a delivery problem (lost, damaged, delayed) on a shipment."""

    group = "fulfilment"
    kind: Literal["report_delivery_exception"] = "report_delivery_exception"
    shipment_id: Id = Field(description="The shipment.")
    reason: Literal["lost", "damaged", "delayed", "wrong_item"] = Field(description="What went wrong.")
    note: ShortText | None = Field(None, description="Details.")


class ConfirmDelivery(VCPAction):
    """Buyer confirms a shipment arrived."""

    roles = BUYER
    group = "fulfilment"
    one_shot = True
    kind: Literal["confirm_delivery"] = "confirm_delivery"
    shipment_id: Id = Field(description="The shipment received.")


class Restock(VCPAction):
    """Add received stock to a listing."""

    roles = MERCHANT
    group = "fulfilment"
    kind: Literal["restock"] = "restock"
    listing_id: Id = Field(description="The listing restocked.")
    quantity: Quantity = Field(description="Units added.")


class SetEta(VCPAction):
    """Promise a delivery round for an order."""

    roles = MERCHANT
    group = "fulfilment"
    kind: Literal["set_eta"] = "set_eta"
    order_id: Id = Field(description="The order.")
    eta_round: int = Field(ge=0, le=10_000, description="Logical round by which it will arrive.")


FULFILMENT = (
    AllocateInventory, PartialFill, ShipOrder, ReportDeliveryException, ConfirmDelivery,
    Restock, SetEta,
)
