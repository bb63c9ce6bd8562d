"""Platform rules for fulfilment, after-sales, listings, reviews, market events and decisions."""

from __future__ import annotations

from ..core.money import format_money
from ..vcp import (
    Abstain,
    AllocateInventory,
    AuthorizeReturn,
    CancelOrder,
    ClassifyEvent,
    CloseLedger,
    ConfirmDelivery,
    DiscloseSponsorship,
    Finish,
    FlagReview,
    IssueRefund,
    OfferExchange,
    OpenDispute,
    PartialFill,
    PostReview,
    PublishListing,
    ReportDeliveryException,
    RequestReturn,
    RespondDispute,
    Restock,
    RetractClaim,
    SetEta,
    ShipOrder,
    SubmitAnswer,
    UpdateListing,
)
from ..world.state import listing_record
from .citations import check_citation
from .context import RuleContext
from .result import Outcome, require
from .rules import listing, own, owned_listing, record, rule

_SHIPPABLE = {"paid", "allocated"}


def _order(ctx: RuleContext, order_id: str, *parties: str) -> dict:
    order = record(ctx, "orders", order_id, what="order")
    own(ctx, order, *parties, what="order")
    return order


@rule("allocate_inventory")
def allocate_inventory(ctx: RuleContext, a: AllocateInventory) -> Outcome:
    order = _order(ctx, a.order_id, "merchant")
    require(order["status"] == "paid", "order_not_paid" if order["status"] in {"placed", "authorized"}
            else "already_allocated", f"order {a.order_id} is {order['status']}")
    check_citation(ctx, a.kind, a.event_id, order_id=a.order_id)
    events: list[dict] = []
    lines = []
    need: dict[str, int] = {}
    for line in order["lines"]:  # the same listing may appear on several lines: check the sum
        need[line["listing_id"]] = need.get(line["listing_id"], 0) + line["quantity"]
    for line in order["lines"]:
        rec = listing(ctx, line["listing_id"], events)
        require(rec["stock"] >= need[line["listing_id"]], "out_of_stock",
                f"{line['listing_id']}: {rec['stock']} in stock, {need[line['listing_id']]} needed; use partial_fill")
        lines.append({"listing_id": line["listing_id"], "quantity": line["quantity"]})
    events.append({"type": "inventory_allocated", "order_id": a.order_id, "lines": lines,
                   **({"event_id": a.event_id} if a.event_id else {})})
    return Outcome(True, events=events)


@rule("partial_fill")
def partial_fill(ctx: RuleContext, a: PartialFill) -> Outcome:
    order = _order(ctx, a.order_id, "merchant")
    require(order["status"] == "paid", "order_not_paid", f"order {a.order_id} is {order['status']}")
    ordered = {x["listing_id"]: x["quantity"] for x in order["lines"]}
    events: list[dict] = []
    fill = {}
    for line in a.lines:
        require(line.listing_id in ordered, "not_in_order", f"{line.listing_id} is not in order {a.order_id}")
        require(line.quantity <= ordered[line.listing_id], "over_fill", f"{line.listing_id}: more than ordered")
        rec = listing(ctx, line.listing_id, events)
        require(rec["stock"] >= line.quantity, "out_of_stock", f"{line.listing_id}: only {rec['stock']} in stock")
        fill[line.listing_id] = line.quantity
    rest = {lid: q - fill.get(lid, 0) for lid, q in ordered.items() if q - fill.get(lid, 0) > 0}
    events.append({"type": "inventory_allocated", "order_id": a.order_id,
                   "lines": [{"listing_id": k, "quantity": v} for k, v in sorted(fill.items())],
                   "backorder": rest if a.remainder == "backorder" else {}})
    return Outcome(True, events=events, notices=[{"to": order["buyer"], "kind": "notice",
                   "text": f"Order {a.order_id} partly filled; the rest is {a.remainder}ed."}])


@rule("ship_order")
def ship_order(ctx: RuleContext, a: ShipOrder) -> Outcome:
    order = _order(ctx, a.order_id, "merchant")
    require(order["status"] in _SHIPPABLE, "not_shippable", f"order {a.order_id} is {order['status']}")
    require(bool(order["allocated"]), "nothing_allocated", f"order {a.order_id} has no allocated units")
    check_citation(ctx, a.kind, a.event_id, order_id=a.order_id)
    sid = ctx.new_id("shipments")
    ev = {"type": "order_shipped", "order_id": a.order_id, "shipment_id": sid, "carrier": a.carrier,
          "round": ctx.round, **({"event_id": a.event_id} if a.event_id else {})}
    return Outcome(True, events=[ev], result={"shipment_id": sid},
                   notices=[{"to": order["buyer"], "kind": "notice",
                             "text": f"Order {a.order_id} shipped as {sid}.", "order_id": a.order_id,
                             "shipment_id": sid}])


@rule("report_delivery_exception")
def report_delivery_exception(ctx: RuleContext, a: ReportDeliveryException) -> Outcome:
    shp = record(ctx, "shipments", a.shipment_id, what="shipment")
    _order(ctx, shp["order"], "buyer", "merchant")
    return Outcome(True, events=[{"type": "delivery_exception_reported", "shipment_id": a.shipment_id,
                                  "reason": a.reason, "by": ctx.actor}])


@rule("confirm_delivery")
def confirm_delivery(ctx: RuleContext, a: ConfirmDelivery) -> Outcome:
    shp = record(ctx, "shipments", a.shipment_id, what="shipment")
    _order(ctx, shp["order"], "buyer")
    require(shp["status"] != "delivered", "already_delivered", f"shipment {a.shipment_id} is delivered")
    return Outcome(True, events=[{"type": "delivery_confirmed", "shipment_id": a.shipment_id, "round": ctx.round}])


@rule("restock")
def restock(ctx: RuleContext, a: Restock) -> Outcome:
    events: list[dict] = []
    owned_listing(ctx, a.listing_id, events)
    events.append({"type": "restocked", "listing_id": a.listing_id, "quantity": a.quantity})
    return Outcome(True, events=events)


@rule("set_eta")
def set_eta(ctx: RuleContext, a: SetEta) -> Outcome:
    _order(ctx, a.order_id, "merchant")
    require(a.eta_round >= ctx.round, "eta_in_past", "an ETA cannot be in the past")
    return Outcome(True, events=[{"type": "eta_set", "order_id": a.order_id, "eta_round": a.eta_round}])


@rule("cancel_order")
def cancel_order(ctx: RuleContext, a: CancelOrder) -> Outcome:
    order = _order(ctx, a.order_id, "buyer", "merchant")
    require(order["status"] in {"placed", "authorized", "paid", "allocated"}, "not_cancellable",
            f"order {a.order_id} is {order['status']}")
    events: list[dict] = [{"type": "order_cancelled", "order_id": a.order_id}]
    refunds = 0
    for pid in [order.get("payment"), *order.get("additional_payments", [])]:  # duplicate charges too
        if not pid:
            continue
        pay = ctx.state["payments"][pid]
        if pay["authorized"] > pay["captured"]:
            events.append({"type": "authorization_voided", "payment_id": pid})
        if pay["captured"] > pay["refunded"]:
            events.append({"type": "refund_issued", "payment_id": pid, "refund_id": ctx.new_id("refunds", refunds),
                           "amount": pay["captured"] - pay["refunded"], "return_id": None})
            refunds += 1
    return Outcome(True, events=events)


@rule("request_return")
def request_return(ctx: RuleContext, a: RequestReturn) -> Outcome:
    order = _order(ctx, a.order_id, "buyer")
    require(order["status"] == "delivered", "not_delivered", f"order {a.order_id} is {order['status']}")
    window = ctx.settings.return_window_rounds
    require(ctx.round - order.get("delivered_round", ctx.round) <= window, "return_window_closed",
            f"the {window}-round return window has closed")
    prices = {x["listing_id"]: x["unit_price"] for x in order["lines"]}
    for line in a.lines:
        require(order["shipped"].get(line.listing_id, 0) >= line.quantity, "over_return",
                f"{line.listing_id}: more units than were delivered")
    amount = sum(prices[x.listing_id] * x.quantity for x in a.lines)
    rid = ctx.new_id("returns")
    ev = {"type": "return_requested", "return_id": rid, "order_id": a.order_id, "buyer": ctx.actor,
          "merchant": order["merchant"], "lines": [x.model_dump() for x in a.lines], "reason": a.reason,
          "amount": amount}
    return Outcome(True, events=[ev], result={"return_id": rid},
                   notices=[{"to": order["merchant"], "kind": "notice", "text": f"Return request {rid}."}])


@rule("authorize_return")
def authorize_return(ctx: RuleContext, a: AuthorizeReturn) -> Outcome:
    ret = record(ctx, "returns", a.return_id, what="return")
    own(ctx, ret, "merchant", what="return")
    require(ret["status"] == "requested", "already_decided", f"return {a.return_id} is {ret['status']}")
    return Outcome(True, events=[{"type": "return_decided", "return_id": a.return_id, "approve": a.approve}])


@rule("issue_refund")
def issue_refund(ctx: RuleContext, a: IssueRefund) -> Outcome:
    pay = record(ctx, "payments", a.payment_id, what="payment")
    own(ctx, pay, "merchant", what="payment")
    room = pay["captured"] - pay["refunded"]
    require(a.amount <= room, "refund_exceeds_capture",
            f"refund {format_money(a.amount)} exceeds the {format_money(room)} captured and not yet refunded")
    if a.return_id:
        ret = record(ctx, "returns", a.return_id, what="return")
        require(ret["order"] == pay["order"], "return_mismatch",
                f"return {a.return_id} is not for the order of payment {a.payment_id}")
        require(ret["status"] == "authorized", "return_not_authorized", f"return {a.return_id} is {ret['status']}")
    check_citation(ctx, a.kind, a.event_id, payment_id=a.payment_id, order_id=pay["order"])
    rid = ctx.new_id("refunds")
    ev = {"type": "refund_issued", "payment_id": a.payment_id, "refund_id": rid, "amount": a.amount,
          "return_id": a.return_id, **({"event_id": a.event_id} if a.event_id else {})}
    return Outcome(True, events=[ev], result={"refund_id": rid},
                   notices=[{"to": pay["buyer"], "kind": "notice", "text": f"Refund {rid}: {format_money(a.amount)}."}])


@rule("offer_exchange")
def offer_exchange(ctx: RuleContext, a: OfferExchange) -> Outcome:
    ret = record(ctx, "returns", a.return_id, what="return")
    own(ctx, ret, "merchant", what="return")
    require(ret["status"] == "authorized", "return_not_authorized", f"return {a.return_id} is {ret['status']}")
    events: list[dict] = []
    owned_listing(ctx, a.listing_id, events)
    events.append({"type": "exchange_offered", "return_id": a.return_id, "listing_id": a.listing_id,
                   "exchange_id": ctx.new_id("exchanges")})
    return Outcome(True, events=events)


@rule("open_dispute")
def open_dispute(ctx: RuleContext, a: OpenDispute) -> Outcome:
    order = _order(ctx, a.order_id, "buyer")
    require(order.get("payment") is not None, "nothing_to_dispute", f"order {a.order_id} was never paid")
    did = ctx.new_id("disputes")
    ev = {"type": "dispute_opened", "dispute_id": did, "order_id": a.order_id, "buyer": ctx.actor,
          "merchant": order["merchant"], "reason": a.reason, "evidence": list(a.evidence)}
    return Outcome(True, events=[ev], result={"dispute_id": did}, evidence=list(a.evidence))


@rule("respond_dispute")
def respond_dispute(ctx: RuleContext, a: RespondDispute) -> Outcome:
    d = record(ctx, "disputes", a.dispute_id, what="dispute")
    own(ctx, d, "merchant", what="dispute")
    require(d["status"] == "open", "dispute_closed", f"dispute {a.dispute_id} is {d['status']}")
    return Outcome(True, events=[{"type": "dispute_responded", "dispute_id": a.dispute_id,
                                  "evidence": list(a.evidence)}], evidence=list(a.evidence))


@rule("close_ledger")
def close_ledger(ctx: RuleContext, a: CloseLedger) -> Outcome:
    order = _order(ctx, a.order_id, "merchant")
    led = record(ctx, "ledger", a.order_id, what="ledger")
    require(not led["closed"], "already_closed", f"ledger of {a.order_id} is closed")
    require(order["status"] in {"delivered", "cancelled"}, "not_settled", f"order {a.order_id} is {order['status']}")
    return Outcome(True, events=[{"type": "ledger_closed", "order_id": a.order_id}])


@rule("publish_listing")
def publish_listing(ctx: RuleContext, a: PublishListing) -> Outcome:
    lid = ctx.new_id("listings")
    rec = listing_record(ctx.actor, a.price, a.quantity, title=a.title, category=a.category, claims=a.claims)
    return Outcome(True, events=[{"type": "listing_published", "listing_id": lid, "record": rec}],
                   result={"listing_id": lid})


@rule("update_listing")
def update_listing(ctx: RuleContext, a: UpdateListing) -> Outcome:
    events: list[dict] = []
    owned_listing(ctx, a.listing_id, events)
    events.append({"type": "listing_updated", "listing_id": a.listing_id, "price": a.price,
                   "stock": a.quantity, "status": a.status, "compare_at": a.compare_at_price,
                   "claims": dict(a.claims or {})})
    return Outcome(True, events=events)


@rule("retract_claim")
def retract_claim(ctx: RuleContext, a: RetractClaim) -> Outcome:
    events: list[dict] = []
    rec = owned_listing(ctx, a.listing_id, events)
    require(a.claim in rec["claims"], "unknown_claim", f"{a.listing_id} makes no claim {a.claim!r}")
    events.append({"type": "claim_retracted", "listing_id": a.listing_id, "claim": a.claim})
    return Outcome(True, events=events)


@rule("disclose_sponsorship")
def disclose_sponsorship(ctx: RuleContext, a: DiscloseSponsorship) -> Outcome:
    events: list[dict] = []
    owned_listing(ctx, a.listing_id, events)
    events.append({"type": "sponsorship_disclosed", "listing_id": a.listing_id, "sponsor": a.sponsor})
    return Outcome(True, events=events)


@rule("post_review")
def post_review(ctx: RuleContext, a: PostReview) -> Outcome:
    order = _order(ctx, a.order_id, "buyer")
    require(order["status"] in {"delivered", "closed"}, "not_delivered", "review only what was delivered")
    require(a.listing_id in order["shipped"], "not_in_order", f"{a.listing_id} is not in order {a.order_id}")
    require(not any(r["order"] == a.order_id and r["listing"] == a.listing_id
                    for r in ctx.state["reviews"].values()), "already_reviewed", "one review per purchase")
    ev = {"type": "review_posted", "review_id": ctx.new_id("reviews"), "listing_id": a.listing_id,
          "order_id": a.order_id, "by": ctx.actor, "rating": a.rating, "text": a.text,
          "merchant": order["merchant"]}
    return Outcome(True, events=[ev])


@rule("flag_review")
def flag_review(ctx: RuleContext, a: FlagReview) -> Outcome:
    rev = record(ctx, "reviews", a.review_id, what="review")
    require(rev["by"] != ctx.actor, "own_review", "you cannot flag your own review")
    return Outcome(True, events=[{"type": "review_flagged", "review_id": a.review_id, "by": ctx.actor,
                                  "reason": a.reason}])


@rule("classify_event")
def classify_event(ctx: RuleContext, a: ClassifyEvent) -> Outcome:
    ev = record(ctx, "market_events", a.event_id, what="market event")
    require(ev["to"] == ctx.actor, "not_addressed", f"event {a.event_id} was not delivered to you")
    require(ev["verdict"] is None, "already_classified", f"event {a.event_id} was already classified")
    return Outcome(True, events=[{"type": "event_classified", "event_id": a.event_id, "verdict": a.verdict}],
                   evidence=[a.event_id])


def _decision(ctx: RuleContext, a: SubmitAnswer | Abstain | Finish) -> Outcome:
    evidence = list(vars(a).get("evidence", []))
    return Outcome(True, result={"decision": a.kind}, evidence=evidence)


rule("submit_answer")(_decision)
rule("abstain")(_decision)
rule("finish")(_decision)
