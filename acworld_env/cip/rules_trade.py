"""Platform rules for messaging, offers, quotes, checkout and payment."""

from __future__ import annotations

from ..core.money import format_money as money
from ..vcp import (
    AcceptOffer,
    AcceptQuote,
    AnswerQuestion,
    AskQuestion,
    AuthorizePayment,
    CapturePayment,
    ConfirmOrder,
    CounterOffer,
    IssueQuote,
    PlaceOrder,
    ProposeOffer,
    RejectOffer,
    RequestQuote,
    SendMessage,
    VoidAuthorization,
    WithdrawOffer,
)
from .citations import check_citation
from .context import RuleContext
from .result import Outcome, require
from .rules import active_listing, check_owner, counterparty, own, record, rule

_UNPAYABLE = {"cancelled", "closed"}


def _notice(to: str, text: str, **extra: object) -> dict:
    return {"to": to, "kind": "notice", "text": text, **extra}


@rule("send_message")
def send_message(ctx: RuleContext, a: SendMessage) -> Outcome:
    require(a.to in ctx.state["actors"], "unknown_actor", f"no actor {a.to!r}")
    if a.thread_id is not None:
        own(ctx, record(ctx, "threads", a.thread_id), "buyer", "merchant", what="thread")
    return Outcome(True, notices=[{"to": a.to, "kind": "message", "text": a.text,
                                   "thread_id": a.thread_id, "in_reply_to": a.in_reply_to}])


@rule("ask_question")
def ask_question(ctx: RuleContext, a: AskQuestion) -> Outcome:
    counterparty(ctx, a.to, "merchant")
    return Outcome(True, notices=[{"to": a.to, "kind": "question", "text": a.text, "listing_id": a.listing_id}])


@rule("answer_question")
def answer_question(ctx: RuleContext, a: AnswerQuestion) -> Outcome:
    question = ctx.market.messages.get(a.in_reply_to)
    require(question is not None, "unknown_message", f"no message {a.in_reply_to!r}")
    require(question["to"] == ctx.actor, "not_addressed", "that message was not addressed to you")
    return Outcome(True, notices=[{"to": question["from"], "kind": "message", "text": a.text,
                                   "in_reply_to": a.in_reply_to}])


@rule("propose_offer")
def propose_offer(ctx: RuleContext, a: ProposeOffer) -> Outcome:
    events: list[dict] = []
    rec = active_listing(ctx, a.listing_id, events)
    role = ctx.envelope.role.value
    if role == "buyer":
        counterparty(ctx, a.to, "merchant")
        require(rec["merchant"] == a.to, "wrong_counterparty", f"{a.listing_id} is not sold by {a.to}")
        buyer, merchant = ctx.actor, a.to
    else:
        counterparty(ctx, a.to, "buyer")
        check_owner(ctx, rec, a.listing_id)
        buyer, merchant = a.to, ctx.actor
    tid = ctx.new_id("threads")
    events.append({
        "type": "offer_opened", "thread_id": tid, "buyer": buyer, "merchant": merchant,
        "listing_id": a.listing_id, "quantity": a.quantity, "unit_price": a.unit_price,
        "by": ctx.actor, "round": ctx.round, "max_offers": ctx.settings.max_offers,
    })
    text = f"Offer on {a.listing_id}: {a.quantity} x {money(a.unit_price)} (thread {tid})."
    return Outcome(True, events=events, result={"thread_id": tid},
                   notices=[_notice(a.to, text + (f" Note: {a.note}" if a.note else ""), thread_id=tid,
                                    offer_event="offer", unit_price=a.unit_price, listing_id=a.listing_id)])


def _open_thread_for_reply(ctx: RuleContext, thread_id: str) -> dict:
    thr = record(ctx, "threads", thread_id, what="thread")
    own(ctx, thr, "buyer", "merchant", what="thread")
    require(thr["status"] == "open", "offer_closed", f"thread {thread_id} is {thr['status']}")
    require(thr["last_by"] != ctx.actor, "not_your_turn", "the open offer is yours; wait for an answer")
    return thr


def _other(ctx: RuleContext, thr: dict) -> str:
    return thr["merchant"] if ctx.actor == thr["buyer"] else thr["buyer"]


@rule("counter_offer")
def counter_offer(ctx: RuleContext, a: CounterOffer) -> Outcome:
    thr = _open_thread_for_reply(ctx, a.thread_id)
    limit = thr.get("max_offers")
    require(limit is None or len(thr["offers"]) < limit, "round_limit",
            f"thread {a.thread_id} reached its limit of {limit} offers; accept or reject")
    require(a.unit_price != thr["unit_price"], "same_price", "a counter must change the price; accept instead")
    ev = {"type": "offer_countered", "thread_id": a.thread_id, "unit_price": a.unit_price,
          "by": ctx.actor, "round": ctx.round}
    text = f"Counter-offer on thread {a.thread_id}: {money(a.unit_price)} per unit."
    return Outcome(True, events=[ev], notices=[_notice(
        _other(ctx, thr), text + (f" Note: {a.note}" if a.note else ""), thread_id=a.thread_id,
        offer_event="counter", unit_price=a.unit_price)])


@rule("accept_offer")
def accept_offer(ctx: RuleContext, a: AcceptOffer) -> Outcome:
    thr = _open_thread_for_reply(ctx, a.thread_id)
    ev = {"type": "offer_accepted", "thread_id": a.thread_id, "by": ctx.actor, "round": ctx.round}
    text = f"Offer accepted on thread {a.thread_id} at {money(thr['unit_price'])} per unit."
    return Outcome(True, events=[ev], result={"agreed_unit_price": thr["unit_price"]},
                   notices=[_notice(_other(ctx, thr), text, thread_id=a.thread_id, offer_event="accepted",
                                     unit_price=thr["unit_price"])])


@rule("reject_offer")
def reject_offer(ctx: RuleContext, a: RejectOffer) -> Outcome:
    thr = _open_thread_for_reply(ctx, a.thread_id)
    ev = {"type": "offer_closed", "thread_id": a.thread_id, "status": "rejected", "by": ctx.actor}
    text = f"Offer rejected on thread {a.thread_id}." + (f" Reason: {a.reason}" if a.reason else "")
    return Outcome(True, events=[ev], notices=[_notice(_other(ctx, thr), text, thread_id=a.thread_id,
                                                       offer_event="rejected")])


@rule("withdraw_offer")
def withdraw_offer(ctx: RuleContext, a: WithdrawOffer) -> Outcome:
    thr = record(ctx, "threads", a.thread_id, what="thread")
    own(ctx, thr, "buyer", "merchant", what="thread")
    require(thr["status"] == "open", "offer_closed", f"thread {a.thread_id} is {thr['status']}")
    require(thr["last_by"] == ctx.actor, "not_your_offer", "only the open offer's author can withdraw it")
    ev = {"type": "offer_closed", "thread_id": a.thread_id, "status": "withdrawn", "by": ctx.actor}
    return Outcome(True, events=[ev], notices=[_notice(_other(ctx, thr), f"Offer withdrawn on {a.thread_id}.")])


@rule("request_quote")
def request_quote(ctx: RuleContext, a: RequestQuote) -> Outcome:
    counterparty(ctx, a.merchant_id, "merchant")
    events: list[dict] = []
    for line in a.lines:
        rec = active_listing(ctx, line.listing_id, events)
        require(rec["merchant"] == a.merchant_id, "wrong_counterparty",
                f"{line.listing_id} is not sold by {a.merchant_id}")
    rid = ctx.new_id("quote_requests")
    lines = [line.model_dump() for line in a.lines]
    events.append({"type": "quote_requested", "request_id": rid, "buyer": ctx.actor,
                   "merchant": a.merchant_id, "lines": lines})
    return Outcome(True, events=events, result={"request_id": rid},
                   notices=[_notice(a.merchant_id, f"Quote request {rid} for {len(lines)} line(s).",
                                    request_id=rid, lines=lines)])


@rule("issue_quote")
def issue_quote(ctx: RuleContext, a: IssueQuote) -> Outcome:
    req = record(ctx, "quote_requests", a.request_id, what="quote request")
    own(ctx, req, "merchant", what="quote request")
    require(req["status"] == "open", "already_quoted", f"request {a.request_id} is {req['status']}")
    lines_total = sum(line.quantity * line.unit_price for line in a.lines)
    fees_total = sum(fee.amount for fee in a.fees)
    require(lines_total + fees_total == a.total, "quote_arithmetic",
            f"lines {money(lines_total)} + fees {money(fees_total)} = {money(lines_total + fees_total)}, "
            f"not the stated total {money(a.total)}")
    asked = {(x["listing_id"], x["quantity"]) for x in req["lines"]}
    require({(x.listing_id, x.quantity) for x in a.lines} == asked, "quote_mismatch",
            "quoted lines must match the requested listings and quantities")
    qid = ctx.new_id("quotes")
    ev = {"type": "quote_issued", "request_id": a.request_id, "quote_id": qid, "buyer": req["buyer"],
          "merchant": ctx.actor, "lines": [x.model_dump() for x in a.lines],
          "fees": [f.model_dump() for f in a.fees], "total": a.total,
          "expires_round": ctx.round + a.valid_rounds}
    return Outcome(True, events=[ev], result={"quote_id": qid},
                   notices=[_notice(req["buyer"], f"Quote {qid}: total {money(a.total)}.")])


@rule("accept_quote")
def accept_quote(ctx: RuleContext, a: AcceptQuote) -> Outcome:
    quote = record(ctx, "quotes", a.quote_id, what="quote")
    own(ctx, quote, "buyer", what="quote")
    require(quote["status"] == "open", "quote_closed", f"quote {a.quote_id} is {quote['status']}")
    require(ctx.round <= quote["expires_round"], "quote_expired", f"quote {a.quote_id} expired")
    return Outcome(True, events=[{"type": "quote_accepted", "quote_id": a.quote_id}],
                   notices=[_notice(quote["merchant"], f"Quote {a.quote_id} accepted.")])


@rule("place_order")
def place_order(ctx: RuleContext, a: PlaceOrder) -> Outcome:
    sources = [x for x in (a.thread_id, a.quote_id, a.lines) if x]
    require(len(sources) == 1, "ambiguous_order", "give exactly one of thread_id, quote_id or lines")
    events: list[dict] = []
    fees: list[dict] = []
    if a.thread_id:
        thr = record(ctx, "threads", a.thread_id, what="thread")
        own(ctx, thr, "buyer", what="thread")
        require(thr["status"] == "agreed", "no_agreement", f"thread {a.thread_id} is {thr['status']}, not agreed")
        merchant, source = thr["merchant"], a.thread_id
        lines = [{"listing_id": thr["listing"], "quantity": thr["quantity"], "unit_price": thr["agreed_price"]}]
    elif a.quote_id:
        quote = record(ctx, "quotes", a.quote_id, what="quote")
        own(ctx, quote, "buyer", what="quote")
        require(quote["status"] == "accepted", "quote_not_accepted", f"quote {a.quote_id} is {quote['status']}")
        merchant, source, lines, fees = quote["merchant"], a.quote_id, quote["lines"], quote["fees"]
    else:
        require(a.merchant_id is not None, "missing_field", "list-price orders need merchant_id")
        counterparty(ctx, a.merchant_id, "merchant")
        merchant, source, lines = a.merchant_id, "list", []
        for line in a.lines or []:
            rec = active_listing(ctx, line.listing_id, events)
            require(rec["merchant"] == merchant, "wrong_counterparty", f"{line.listing_id} is not sold by {merchant}")
            lines.append({"listing_id": line.listing_id, "quantity": line.quantity, "unit_price": rec["price"]})
    ordered: dict[str, int] = {}
    for line in lines:  # the same listing may appear on several lines: check the sum
        ordered[line["listing_id"]] = ordered.get(line["listing_id"], 0) + line["quantity"]
    for line in lines:
        rec = active_listing(ctx, line["listing_id"], events)
        require(rec["stock"] >= ordered[line["listing_id"]], "out_of_stock",
                f"{line['listing_id']} has {rec['stock']} in stock, {ordered[line['listing_id']]} ordered")
    total = sum(x["quantity"] * x["unit_price"] for x in lines) + sum(f["amount"] for f in fees)
    oid = ctx.new_id("orders")
    events.append({"type": "order_placed", "order_id": oid, "buyer": ctx.actor, "merchant": merchant,
                   "lines": lines, "fees": fees, "total": total, "source": source, "round": ctx.round})
    return Outcome(True, events=events, result={"order_id": oid, "total": total},
                   notices=[_notice(merchant, f"New order {oid}: total {money(total)}.", order_id=oid)])


@rule("confirm_order")
def confirm_order(ctx: RuleContext, a: ConfirmOrder) -> Outcome:
    order = record(ctx, "orders", a.order_id, what="order")
    own(ctx, order, "merchant", what="order")
    require(order["status"] != "cancelled", "order_cancelled", f"order {a.order_id} is cancelled")
    require(not order.get("confirmed"), "already_confirmed", f"order {a.order_id} is already confirmed")
    return Outcome(True, events=[{"type": "order_confirmed", "order_id": a.order_id}])


@rule("authorize_payment")
def authorize_payment(ctx: RuleContext, a: AuthorizePayment) -> Outcome:
    order = record(ctx, "orders", a.order_id, what="order")
    own(ctx, order, "buyer", what="order")
    # Like a card network, a new request (no key, or a new idempotency key) on an order that was
    # already paid is a new charge: avoiding duplicates is the buyer's job. Same key, same payload
    # replays the first result before this rule runs.
    require(order["status"] not in _UNPAYABLE, "order_not_payable",
            f"order {a.order_id} is {order['status']}; it cannot be paid")
    require(a.amount == order["total"], "amount_mismatch",
            f"payment {money(a.amount)} does not equal the order total {money(order['total'])}")
    check_citation(ctx, a.kind, a.event_id, order_id=a.order_id)
    balance = ctx.state["actors"][ctx.actor]["balance"]
    require(balance >= a.amount, "insufficient_funds", f"balance {money(balance)} is below {money(a.amount)}")
    pid = ctx.new_id("payments")
    ev = {"type": "payment_authorized", "payment_id": pid, "order_id": a.order_id, "buyer": ctx.actor,
          "merchant": order["merchant"], "amount": a.amount, "round": ctx.round,
          **({"event_id": a.event_id} if a.event_id else {})}
    return Outcome(True, events=[ev], result={"payment_id": pid},
                   notices=[_notice(order["merchant"], f"Payment {pid} authorised for order {a.order_id}: "
                                    f"{money(a.amount)}.", order_id=a.order_id, payment_id=pid, amount=a.amount)])


@rule("capture_payment")
def capture_payment(ctx: RuleContext, a: CapturePayment) -> Outcome:
    pay = record(ctx, "payments", a.payment_id, what="payment")
    own(ctx, pay, "merchant", what="payment")
    require(pay["status"] in {"authorized", "captured"}, "not_capturable", f"payment {a.payment_id} is {pay['status']}")
    remaining = pay["authorized"] - pay["captured"]
    require(remaining > 0, "already_captured", f"payment {a.payment_id} is fully captured")
    require(a.amount <= remaining, "amount_mismatch", f"capture {money(a.amount)} exceeds the {money(remaining)} authorised")
    ttl = ctx.settings.auth_valid_rounds
    require(ctx.round - pay["auth_round"] <= ttl, "stale_authorization",
            f"authorisation from round {pay['auth_round']} expired after {ttl} rounds")
    check_citation(ctx, a.kind, a.event_id, payment_id=a.payment_id, order_id=pay["order"])
    ev = {"type": "payment_captured", "payment_id": a.payment_id, "amount": a.amount,
          **({"event_id": a.event_id} if a.event_id else {})}
    return Outcome(True, events=[ev], notices=[_notice(pay["buyer"], f"Payment {a.payment_id} captured: {money(a.amount)}.")])


@rule("void_authorization")
def void_authorization(ctx: RuleContext, a: VoidAuthorization) -> Outcome:
    pay = record(ctx, "payments", a.payment_id, what="payment")
    own(ctx, pay, "buyer", "merchant", what="payment")
    require(pay["authorized"] > pay["captured"], "nothing_to_void", f"payment {a.payment_id} has nothing uncaptured")
    return Outcome(True, events=[{"type": "authorization_voided", "payment_id": a.payment_id}])
