"""What one agent has seen: the ids, prices and statuses visible in its own observations.

:class:`Known` is the agent's memory of the market, built only from its role-private
observations (request, own mandate, inbox, results of its own actions) and the actions it
took itself. The action sampler and the discrete action menu draw their candidate actions
from it, so they never use anything the agent could not see.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from ..vcp.union import ONE_SHOT_KINDS

_ID_TEXT = re.compile(r"\b(thr|qrq|quo|ord|pay|shp|ret|dsp|rev)-\d{4,}\b")
_LISTING_TEXT = re.compile(r"\bL-[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?\b|\bm\d{3}-p\d{5}-v\d{3}\b")
_ACTOR_TEXT = re.compile(r"\b(?:buyer|merchant)_\d+\b")
_PREFIX_TABLE = {
    "thr": "threads", "qrq": "quote_requests", "quo": "quotes", "ord": "orders", "pay": "payments",
    "shp": "shipments", "ret": "returns", "dsp": "disputes", "rev": "reviews",
}
_KEY_TABLE = {
    "listing_id": "listings", "thread_id": "threads", "order_id": "orders", "payment_id": "payments",
    "shipment_id": "shipments", "event_id": "events", "return_id": "returns", "dispute_id": "disputes",
    "quote_id": "quotes", "request_id": "quote_requests", "review_id": "reviews",
}
ONE_SHOT = ONE_SHOT_KINDS
"""Actions that, once accepted, make no sense again on the same record (``one_shot`` on the action class)."""
_KEY_FIELDS = ("order_id", "payment_id", "thread_id", "event_id", "return_id", "dispute_id", "quote_id",
               "request_id", "in_reply_to", "shipment_id")


def action_key(action: dict[str, Any]) -> tuple[str, str] | None:
    """``(kind, record id)`` of an action on one record, e.g. ``("ship_order", "ord-0001")``."""
    for f in _KEY_FIELDS:
        if isinstance(action.get(f), str):
            return str(action.get("kind")), action[f]
    return None


NOTICE_FIELDS = ("type", "order_id", "payment_id", "amount", "listing_id", "shipment_id", "status", "estimate_round",
                 "delivery_round", "eta_round", "unit_cost", "received", "damaged", "quantity", "stock", "price")
"""What the menu keeps of a market notice: the action it asks for and for what, and the figures it reports
(a new delivery estimate, a supplier date, a unit cost, units received, a price or stock level)."""
MAX_MESSAGES = 64
KNOWN_KINDS = ("listings", "threads", "orders", "payments", "shipments", "events", "returns", "disputes",
          "quotes", "quote_requests", "reviews", "questions")
"""Kinds of record an agent can come to know, in the order menus use them."""


_PAYER_TEXT = re.compile(r"\bpaid for by ([A-Z][\w&' .-]{0,40}?) \((merchant_\d+)\)")
_OWN_SHOP = re.compile(r"\bWe \(([A-Z][\w&' .-]{0,40}?)\)")
_SELLER_TEXT = re.compile(r"\b(merchant_\d+)\b[^().;]{0,60}\(listing (L-[A-Za-z0-9_-]*[A-Za-z0-9])\)")
_ORDER_LISTING = re.compile(r"\b(ord-\d{4,}) \([^()]*?\b(L-[A-Za-z0-9_-]*[A-Za-z0-9])\)")
_PART_UNITS = re.compile(r"\b(\d+) of the (\d+) units\b")
_FEE = re.compile(r"(\d{1,2})\s*%\s*restocking", re.I)
_REF_TABLE = {"order": "orders", "payment": "payments", "shipment": "shipments"}
_STATED_LINE = re.compile(r"\b(ord-\d{4,}): (\d+) x (L-[A-Za-z0-9_-]*[A-Za-z0-9])\b")
_FAIR_UNIT = re.compile(r"\bshould have paid \$(\d+(?:\.\d\d)?) a unit\b", re.I)
_FACT = re.compile(r"\b(warranty|returns?|return window) is (\d+ (?:year|month|week|day)s?)\b", re.I)
_LIST_PRICE = re.compile(r"\blist(?:ed)?(?: price)?(?: at| of| is)?\s*\$(\d+(?:\.\d\d)?)", re.I)


def _list_price(text: str) -> int | None:
    """The list price quoted in ``text`` ("listed at $119", "list price $48.50"), in cents."""
    m = _LIST_PRICE.search(text)
    return None if m is None else int(round(float(m.group(1)) * 100))


def plain_int(value: Any) -> int | None:
    """``value`` if it is an integer (not a boolean), else None: how every menu builder reads a figure."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass
class Known:
    """Ids an agent has seen, in first-seen order, with the few facts menus need."""

    actor: str = ""
    role: str = "buyer"
    request: str = ""
    mandate: dict[str, Any] = field(default_factory=dict)
    actors: dict[str, str | None] = field(default_factory=dict)
    categories: list[str] = field(default_factory=list)
    last_kind: str | None = None
    hints: dict[str, Any] = field(default_factory=dict)
    """Requirements parsed from the request, when the env runs with ``hints="structured"`` (else empty)."""
    hits: list[str] = field(default_factory=list)
    """Listing ids of the agent's own last accepted search, in the order the page listed them."""
    list_price: int | None = None
    """The list price the request text quotes ("listed at $119", "list price $48"), in cents."""
    fee_pct: int | None = None
    """A restocking fee the request text quotes ("a 10% restocking fee"), in percent."""
    refunds: list[str] = field(default_factory=list)
    """Refund ids the agent's own refunds returned, in order."""
    ordered: dict[str, int] = field(default_factory=dict)
    """Units each of the agent's own accepted orders asked for, by order id."""
    sponsors: list[str] = field(default_factory=list)
    """Payers named in text as "Name (merchant_N)" (the agent's own shop from "We (Name)"), first seen first."""
    senders: list[str] = field(default_factory=list)
    """Other actors who sent the agent a message, first seen first."""
    part_units: dict[int, int] = field(default_factory=dict)
    """Part quantities the request text states, "2 of the 3 units": {3: 2}."""
    order_listing: dict[str, str] = field(default_factory=dict)
    """Orders the request text names with their listing ("ord-0001 (cat fountain, L-001)")."""
    stated_lines: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Order lines the request text states ("ord-0003: 3 x L-002"), by order id."""
    fair_unit: int | None = None
    """The unit price the request says customers should have paid ("should have paid $69 a unit"), in cents."""
    facts: dict[str, str] = field(default_factory=dict)
    """Facts the request states about the product ("the maker's warranty is 1 year": {"warranty": "1 year"})."""
    filled: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The agent's own accepted partial fills, by order: ``{"lines": {listing: units}, "remainder": ...}``."""
    exchanged: dict[str, str] = field(default_factory=dict)
    """The agent's own accepted exchanges: the listing sent for each return."""
    after_vid: Any = field(default=None, repr=False)
    """The validation id of the result last absorbed (a read's stock, an own action's effects apply once)."""
    arrived: set[str] = field(default_factory=set, repr=False)
    """Delivery notices (event ids) whose units were added to the stock seen."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    """The texts of inbox messages and notices, first seen first (at most :data:`MAX_MESSAGES`): ``from``,
    ``kind``, ``text``, and for a market event whether it is ``signed``, its ``sender``, its ``event_id`` and its
    plain fields (``event``: type, stream, seq, order, amount, rounds, ...)."""
    pending: dict[str, Any] = field(default_factory=dict)
    done: set[tuple[str, str]] = field(default_factory=set)
    records: dict[str, dict[str, dict[str, Any]]] = field(
        default_factory=lambda: {t: {} for t in KNOWN_KINDS})
    queue: list[tuple[str, dict[str, Any]]] = field(default_factory=list, repr=False)
    scanned: str = field(default="", repr=False)
    mandate_seen: dict[str, Any] | None = field(default=None, repr=False)
    """The mandate as last absorbed (absorbed again only when it changes)."""
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)
    """Scratch space builders share while one menu is built (cleared before each)."""

    def __getitem__(self, table: str) -> dict[str, dict[str, Any]]:
        """The known records of one kind, by id, in first-seen order."""
        return self.records[table]

    # -- updates --------------------------------------------------------------
    def feed(self, raw: dict[str, Any] | None = None, action: dict[str, Any] | None = None) -> None:
        """Queue an observation or an own action; it is absorbed lazily, at the next :meth:`sync`."""
        if raw is not None:
            self.queue.append(("obs", raw))
        if action is not None:
            self.queue.append(("act", action))

    def sync(self) -> Known:
        """Absorb everything queued, in order; return self."""
        queue, self.queue = self.queue, []
        for what, item in queue:
            if what == "obs":
                self.update(item)
            else:
                self.note_action(item)
        return self

    def update(self, raw: dict[str, Any]) -> None:
        """Absorb one raw observation (the dict :meth:`Episode.observe` returns)."""
        self.actor = raw.get("actor", self.actor)
        self.role = raw.get("role", self.role)
        self.request = raw.get("request", self.request) or ""
        self.mandate = dict(raw.get("mandate") or {})
        hints = raw.get("hints")
        self.hints = hints if isinstance(hints, dict) else {}
        if self.request != self.scanned:
            self._text(self.request)
            self.list_price = _list_price(self.request)
            self.order_listing = {m.group(1): m.group(2) for m in _ORDER_LISTING.finditer(self.request)}
            self.part_units = {int(m.group(2)): int(m.group(1)) for m in _PART_UNITS.finditer(self.request)}
            self.stated_lines = {}
            for m in _STATED_LINE.finditer(self.request):
                self.stated_lines.setdefault(m.group(1), []).append(
                    {"listing_id": m.group(3), "quantity": int(m.group(2))})
            fair = _FAIR_UNIT.search(self.request)
            self.fair_unit = int(round(float(fair.group(1)) * 100)) if fair else None
            self.facts = {m.group(1).lower(): m.group(2).lower() for m in _FACT.finditer(self.request)}
            fee = _FEE.search(self.request)
            self.fee_pct = int(fee.group(1)) if fee else None
            self.scanned = self.request
        if self.mandate != self.mandate_seen:  # absorbed once: a record read later is fresher than the mandate
            self._walk(self.mandate)
            for key in ("listings", "orders", "payments", "shipments", "returns"):
                named = self.mandate.get(key)
                for rid in named if isinstance(named, list) else []:
                    self._see(key, rid)
            self.mandate_seen = self.mandate
        arrivals: list[tuple[str, str, int]] = []
        for msg in raw.get("inbox") or []:
            self._message(msg, arrivals)
        last = raw.get("last_result") or {}
        vid = last.get("validation_id")
        if last.get("accepted") and (vid is None or vid != self.after_vid):
            self.after_vid = vid  # a result is absorbed once, however often its observation is looked at
            self._walk(last.get("result"))
            result = last.get("result") if isinstance(last.get("result"), dict) else {}
            if last.get("kind") == self.pending.get("kind"):
                self._after_own(self.pending, result)
            if last.get("kind") == "get_listing" and isinstance(result.get("listing_id"), str):
                rec = self._see("listings", result["listing_id"])
                if rec is not None:
                    rec["terms"] = result.get("terms") if isinstance(result.get("terms"), dict) else {}
                    rec["attributes"] = result.get("attributes") if isinstance(result.get("attributes"), dict) else {}
                    rec["claims"] = result.get("claims") if isinstance(result.get("claims"), dict) else {}
            if isinstance(result.get("refund_id"), str) and result["refund_id"] not in self.refunds:
                self.refunds.append(result["refund_id"])
            if last.get("kind") == "search_listings" and isinstance(result.get("items"), list):
                self.hits = [x["listing_id"] for x in result["items"]
                             if isinstance(x, dict) and isinstance(x.get("listing_id"), str)]
            tid = result.get("thread_id")
            if last.get("kind") == "propose_offer" and self.pending.get("kind") == "propose_offer" and tid:
                thr = self["threads"].setdefault(tid, {})
                thr.setdefault("turn", "theirs")
                thr.setdefault("listing", self.pending.get("listing_id"))
                thr.setdefault("counterparty", self.pending.get("to"))
                if plain_int(self.pending.get("unit_price")) is not None:
                    thr.setdefault("mine", self.pending["unit_price"])
        self._arrived(arrivals)

    def _arrived(self, arrivals: list[tuple[str, str, int]]) -> None:
        """Add the units delivery notices report to the stock last seen, once per notice (the notices came
        after any read of the same observation: the clock moved on after the agent's action)."""
        for eid, lid, units in arrivals:
            lst = self._see("listings", lid)
            if lst is not None and eid not in self.arrived:
                self.arrived.add(eid)
                lst["stock"] = (plain_int(lst.get("stock")) or 0) + units

    def note_action(self, action: dict[str, Any]) -> None:
        """Remember an action the agent itself proposed (its own prices, its thread turns)."""
        kind = action.get("kind")
        self.last_kind = kind if isinstance(kind, str) else None
        self.pending = dict(action)
        tid, price = action.get("thread_id"), plain_int(action.get("unit_price"))
        if isinstance(tid, str) and tid in self["threads"]:
            thr = self["threads"][tid]
            if kind == "counter_offer" and price is not None:
                thr.update(mine=price, turn="theirs")
            elif kind == "accept_offer":
                thr["turn"] = "agreed"
            elif kind in {"reject_offer", "withdraw_offer"}:
                thr["turn"] = "closed"

    def _after_own(self, action: dict[str, Any], result: dict[str, Any]) -> None:
        key = action_key(action)
        if key is not None and key[0] in ONE_SHOT:
            self.done.add(key)
        placed = result.get("order_id")
        if action.get("kind") == "place_order" and isinstance(action.get("lines"), list) and isinstance(placed, str):
            self.ordered[placed] = sum(plain_int(x.get("quantity")) or 0 for x in action["lines"] if isinstance(x, dict))
            for x in action["lines"]:  # units the agent bought are no longer in the stock it saw
                lst = self["listings"].get(x.get("listing_id")) if isinstance(x, dict) else None
                if lst is not None and plain_int(lst.get("stock")) is not None:
                    lst["stock"] = max(0, lst["stock"] - (plain_int(x.get("quantity")) or 0))
        oid = action.get("order_id")
        if action.get("kind") in {"allocate_inventory", "partial_fill"} and isinstance(oid, str):
            self._committed(oid, action)
        if action.get("kind") == "offer_exchange" and isinstance(action.get("return_id"), str):
            self.exchanged[action["return_id"]] = str(action.get("listing_id"))
        if isinstance(oid, str) and oid in self["orders"]:
            for field_name in ("payment_id", "shipment_id"):
                if isinstance(result.get(field_name), str):
                    self["orders"][oid][field_name.split("_")[0]] = result[field_name]

    def order_lines(self, oid: str) -> list[dict[str, Any]]:
        """An order's lines: as read from the order, else as the request states them."""
        return self["orders"].get(oid, {}).get("lines") or self.stated_lines.get(oid, [])

    def _committed(self, oid: str, action: dict[str, Any]) -> None:
        """Take the units the agent's own allocation or partial fill committed off the stock last seen."""
        if action.get("kind") == "partial_fill":
            lines = [x for x in action.get("lines") or [] if isinstance(x, dict)]
            self.filled[oid] = {"lines": {x.get("listing_id"): plain_int(x.get("quantity")) or 0 for x in lines},
                                "remainder": action.get("remainder")}
        else:
            lines = self.order_lines(oid)
        for x in lines:
            lst = self["listings"].get(x.get("listing_id"))
            if lst is not None and plain_int(lst.get("stock")) is not None:
                lst["stock"] -= plain_int(x.get("quantity")) or 0

    # -- extraction -------------------------------------------------------------
    def _see(self, table: str, key: Any) -> dict[str, Any] | None:
        if not isinstance(key, str) or not key or len(key) > 64:
            return None
        return self.records[table].setdefault(key, {})

    def _actor(self, actor: Any, role: str | None = None) -> None:
        if (isinstance(actor, str) and actor and actor not in {self.actor, "market"} and len(actor) <= 64
                and (role is not None or actor not in self.actors)):
            self.actors[actor] = role or self.actors.get(actor)

    def _text(self, text: str) -> None:
        for m in _ID_TEXT.finditer(text):
            self._see(_PREFIX_TABLE[m.group(1)], m.group(0))
        for m in _LISTING_TEXT.finditer(text):
            self._see("listings", m.group(0))
        for m in _ACTOR_TEXT.finditer(text):
            self._actor(m.group(0), "merchant" if m.group(0).startswith("merchant") else "buyer")
        for m in _PAYER_TEXT.finditer(text):
            name = f"{m.group(1).strip()} ({m.group(2)})"
            if name not in self.sponsors:
                self.sponsors.append(name)
        own = _OWN_SHOP.search(text)
        if own and self.actor and f"{own.group(1)} ({self.actor})" not in self.sponsors:
            self.sponsors.append(f"{own.group(1)} ({self.actor})")
        for m in _SELLER_TEXT.finditer(text):
            rec = self._see("listings", m.group(2))
            if rec is not None:
                rec.setdefault("merchant", m.group(1))

    def _message(self, msg: dict[str, Any], arrivals: list[tuple[str, str, int]]) -> None:
        """Absorb one inbox message; a restock notice's units go to ``arrivals`` (added once all are read)."""
        sender = msg.get("from")
        self._actor(sender)
        if isinstance(sender, str) and sender not in {"market", self.actor} and sender not in self.senders:
            self.senders.append(sender)
        if msg.get("kind") == "question":
            self._see("questions", msg.get("message_id"))
            self["questions"][msg["message_id"]].update(listing=msg.get("listing_id"), sender=sender,
                                                        text=str(msg.get("text", ""))[:2000])
        tid = msg.get("thread_id")
        thr = self._see("threads", tid)
        if thr is not None and sender:
            thr["counterparty"] = sender
            event, price = msg.get("offer_event"), plain_int(msg.get("unit_price"))
            if event in {"offer", "counter"}:
                thr.update(turn="mine", **({"theirs": price} if price is not None else {}))
            elif event == "accepted":
                thr["turn"] = "agreed"
            elif event == "rejected":
                thr["turn"] = "closed"
            if msg.get("listing_id"):
                thr["listing"] = msg["listing_id"]
        notice = msg.get("market_event")
        if msg.get("event_id") and isinstance(notice, dict):
            rec = self._see("events", msg["event_id"])
            if rec is not None:
                rec.update({k: v for k, v in notice.items() if k in NOTICE_FIELDS})
                lst = self._see("listings", notice.get("listing_id"))
                stock, units = plain_int(notice.get("stock")), plain_int(notice.get("quantity"))
                if lst is not None and stock is not None:
                    lst["stock"] = stock
                elif lst is not None and units is not None and notice.get("type") == "restock":
                    arrivals.append((msg["event_id"], notice["listing_id"], units))
        self._walk({k: v for k, v in msg.items() if k not in {"from", "to"}})
        self._text(str(msg.get("text", "")))
        self._keep_text(msg, notice if isinstance(notice, dict) else {})

    def _keep_text(self, msg: dict[str, Any], notice: dict[str, Any]) -> None:
        """Remember a message's text once (by its message or event id, else its text)."""
        text = msg.get("text")
        if not isinstance(text, str) or len(self.messages) >= MAX_MESSAGES:
            return
        key = msg.get("message_id") or msg.get("event_id") or text
        if any(m["key"] == key for m in self.messages):
            return
        event = {k: v for k, v in notice.items() if isinstance(v, str | int | float | bool) or v is None}
        self.messages.append({"key": key, "from": msg.get("from"), "kind": msg.get("kind"), "text": text[:2000],
                              "signed": notice.get("signed") is True, "sender": notice.get("sender"),
                              "event_id": msg.get("event_id"), "event": event})

    def _walk(self, node: Any, depth: int = 0) -> None:
        if depth > 8:
            return
        if isinstance(node, dict):
            self._absorb(node)
            for key, value in node.items():
                if key == "inventory" and isinstance(value, dict):
                    for lid, rec in value.items():
                        if self._see("listings", lid) is not None and isinstance(rec, dict):
                            self._absorb({"listing_id": lid, **rec, "merchant_id": self.actor})
                elif key == "ledger" and isinstance(value, dict):
                    for oid, book in value.items():
                        if self._see("orders", oid) is not None and isinstance(book, dict):
                            self._ledger(oid, book.get("entries"))
                elif key in ("requires", "incompatible_with") and isinstance(value, list):
                    for lid in value:  # listings a listing's terms name (accessories, bundle partners)
                        if isinstance(lid, str) and _LISTING_TEXT.fullmatch(lid):
                            self._see("listings", lid)
                elif isinstance(value, dict | list):
                    self._walk(value, depth + 1)
                elif isinstance(value, str) and key in {"text", "message", "title"}:
                    self._text(value)
        elif isinstance(node, list):
            for value in node[:200]:
                self._walk(value, depth + 1)

    def _ledger(self, oid: str, entries: Any) -> None:
        """Payments an order's ledger entries name, linked to that order."""
        for entry in entries if isinstance(entries, list) else []:
            pay = self._see("payments", entry.get("payment")) if isinstance(entry, dict) else None
            if pay is not None:
                pay.setdefault("order", oid)

    def _absorb(self, d: dict[str, Any]) -> None:
        recs = {table: self._see(table, d.get(key)) for key, table in _KEY_TABLE.items() if key in d}
        recs = {t: r for t, r in recs.items() if r is not None}
        refs = {key: d[key] for key in _REF_TABLE if isinstance(d.get(key), str) and _ID_TEXT.fullmatch(d[key])}
        for key, ref in refs.items():
            self._see(_REF_TABLE[key], ref)
            for rec in recs.values():
                rec.setdefault(key, ref)
        for key in ("merchant_id", "merchant"):
            self._actor(d.get(key), "merchant")
        self._actor(d.get("buyer"), "buyer")
        if isinstance(d.get("category"), str) and d["category"] and d["category"] not in self.categories:
            self.categories.append(d["category"])
        if isinstance(d.get("with_listing"), str) and _LISTING_TEXT.fullmatch(d["with_listing"]):
            self._see("listings", d["with_listing"])
        if "listing" in d and isinstance(d["listing"], str) and "thread_id" in d:
            self._see("listings", d["listing"])
        if (lst := recs.get("listings")) is not None:
            if plain_int(d.get("price")) is not None:
                lst["price"] = d["price"]
            if "in_stock" in d and plain_int(d.get("quantity")) is not None:
                lst["stock"] = d["quantity"]
            elif plain_int(d.get("stock")) is not None:
                lst["stock"] = d["stock"]
            if "sponsored_by" in d:
                lst["sponsored"] = bool(d["sponsored_by"])
            merchant = d.get("merchant_id") or d.get("merchant")
            if isinstance(merchant, str):
                lst["merchant"] = merchant
            if isinstance(d.get("attributes"), dict):  # a search hit or record: the catalog's words for it
                lst["facets"] = {"category": d.get("category"), "brand": d.get("brand"),
                                 "attributes": dict(d["attributes"]),
                                 "options": dict(d["options"]) if isinstance(d.get("options"), dict) else {}}
        if (thr := recs.get("threads")) is not None:
            if isinstance(d.get("listing"), str):
                thr["listing"] = d["listing"]
            elif isinstance(d.get("listing_id"), str):
                thr["listing"] = d["listing_id"]
            if isinstance(d.get("status"), str) and d["status"] != "open":
                thr["turn"] = "agreed" if d["status"] == "agreed" else "closed"
            if plain_int(d.get("unit_price")) is not None and "theirs" not in thr:
                thr["theirs"] = d["unit_price"]
        if (order := recs.get("orders")) is not None:
            for k in ("total", "refunded"):
                if plain_int(d.get(k)) is not None:
                    order[k] = d[k]
            if isinstance(d.get("lines"), list):
                order["lines"] = [dict(x) for x in d["lines"] if isinstance(x, dict) and "listing_id" in x]
            if isinstance(d.get("status"), str):
                order["status"] = d["status"]
            for k in ("payment_id", "shipment_id"):
                if isinstance(d.get(k), str):
                    order[k.split("_")[0]] = d[k]
        if (pay := recs.get("payments")) is not None:
            amount = plain_int(d.get("amount")) if "amount" in d else plain_int(d.get("authorized"))
            if amount is not None:
                pay["amount"] = amount
            if plain_int(d.get("refunded")) is not None:
                pay["refunded"] = d["refunded"]
        if (ret := recs.get("returns")) is not None:
            if plain_int(d.get("amount")) is not None:
                ret["amount"] = d["amount"]
            if isinstance(d.get("lines"), list):
                ret["lines"] = [dict(x) for x in d["lines"] if isinstance(x, dict) and "listing_id" in x]
        if (quote := recs.get("quotes")) is not None and plain_int(d.get("total")) is not None:
            quote["total"] = d["total"]
        if (req := recs.get("quote_requests")) is not None and isinstance(d.get("lines"), list):
            req["lines"] = [dict(x) for x in d["lines"] if isinstance(x, dict) and "listing_id" in x]

    # -- views --------------------------------------------------------------
    def nth(self, table: str, i: int) -> str | None:
        """The id of the ``i``-th record of one kind seen, or None when fewer were seen."""
        recs = self.records[table]
        return next(islice(recs, i, None)) if i < len(recs) else None

    def ids(self, table: str) -> list[str]:
        """Ids of one kind, in first-seen order."""
        return list(self.records[table])

    def merchants(self) -> list[str]:
        """Actor ids seen as merchants (other than the agent itself)."""
        return [a for a, r in self.actors.items() if r == "merchant"]

    def counts(self) -> dict[str, int]:
        """How many records of each kind the agent has seen."""
        return {t: len(v) for t, v in self.records.items()}
