"""Transition handlers for fulfilment, after-sales, reviews and market events."""

from __future__ import annotations

from .handlers_trade import _answered, _ledger
from .transition import TransitionError, View, handles


def _move_stock(v: View, listing_id: str, *, stock: int = 0, reserved: int = 0) -> None:
    rec = v.edit("listings", listing_id)
    rec["stock"] += stock
    rec["reserved"] += reserved
    if rec["stock"] < 0 or rec["reserved"] < 0:
        raise TransitionError(f"stock of {listing_id} would go negative")


@handles("inventory_allocated")
def _inventory_allocated(v: View, e: dict) -> None:
    order = v.edit("orders", e["order_id"])
    for line in e["lines"]:
        _move_stock(v, line["listing_id"], stock=-line["quantity"], reserved=line["quantity"])
        lid = line["listing_id"]
        order["allocated"][lid] = order["allocated"].get(lid, 0) + line["quantity"]
    for lid, qty in e.get("backorder", {}).items():
        order["backordered"][lid] = order["backordered"].get(lid, 0) + qty
    if order["status"] in {"paid", "placed", "authorized"}:
        order["status"] = "allocated"
    _answered(v, e, f"allocation:{e['order_id']}")


@handles("order_shipped")
def _order_shipped(v: View, e: dict) -> None:
    order = v.edit("orders", e["order_id"])
    lines = []
    for lid, qty in sorted(order["allocated"].items()):
        _move_stock(v, lid, reserved=-qty)
        order["shipped"][lid] = order["shipped"].get(lid, 0) + qty
        lines.append({"listing_id": lid, "quantity": qty})
    order["allocated"] = {}
    order["status"] = "shipped"
    order["shipment"] = e["shipment_id"]
    v.new_id("shipments", {
        "order": e["order_id"], "carrier": e["carrier"], "lines": lines, "status": "in_transit",
        "exceptions": [], "round": e["round"], **({"answers": e["event_id"]} if e.get("event_id") else {}),
    }, e["shipment_id"])
    _answered(v, e, e["shipment_id"])
    rep = v.edit("reputation", order["merchant"])
    rep["fulfilled"] += 1


@handles("delivery_exception_reported")
def _delivery_exception(v: View, e: dict) -> None:
    shp = v.edit("shipments", e["shipment_id"])
    shp["exceptions"].append({"reason": e["reason"], "by": e["by"]})
    shp["status"] = "exception"


@handles("delivery_confirmed")
def _delivery_confirmed(v: View, e: dict) -> None:
    shp = v.edit("shipments", e["shipment_id"])
    shp["status"] = "delivered"
    order = v.edit("orders", shp["order"])
    order["status"] = "delivered"
    order["delivered_round"] = e["round"]


@handles("restocked")
def _restocked(v: View, e: dict) -> None:
    _move_stock(v, e["listing_id"], stock=e["quantity"])


@handles("eta_set")
def _eta_set(v: View, e: dict) -> None:
    v.edit("orders", e["order_id"])["eta_round"] = e["eta_round"]


@handles("order_cancelled")
def _order_cancelled(v: View, e: dict) -> None:
    order = v.edit("orders", e["order_id"])
    for lid, qty in sorted(order["allocated"].items()):
        _move_stock(v, lid, stock=qty, reserved=-qty)
    order["allocated"] = {}
    order["status"] = "cancelled"
    _ledger(v, e["order_id"], {"type": "cancel", "amount": 0})


@handles("return_requested")
def _return_requested(v: View, e: dict) -> None:
    v.new_id("returns", {
        "order": e["order_id"], "buyer": e["buyer"], "merchant": e["merchant"], "lines": e["lines"],
        "reason": e["reason"], "status": "requested", "amount": e["amount"],
    }, e["return_id"])


@handles("return_decided")
def _return_decided(v: View, e: dict) -> None:
    v.edit("returns", e["return_id"])["status"] = "authorized" if e["approve"] else "denied"


@handles("refund_issued")
def _refund_issued(v: View, e: dict) -> None:
    pay = v.edit("payments", e["payment_id"])
    if pay["refunded"] + e["amount"] > pay["captured"]:
        raise TransitionError("refund above captured amount")
    pay["refunded"] += e["amount"]
    pay["status"] = "refunded" if pay["refunded"] == pay["captured"] else "partially_refunded"
    v.edit("actors", pay["merchant"])["balance"] -= e["amount"]
    v.edit("actors", pay["buyer"])["balance"] += e["amount"]
    order = v.edit("orders", pay["order"])
    order["refunded"] += e["amount"]
    v.new_id("refunds", {"payment": e["payment_id"], "amount": e["amount"], "return": e.get("return_id"),
                         **({"answers": e["event_id"]} if e.get("event_id") else {})}, e["refund_id"])
    _answered(v, e, e["refund_id"])
    if e.get("return_id"):
        v.edit("returns", e["return_id"])["status"] = "refunded"
    _ledger(v, pay["order"], {"type": "refund", "amount": e["amount"], "payment": e["payment_id"]})


@handles("exchange_offered")
def _exchange_offered(v: View, e: dict) -> None:
    v.edit("returns", e["return_id"])["status"] = "exchanged"
    v.new_id("exchanges", {"return": e["return_id"], "listing": e["listing_id"]}, e["exchange_id"])


@handles("dispute_opened")
def _dispute_opened(v: View, e: dict) -> None:
    v.new_id("disputes", {
        "order": e["order_id"], "buyer": e["buyer"], "merchant": e["merchant"], "reason": e["reason"],
        "evidence": {"buyer": e["evidence"]}, "status": "open",
    }, e["dispute_id"])
    v.edit("reputation", e["merchant"])["disputes"] += 1


@handles("dispute_responded")
def _dispute_responded(v: View, e: dict) -> None:
    d = v.edit("disputes", e["dispute_id"])
    d["evidence"]["merchant"] = e["evidence"]
    d["status"] = "responded"


@handles("ledger_closed")
def _ledger_closed(v: View, e: dict) -> None:
    v.edit("ledger", e["order_id"])["closed"] = True
    v.edit("orders", e["order_id"])["status"] = "closed"


@handles("review_posted")
def _review_posted(v: View, e: dict) -> None:
    v.new_id("reviews", {
        "listing": e["listing_id"], "order": e["order_id"], "by": e["by"], "rating": e["rating"],
        "text": e["text"], "flags": [],
    }, e["review_id"])
    rep = v.edit("reputation", e["merchant"])
    rep["ratings"] += 1
    rep["rating_sum"] += e["rating"]


@handles("review_flagged")
def _review_flagged(v: View, e: dict) -> None:
    v.edit("reviews", e["review_id"])["flags"].append({"by": e["by"], "reason": e["reason"]})


@handles("market_event_delivered")
def _market_event_delivered(v: View, e: dict) -> None:
    v.put("market_events", e["event_id"], {**e["record"], "verdict": None})


@handles("event_classified")
def _event_classified(v: View, e: dict) -> None:
    v.edit("market_events", e["event_id"])["verdict"] = e["verdict"]


@handles("event_applied")
def _event_applied(v: View, e: dict) -> None:
    rec = v.edit("market_events", e["event_id"])
    rec["applied"] = rec.get("applied", 0) + 1
