"""Candidate actions built from what an agent has seen: a fixed table of menu slots.

Each :class:`Slot` names one action template (``"listing[2].offer@85%"``) and builds a
concrete VCP action dict from :class:`~acworld_env.envs.known.Known`, or ``None`` when the
ids it needs have not been seen or the role may not use it. The table has the same length
for every agent and task, so it serves as a ``Discrete`` action menu with a mask (see
:mod:`acworld_env.wrappers.menu`) and as the pool :class:`~acworld_env.envs.spaces.VCPActionSpace`
samples from.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import Any

from ..vcp import TOOLS, Role, VCPAction, parse_action
from ..vcp.union import IDLE_ACTION
from . import candidates_aftersales as aftersales
from . import candidates_carts as carts
from . import candidates_governance as governance
from . import candidates_notices as notices
from . import candidates_plans as plans
from . import candidates_records as records
from . import candidates_remedies as remedies
from . import candidates_search as searches
from .known import ONE_SHOT, Known, action_key

N_LISTINGS, N_MERCHANTS, N_THREADS, N_ORDERS = 8, 4, 4, 8
N_PAYMENTS, N_SHIPMENTS, N_EVENTS, N_RETURNS, N_DISPUTES = 6, 6, 10, 4, 2
N_QUOTES, N_REQUESTS, N_QUESTIONS = 2, 2, 2
N_READ = 16
"""Seen listings the menu can read (``get_listing``); the other listing slots cover the first N_LISTINGS."""
OFFER_LEVELS = (0.7, 0.85, 1.0)
"""Buyer opening offers, as fractions of the seen list price."""
CONCESSIONS = (1 / 3, 2 / 3)
"""Counter-offers move this share of the way from the agent's last price to the other side's."""
VERDICTS = ("apply", "duplicate", "stale", "out_of_order", "foreign")
TERMINAL_KINDS = frozenset(k for k, t in TOOLS.items() if t.terminal)
_SEARCH_KEYS = {"text", "category", "brand", "min_price", "max_price", "in_stock", "min_rating", "options",
                "attributes"}
_STOP = {"that", "this", "with", "from", "your", "have", "they", "them", "want", "would", "like", "need",
         "please", "find", "under", "over", "than", "then", "once", "buy", "listing", "keep", "yourself",
         "don't", "which", "what", "about", "into", "only", "best", "cheapest", "dollars", "price"}

Builder = Callable[[Known, int], "dict[str, Any] | None"]


@dataclass(frozen=True)
class Slot:
    """One menu entry: a label, the action kind it produces, and its builder."""

    label: str
    kind: str
    build: Builder
    index: int = 0

    @property
    def needs(self) -> str | None:
        """What must number more than :attr:`index` for the slot to be filled (see :func:`seen_counts`)."""
        prefix = self.label.split("[", 1)[0]
        return _NEEDS.get(prefix) if "[" in self.label else None

    def action(self, known: Known) -> dict[str, Any] | None:
        """The concrete action for this agent now, or None when unavailable."""
        if Role(known.role) not in TOOLS[self.kind].roles:
            return None
        known.memo.clear()
        return self.built(known)

    def built(self, known: Known) -> dict[str, Any] | None:
        """The action :meth:`action` gives, for an agent whose role may use this slot's tool."""
        action = self.build(known, self.index)
        if action is not None and self.kind in ONE_SHOT and action_key(action) in known.done:
            return None
        return action


_NEEDS = {
    "listing": "listings", "thread": "threads", "order": "orders", "payment": "payments", "shipment": "shipments",
    "event": "events", "return": "returns", "dispute": "disputes", "quote": "quotes", "request": "quote_requests",
    "question": "questions", "review": "reviews", "hit": "hits", "cart": "carts", "merchant": "merchants",
}
"""Slot label prefix -> the count (of :func:`seen_counts`) its index runs over."""


def seen_counts(known: Known) -> dict[str, int]:
    """How many of each thing the agent has seen, for the indexed slots' quick availability check."""
    counts = {table: len(recs) for table, recs in known.records.items()}
    items = known.mandate.get("shopping_list")
    counts.update(hits=len(known.hits), merchants=len(known.merchants()),
                  carts=2 ** min(len(items), 8) if isinstance(items, list) and items else 0)
    return counts


def _nth(known: Known, table: str, i: int) -> tuple[str | None, dict[str, Any]]:
    recs = known[table]
    if i >= len(recs):
        return None, {}
    key = next(islice(recs, i, None))  # the i-th seen record, without copying every key
    return key, recs[key]


def _price(cents: float) -> int:
    return max(1, int(round(cents)))


def _keywords(text: str, limit: int = 3) -> str | None:
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]{3,}", text) if w.lower() not in _STOP]
    return " ".join(words[:limit]) or None


def _search(variant: str) -> Builder:
    def build(k: Known, _: int) -> dict[str, Any] | None:
        if variant == "all":
            return {"kind": "search_listings"}
        if variant == "cheapest":
            return {"kind": "search_listings", "sort": "price_asc", "in_stock": True}
        if variant == "keywords":
            text = _keywords(k.request)
            return {"kind": "search_listings", "text": text} if text else None
        if variant == "category":
            return {"kind": "search_listings", "category": k.categories[0]} if k.categories else None
        source = k.mandate.get("constraints") if isinstance(k.mandate.get("constraints"), dict) else k.mandate
        query = {key: v for key, v in source.items() if key in _SEARCH_KEYS}
        if k.mandate.get("objective") == "cheapest":
            query["sort"] = "price_asc"
        limit = k.mandate.get("max_unit_price", k.mandate.get("budget"))
        if isinstance(limit, int) and "max_price" not in query:
            query["max_price"] = limit
        if not query:
            return None
        action = {"kind": "search_listings", **query}
        return action if isinstance(parse_action(action), VCPAction) else None

    return build


def _per(table: str, fn: Callable[[Known, str, dict[str, Any]], dict[str, Any] | None]) -> Builder:
    def build(k: Known, i: int) -> dict[str, Any] | None:
        key, rec = _nth(k, table, i)
        return fn(k, key, rec) if key is not None else None

    return build


def _offer(level: float) -> Callable[[Known, str, dict], dict | None]:
    def fn(k: Known, lid: str, rec: dict) -> dict | None:
        merchant = rec.get("merchant") or next(iter(k.merchants()), None)
        if rec.get("price") is None or merchant is None or merchant == k.actor:
            return None
        return {"kind": "propose_offer", "to": merchant, "listing_id": lid,
                "unit_price": _price(rec["price"] * level)}

    return fn


def _list_order(k: Known, lid: str, rec: dict) -> dict | None:
    merchant = rec.get("merchant")
    if merchant is None or merchant == k.actor:
        return None
    return {"kind": "place_order", "merchant_id": merchant, "lines": [{"listing_id": lid, "quantity": 1}]}


def _counter(share: float) -> Callable[[Known, str, dict], dict | None]:
    def fn(k: Known, tid: str, thr: dict) -> dict | None:
        theirs = thr.get("theirs")
        if theirs is None or thr.get("turn") not in {None, "mine"}:
            return None
        mine = thr.get("mine", theirs * (0.8 if k.role == "buyer" else 1.25))
        price = _price(mine + share * (theirs - mine))
        return None if price == theirs else {"kind": "counter_offer", "thread_id": tid, "unit_price": price}

    return fn


def _on_thread(kind: str, turns: set[str | None], **extra: Any) -> Callable[[Known, str, dict], dict | None]:
    def fn(k: Known, tid: str, thr: dict) -> dict | None:
        return {"kind": kind, "thread_id": tid, **extra} if thr.get("turn") in turns else None

    return fn


def _simple(kind: str, field: str, **extra: Any) -> Callable[[Known, str, dict], dict]:
    def fn(k: Known, key: str, rec: dict) -> dict:
        return {"kind": kind, field: key, **extra}

    return fn


def _pay(keyed: bool) -> Callable[[Known, str, dict], dict | None]:
    """Authorize an order's seen total (with a fixed idempotency key, or without one)."""
    def fn(k: Known, oid: str, order: dict) -> dict | None:
        if order.get("total") is None or order.get("payment") or order.get("status") not in {None, "placed"}:
            return None
        action = {"kind": "authorize_payment", "order_id": oid, "amount": order["total"]}
        return {**action, "idempotency_key": f"pay-{oid}"} if keyed else action

    return fn


def _return(k: Known, oid: str, order: dict) -> dict | None:
    lines = [{"listing_id": x["listing_id"], "quantity": x.get("quantity", 1)} for x in order.get("lines", [])]
    return {"kind": "request_return", "order_id": oid, "lines": lines, "reason": "Not as described."} if lines else None


def _with_amount(kind: str) -> Callable[[Known, str, dict], dict | None]:
    def fn(k: Known, pid: str, pay: dict) -> dict | None:
        return {"kind": kind, "payment_id": pid, "amount": pay["amount"]} if pay.get("amount") else None

    return fn


def _answer_notice(kind: str) -> Callable[[Known, str, dict], dict | None]:
    """Carry out what a market notice asks for with ``kind``, citing the notice (``event_id``)."""
    def fn(k: Known, eid: str, ev: dict) -> dict | None:
        wanted = NOTICE_ACTIONS.get(ev.get("type"), ())
        if kind not in wanted:
            return None
        if kind in {"authorize_payment", "issue_refund", "capture_payment"}:
            target = {"order_id": ev.get("order_id")} if kind == "authorize_payment" else {"payment_id": ev.get("payment_id")}
            if None in target.values() or ev.get("amount") is None:
                return None
            return {"kind": kind, **target, "amount": ev["amount"], "event_id": eid}
        return {"kind": kind, "order_id": ev["order_id"], "event_id": eid} if ev.get("order_id") else None

    return fn


NOTICE_ACTIONS: dict[str, tuple[str, ...]] = {
    "payment_request": ("authorize_payment",), "capture_request": ("capture_payment",),
    "ship_request": ("allocate_inventory", "ship_order"), "refund_request": ("issue_refund",),
}
"""Which actions answer which kind of market notice."""


def _issue_quote(k: Known, rid: str, req: dict) -> dict | None:
    lines = []
    for x in req.get("lines", []):
        price = k["listings"].get(x["listing_id"], {}).get("price")
        if price is None:
            return None
        lines.append({"listing_id": x["listing_id"], "quantity": x.get("quantity", 1), "unit_price": price})
    if not lines:
        return None
    return {"kind": "issue_quote", "request_id": rid, "lines": lines,
            "total": sum(x["quantity"] * x["unit_price"] for x in lines)}


def _quote_request(k: Known, lid: str, rec: dict) -> dict | None:
    if not rec.get("merchant") or rec["merchant"] == k.actor:
        return None
    return {"kind": "request_quote", "merchant_id": rec["merchant"], "lines": [{"listing_id": lid, "quantity": 1}]}


def _ask(k: Known, lid: str, rec: dict) -> dict | None:
    if not rec.get("merchant") or rec["merchant"] == k.actor:
        return None
    return {"kind": "ask_question", "to": rec["merchant"], "listing_id": lid,
            "text": "Could you tell me more about this item and its condition?"}


def _fixed(action: dict[str, Any]) -> Builder:
    return lambda k, i: dict(action)


def _build_table() -> list[Slot]:
    slots: list[Slot] = [
        Slot(f"search:{v}", "search_listings", _search(v)) for v in ("all", "cheapest", "keywords", "category", "mandate")
    ]
    slots += [Slot("search:hints", "search_listings", plans.search_hints(True)),
              Slot("search:hints-unbounded", "search_listings", plans.search_hints(False)),
              Slot("search:category@page", "search_listings", plans.search_category_page),
              Slot("search:request-words", "search_listings", plans.search_request_words)]
    slots += [Slot(f"offer:limit@{int(s * 100)}%", "propose_offer", plans.opening(s)) for s in plans.OPENING_SHARES]
    per_listing: list[tuple[str, str, Callable]] = [
        ("get", "get_listing", _simple("get_listing", "listing_id")),
        ("reviews", "get_reviews", _simple("get_reviews", "listing_id")),
        *[(f"offer@{int(lv * 100)}%", "propose_offer", _offer(lv)) for lv in OFFER_LEVELS],
        ("order@list", "place_order", _list_order),
        ("quote", "request_quote", _quote_request),
        ("ask", "ask_question", _ask),
        ("inventory", "get_inventory", _simple("get_inventory", "listing_id")),
        ("answer", "submit_answer", lambda k, lid, r: {"kind": "submit_answer", "answer": {"listing_id": lid},
                                                        "evidence": [lid]}),
    ]
    per_thread = [
        ("get", "get_offer_thread", _simple("get_offer_thread", "thread_id")),
        ("accept", "accept_offer", _on_thread("accept_offer", {None, "mine"})),
        ("reject", "reject_offer", _on_thread("reject_offer", {None, "mine"},
                                              reason="Thank you for your time, but we're too far apart on price.")),
        *[(f"counter@{int(s * 100)}%", "counter_offer", _counter(s)) for s in CONCESSIONS],
        ("withdraw", "withdraw_offer", _on_thread("withdraw_offer", {"theirs"})),
        ("order", "place_order", _on_thread("place_order", {None, "agreed"})),
    ]
    per_order = [
        ("get", "get_order", _simple("get_order", "order_id")),
        ("pay", "authorize_payment", _pay(True)),
        ("pay:plain", "authorize_payment", _pay(False)),
        ("confirm", "confirm_order", _simple("confirm_order", "order_id")),
        ("allocate", "allocate_inventory", _simple("allocate_inventory", "order_id")),
        ("ship", "ship_order", _simple("ship_order", "order_id", carrier="standard")),
        ("cancel", "cancel_order", _simple("cancel_order", "order_id")),
        ("return", "request_return", _return),
        ("dispute", "open_dispute", _simple("open_dispute", "order_id", reason="not_received")),
        ("close", "close_ledger", _simple("close_ledger", "order_id")),
    ]
    per_payment = [
        ("get", "get_payment", _simple("get_payment", "payment_id")),
        ("capture", "capture_payment", _with_amount("capture_payment")),
        ("refund", "issue_refund", _with_amount("issue_refund")),
        ("void", "void_authorization", _simple("void_authorization", "payment_id")),
    ]
    per_shipment = [
        ("get", "get_shipment", _simple("get_shipment", "shipment_id")),
        ("delivered", "confirm_delivery", _simple("confirm_delivery", "shipment_id")),
        ("lost", "report_delivery_exception", _simple("report_delivery_exception", "shipment_id", reason="lost")),
    ]
    per_event = [("get", "get_market_event", _simple("get_market_event", "event_id"))] + [
        (v, "classify_event", _simple("classify_event", "event_id", verdict=v)) for v in VERDICTS] + [
        (f"answer:{kind}", kind, _answer_notice(kind))
        for kind in ("authorize_payment", "capture_payment", "allocate_inventory", "ship_order", "issue_refund")]
    per_return = [
        ("get", "get_return", _simple("get_return", "return_id")),
        ("approve", "authorize_return", _simple("authorize_return", "return_id", approve=True)),
        ("deny", "authorize_return", _simple("authorize_return", "return_id", approve=False)),
    ]
    per_dispute = [
        ("get", "get_dispute", _simple("get_dispute", "dispute_id")),
        ("respond", "respond_dispute", lambda k, d, r: {"kind": "respond_dispute", "dispute_id": d, "evidence": [d]}),
    ]
    per_quote = [
        ("get", "get_quote", _simple("get_quote", "quote_id")),
        ("accept", "accept_quote", _simple("accept_quote", "quote_id")),
        ("order", "place_order", _simple("place_order", "quote_id")),
    ]
    groups = [
        ("listing", "listings", N_LISTINGS, per_listing), ("thread", "threads", N_THREADS, per_thread),
        ("order", "orders", N_ORDERS, per_order), ("payment", "payments", N_PAYMENTS, per_payment),
        ("shipment", "shipments", N_SHIPMENTS, per_shipment), ("event", "events", N_EVENTS, per_event),
        ("return", "returns", N_RETURNS, per_return), ("dispute", "disputes", N_DISPUTES, per_dispute),
        ("quote", "quotes", N_QUOTES, per_quote),
        ("request", "quote_requests", N_REQUESTS, [("issue", "issue_quote", _issue_quote)]),
        ("question", "questions", N_QUESTIONS, [("answer", "answer_question", lambda k, m, r: {
            "kind": "answer_question", "in_reply_to": m, "text": "Thanks for asking; the listing details are accurate."})]),
    ]
    for name, table, count, templates in groups:
        for i in range(count):
            slots += [Slot(f"{name}[{i}].{label}", kind, _per(table, fn), i) for label, kind, fn in templates]
    for i in range(plans.N_HITS):
        slots += [Slot(f"hit[{i}].get", "get_listing", plans.hit_get, i),
                  Slot(f"hit[{i}].reviews", "get_reviews", plans.hit_reviews, i),
                  Slot(f"hit[{i}].order", "place_order", plans.hit_order, i)]
    for i in range(plans.N_REVIEWS):
        slots += [Slot(f"review[{i}].flag:{r}", "flag_review", plans.flag(r), i) for r in plans.FLAG_REASONS]
    for i in range(N_THREADS):
        slots += [Slot(f"thread[{i}].ask@{int(s * 100)}%", "counter_offer", plans.asking(s), i)
                  for s in plans.ASKING_SHARES]
        slots += [Slot(f"thread[{i}].concede@{int(s * 100)}%", "counter_offer", plans.conceding(s), i)
                  for s in plans.CONCEDE_SHARES]
    slots += [Slot(f"listing[{i}].get", "get_listing", _per("listings", _simple("get_listing", "listing_id")), i)
              for i in range(N_LISTINGS, N_READ)]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in aftersales.slots(N_ORDERS, N_RETURNS, N_DISPUTES)]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in carts.slots(N_REQUESTS)]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in notices.slots(N_EVENTS, N_LISTINGS)]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in governance.slots(N_LISTINGS)]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in records.slots(N_LISTINGS)]
    slots += [Slot(f"merchant[{i}].reputation", "get_merchant_reputation", _merchant_rep, i) for i in range(N_MERCHANTS)]
    slots += [
        Slot("inbox", "get_inbox", _fixed(IDLE_ACTION)),
        Slot("mandate", "get_mandate", _fixed({"kind": "get_mandate"})),
        Slot("balance", "get_balance", _fixed({"kind": "get_balance"})),
        Slot("orders", "list_orders", _fixed({"kind": "list_orders"})),
        Slot("ledger", "get_ledger", _fixed({"kind": "get_ledger"})),
        Slot("inventory", "get_inventory", _fixed({"kind": "get_inventory"})),
        Slot("abstain", "abstain", _fixed({"kind": "abstain", "reason": "Nothing available satisfies the request."})),
        Slot("finish", "finish", _fixed({"kind": "finish", "summary": "Done."})),
    ]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in searches.slots()]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in records.reply_slots(N_QUESTIONS)]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in plans.fine_opening_slots()]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in carts.cheapest_slots()]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in governance.bought_slots()]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in remedies.slots(N_ORDERS, N_RETURNS)]
    slots += [Slot(label, kind, build, i) for label, kind, build, i in remedies.far_order_slots(N_ORDERS)]
    return slots


def _merchant_rep(k: Known, i: int) -> dict | None:
    merchants = k.merchants()
    return {"kind": "get_merchant_reputation", "merchant_id": merchants[i]} if i < len(merchants) else None


SLOTS: tuple[Slot, ...] = tuple(_build_table())
"""The menu: the same slots, in the same order, for every agent and task."""
LABELS: tuple[str, ...] = tuple(s.label for s in SLOTS)
SLOT_NEEDS: tuple[str | None, ...] = tuple(s.needs for s in SLOTS)


ROLE_SLOTS: dict[str, tuple[bool, ...]] = {
    role.value: tuple(role in TOOLS[s.kind].roles for s in SLOTS) for role in Role}
"""Per role, which slots its tools allow (what :meth:`Slot.action` checks first), computed once."""


def _plan(allowed: tuple[bool, ...]) -> tuple[list[int], dict[str, list[tuple[int, int]]]]:
    free = [pos for pos, ok in enumerate(allowed) if ok and SLOT_NEEDS[pos] is None]
    indexed: dict[str, list[tuple[int, int]]] = {}
    for pos, ok in enumerate(allowed):
        if ok and SLOT_NEEDS[pos] is not None:
            indexed.setdefault(SLOT_NEEDS[pos], []).append((SLOTS[pos].index, pos))
    return free, {need: sorted(ordered) for need, ordered in indexed.items()}


_ROLE_PLAN = {role: _plan(allowed) for role, allowed in ROLE_SLOTS.items()}
"""Per role: the allowed unindexed slots, and per count the allowed indexed slots by index (built while in range)."""


def menu_actions(known: Known) -> list[dict[str, Any] | None]:
    """One entry per slot: the concrete action, or None when the slot is unavailable.

    The same list as ``[slot.action(known) for slot in SLOTS]``, with the role check read from
    :data:`ROLE_SLOTS` instead of repeated for each slot, and the indexed slots whose index is past
    what the agent has seen (:func:`seen_counts`) skipped without calling their builders.
    """
    known.sync()
    known.memo.clear()
    free, indexed = _ROLE_PLAN[Role(known.role).value]
    counts = seen_counts(known)
    out: list[dict[str, Any] | None] = [None] * len(SLOTS)
    for pos in free:
        out[pos] = SLOTS[pos].built(known)
    for need, ordered in indexed.items():
        count = counts[need]
        for index, pos in ordered:
            if index >= count:
                break
            out[pos] = SLOTS[pos].built(known)
    return out
