"""Transition handlers for listings, negotiation, quotes, orders and payments."""

from __future__ import annotations

from .transition import TransitionError, View, handles


def _ledger(v: View, order_id: str, entry: dict) -> None:
    led = v.get("ledger", order_id)
    if led is None:
        v.put("ledger", order_id, {"entries": [entry], "closed": False})
    else:
        led = v.edit("ledger", order_id)
        led["entries"] = led["entries"] + [entry]


def _answered(v: View, e: dict, effect: str) -> None:
    """Link a cited market notice to the effect that answered it (``answered_by`` on the notice)."""
    if not e.get("event_id"):
        return
    notice = v.edit("market_events", e["event_id"])
    notice["answered_by"] = [*notice.get("answered_by", []), effect]


@handles("listing_materialized")
def _listing_materialized(v: View, e: dict) -> None:
    if v.get("listings", e["listing_id"]) is not None:
        raise TransitionError(f"listing {e['listing_id']} already in the overlay")
    v.put("listings", e["listing_id"], dict(e["record"]))


@handles("listing_published")
def _listing_published(v: View, e: dict) -> None:
    v.new_id("listings", dict(e["record"]), e["listing_id"])


@handles("listing_updated")
def _listing_updated(v: View, e: dict) -> None:
    rec = v.edit("listings", e["listing_id"])
    for field in ("price", "stock", "status", "compare_at"):
        if e.get(field) is not None:
            rec[field] = e[field]
    if e.get("claims"):
        rec["claims"] = {**rec["claims"], **e["claims"]}


@handles("claim_retracted")
def _claim_retracted(v: View, e: dict) -> None:
    rec = v.edit("listings", e["listing_id"])
    rec["claims"] = {k: c for k, c in rec["claims"].items() if k != e["claim"]}


@handles("sponsorship_disclosed")
def _sponsorship_disclosed(v: View, e: dict) -> None:
    v.edit("listings", e["listing_id"])["sponsor"] = e["sponsor"]


@handles("offer_opened")
def _offer_opened(v: View, e: dict) -> None:
    offer = {"by": e["by"], "unit_price": e["unit_price"], "round": e["round"]}
    v.new_id("threads", {
        "buyer": e["buyer"], "merchant": e["merchant"], "listing": e["listing_id"],
        "quantity": e["quantity"], "status": "open", "offers": [offer], "last_by": e["by"],
        "unit_price": e["unit_price"], "max_offers": e.get("max_offers"), "agreed_price": None,
    }, e["thread_id"])


@handles("offer_countered")
def _offer_countered(v: View, e: dict) -> None:
    thr = v.edit("threads", e["thread_id"])
    thr["offers"].append({"by": e["by"], "unit_price": e["unit_price"], "round": e["round"]})
    thr["last_by"], thr["unit_price"] = e["by"], e["unit_price"]


@handles("offer_accepted")
def _offer_accepted(v: View, e: dict) -> None:
    thr = v.edit("threads", e["thread_id"])
    thr["status"], thr["agreed_price"] = "agreed", thr["unit_price"]


@handles("offer_closed")
def _offer_closed(v: View, e: dict) -> None:
    v.edit("threads", e["thread_id"])["status"] = e["status"]


@handles("quote_requested")
def _quote_requested(v: View, e: dict) -> None:
    v.new_id("quote_requests", {
        "buyer": e["buyer"], "merchant": e["merchant"], "lines": e["lines"], "status": "open",
    }, e["request_id"])


@handles("quote_issued")
def _quote_issued(v: View, e: dict) -> None:
    v.edit("quote_requests", e["request_id"])["status"] = "quoted"
    v.new_id("quotes", {
        "request": e["request_id"], "buyer": e["buyer"], "merchant": e["merchant"],
        "lines": e["lines"], "fees": e["fees"], "total": e["total"], "status": "open",
        "expires_round": e["expires_round"],
    }, e["quote_id"])


@handles("quote_accepted")
def _quote_accepted(v: View, e: dict) -> None:
    v.edit("quotes", e["quote_id"])["status"] = "accepted"


@handles("order_placed")
def _order_placed(v: View, e: dict) -> None:
    v.new_id("orders", {
        "buyer": e["buyer"], "merchant": e["merchant"], "lines": e["lines"], "fees": e.get("fees", []),
        "total": e["total"], "source": e["source"], "status": "placed", "captured": 0,
        "refunded": 0, "shipped": {}, "allocated": {}, "backordered": {}, "eta_round": None,
        "placed_round": e["round"],
    }, e["order_id"])
    if e["source"].startswith("thr-"):
        v.edit("threads", e["source"])["status"] = "ordered"
    elif e["source"].startswith("quo-"):
        v.edit("quotes", e["source"])["status"] = "ordered"
    rep = v.edit("reputation", e["merchant"])
    rep["orders"] += 1
    _ledger(v, e["order_id"], {"type": "order", "amount": e["total"]})


@handles("order_confirmed")
def _order_confirmed(v: View, e: dict) -> None:
    v.edit("orders", e["order_id"])["confirmed"] = True


@handles("payment_authorized")
def _payment_authorized(v: View, e: dict) -> None:
    buyer = v.edit("actors", e["buyer"])
    if buyer["balance"] < e["amount"]:
        raise TransitionError("insufficient balance")
    buyer["balance"] -= e["amount"]
    buyer["held"] += e["amount"]
    v.new_id("payments", {
        "order": e["order_id"], "buyer": e["buyer"], "merchant": e["merchant"],
        "authorized": e["amount"], "captured": 0, "refunded": 0, "status": "authorized",
        "auth_round": e["round"], **({"answers": e["event_id"]} if e.get("event_id") else {}),
    }, e["payment_id"])
    _answered(v, e, e["payment_id"])
    order = v.edit("orders", e["order_id"])
    if order.get("payment") is None:
        order["status"] = "authorized"
        order["payment"] = e["payment_id"]
    else:  # a further charge on an order already paid: kept, and listed on the order
        order["additional_payments"] = [*order.get("additional_payments", []), e["payment_id"]]
    _ledger(v, e["order_id"], {"type": "authorize", "amount": e["amount"], "payment": e["payment_id"]})


@handles("payment_captured")
def _payment_captured(v: View, e: dict) -> None:
    pay = v.edit("payments", e["payment_id"])
    if pay["captured"] + e["amount"] > pay["authorized"]:
        raise TransitionError("capture above authorisation")
    pay["captured"] += e["amount"]
    pay["status"] = "captured"
    _answered(v, e, f"capture:{e['payment_id']}")
    buyer, merchant = v.edit("actors", pay["buyer"]), v.edit("actors", pay["merchant"])
    buyer["held"] -= e["amount"]
    merchant["balance"] += e["amount"]
    order = v.edit("orders", pay["order"])
    order["captured"] += e["amount"]
    if order["status"] in {"placed", "authorized"}:
        order["status"] = "paid"
    _ledger(v, pay["order"], {"type": "capture", "amount": e["amount"], "payment": e["payment_id"]})


@handles("authorization_voided")
def _authorization_voided(v: View, e: dict) -> None:
    pay = v.edit("payments", e["payment_id"])
    release = pay["authorized"] - pay["captured"]
    pay["status"] = "voided" if pay["captured"] == 0 else pay["status"]
    pay["authorized"] = pay["captured"]
    buyer = v.edit("actors", pay["buyer"])
    buyer["held"] -= release
    buyer["balance"] += release
    _ledger(v, pay["order"], {"type": "void", "amount": release, "payment": e["payment_id"]})
