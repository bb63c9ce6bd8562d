"""Read-only query rules: what each role may see. They return data and never events."""

from __future__ import annotations

from typing import Any

from ..vcp import (
    GetDispute,
    GetInventory,
    GetLedger,
    GetListing,
    GetMarketEvent,
    GetMerchantReputation,
    GetOfferThread,
    GetOrder,
    GetPayment,
    GetQuote,
    GetReturn,
    GetReviews,
    GetShipment,
    SearchListings,
)
from .context import RuleContext
from .result import Outcome, Reject, require
from .rules import own, record, rule

_SEARCH_FIELDS = ("text", "category", "brand", "merchant_id", "min_price", "max_price", "in_stock",
                  "options", "attributes", "min_rating", "sort", "page", "page_size")


def listing_view(ctx: RuleContext, listing_id: str, item: Any = None) -> dict[str, Any] | None:
    """What any actor may see of a listing: catalog record (``item``, looked up when not given)
    merged with the episode's overlay."""
    overlay = ctx.state["listings"].get(listing_id)
    if item is None and ctx.catalog is not None:
        item = ctx.catalog.get(listing_id)
    if item is None and overlay is None:
        return None
    view: dict[str, Any] = item.model_dump(mode="json") if item is not None else {"listing_id": listing_id}
    if overlay is not None:
        view.update({
            "merchant_id": overlay["merchant"], "title": overlay["title"] or view.get("title", ""),
            "category": overlay["category"] or view.get("category", ""), "price": overlay["price"],
            "quantity": overlay["stock"], "in_stock": overlay["stock"] > 0, "status": overlay["status"],
            "claims": overlay["claims"], "sponsored_by": overlay["sponsor"],
            "compare_at_price": overlay["compare_at"],
        })
        if overlay.get("terms"):  # published pricing terms (tiers, bundle prices, fees), when a listing has them
            view["terms"] = overlay["terms"]
    else:
        merchant = ctx.settings.merchant_actors.get(view["merchant_id"], view["merchant_id"])
        view.update({"merchant_id": merchant, "status": "active", "claims": {}, "sponsored_by": None})
    return view


def _overlay_search(ctx: RuleContext, a: SearchListings) -> tuple[int, list[str]]:
    hits = []
    for lid, rec in ctx.state["listings"].items():
        if a.category and rec["category"] != a.category:
            continue
        if a.max_price is not None and rec["price"] > a.max_price:
            continue
        if a.min_price is not None and rec["price"] < a.min_price:
            continue
        if a.in_stock and rec["stock"] <= 0:
            continue
        if a.text and not any(w in rec["title"].lower() for w in a.text.lower().split()):
            continue
        hits.append((rec["price"], lid))
    hits.sort(reverse=a.sort == "price_desc")
    start = (a.page - 1) * a.page_size
    return len(hits), [lid for _, lid in hits[start:start + a.page_size]]


@rule("search_listings")
def search_listings(ctx: RuleContext, a: SearchListings) -> Outcome:
    if ctx.catalog is None:
        total, ids = _overlay_search(ctx, a)
    else:
        from ..catalog import CatalogQueryError

        query = {k: getattr(a, k) for k in _SEARCH_FIELDS}
        query = {k: v for k, v in query.items() if v not in (None, {}, "")}
        if "merchant_id" in query:
            reverse = {v: k for k, v in ctx.settings.merchant_actors.items()}
            query["merchant_id"] = reverse.get(query["merchant_id"], query["merchant_id"])
        try:
            page = ctx.catalog.search(query)
        except CatalogQueryError as exc:
            raise Reject(f"bad_query_{exc.code}", exc.message) from exc
        total, ids = page.total, [x.listing_id for x in page.items]
        items = [listing_view(ctx, x.listing_id, x) for x in page.items]
        return Outcome(True, result={"total": total, "page": a.page, "items": items}, evidence=ids)
    items = [listing_view(ctx, lid) for lid in ids]
    return Outcome(True, result={"total": total, "page": a.page, "items": items}, evidence=ids)


@rule("get_listing")
def get_listing(ctx: RuleContext, a: GetListing) -> Outcome:
    view = listing_view(ctx, a.listing_id)
    require(view is not None, "unknown_listing", f"no listing {a.listing_id!r}")
    return Outcome(True, result=view, evidence=[a.listing_id])


@rule("get_reviews")
def get_reviews(ctx: RuleContext, a: GetReviews) -> Outcome:
    require(listing_view(ctx, a.listing_id) is not None, "unknown_listing", f"no listing {a.listing_id!r}")
    # a review tied to an order (every posted review; seeded ones may carry none) is a verified purchase
    reviews = [{"review_id": rid, **{k: r[k] for k in ("rating", "text", "by", "flags")},
                "verified_purchase": r.get("order") is not None}
               for rid, r in sorted(ctx.state["reviews"].items()) if r["listing"] == a.listing_id]
    return Outcome(True, result={"listing_id": a.listing_id, "reviews": reviews},
                   evidence=[a.listing_id] + [r["review_id"] for r in reviews])


@rule("get_merchant_reputation")
def get_merchant_reputation(ctx: RuleContext, a: GetMerchantReputation) -> Outcome:
    rep = record(ctx, "reputation", a.merchant_id, what="merchant")
    avg = round(rep["rating_sum"] / rep["ratings"], 2) if rep["ratings"] else None
    return Outcome(True, result={"merchant_id": a.merchant_id, **rep, "average_rating": avg},
                   evidence=[a.merchant_id])


def _own_record(table: str, key_field: str, parties: tuple[str, ...], what: str):
    def query(ctx: RuleContext, a: Any) -> Outcome:
        key = getattr(a, key_field)
        rec = record(ctx, table, key, what=what)
        owner = rec
        if "order" in rec and not any(p in rec for p in parties):
            owner = ctx.state["orders"][rec["order"]]
        own(ctx, owner, *parties, what=what)
        return Outcome(True, result={key_field: key, **rec}, evidence=[key])

    return query


rule("get_order")(_own_record("orders", "order_id", ("buyer", "merchant"), "order"))
rule("get_payment")(_own_record("payments", "payment_id", ("buyer", "merchant"), "payment"))
rule("get_shipment")(_own_record("shipments", "shipment_id", ("buyer", "merchant"), "shipment"))
rule("get_offer_thread")(_own_record("threads", "thread_id", ("buyer", "merchant"), "thread"))
rule("get_quote")(_own_record("quotes", "quote_id", ("buyer", "merchant"), "quote"))
rule("get_return")(_own_record("returns", "return_id", ("buyer", "merchant"), "return"))
rule("get_dispute")(_own_record("disputes", "dispute_id", ("buyer", "merchant"), "dispute"))
_ = (GetOrder, GetPayment, GetShipment, GetOfferThread, GetQuote, GetReturn, GetDispute)


@rule("list_orders")
def list_orders(ctx: RuleContext, a: Any) -> Outcome:
    mine = [{"order_id": oid, "status": o["status"], "total": o["total"]}
            for oid, o in sorted(ctx.state["orders"].items()) if ctx.actor in (o["buyer"], o["merchant"])]
    return Outcome(True, result={"orders": mine}, evidence=[o["order_id"] for o in mine])


@rule("get_inbox")
def get_inbox(ctx: RuleContext, a: Any) -> Outcome:
    inbox = ctx.market.inboxes.get(ctx.actor, [])
    # copies: the result goes into a hashed trace record, and the live message's "read" flag changes later
    items = [dict(m) for m in inbox if not (a.unread_only and m.get("read"))]
    return Outcome(True, result={"messages": items}, evidence=[m["message_id"] for m in items])


@rule("get_mandate")
def get_mandate(ctx: RuleContext, a: Any) -> Outcome:
    return Outcome(True, result=ctx.market.mandates.get(ctx.actor, {}))


@rule("get_balance")
def get_balance(ctx: RuleContext, a: Any) -> Outcome:
    rec = ctx.state["actors"][ctx.actor]
    return Outcome(True, result={"balance": rec["balance"], "held": rec["held"]})


@rule("get_inventory")
def get_inventory(ctx: RuleContext, a: GetInventory) -> Outcome:
    rows = {lid: {"stock": r["stock"], "reserved": r["reserved"], "price": r["price"], "status": r["status"]}
            for lid, r in sorted(ctx.state["listings"].items()) if r["merchant"] == ctx.actor
            and (a.listing_id is None or lid == a.listing_id)}
    require(a.listing_id is None or bool(rows), "unknown_listing", f"no listing {a.listing_id!r} of yours")
    return Outcome(True, result={"inventory": rows}, evidence=list(rows))


@rule("get_ledger")
def get_ledger(ctx: RuleContext, a: GetLedger) -> Outcome:
    ids = [a.order_id] if a.order_id else sorted(ctx.state["ledger"])
    out = {}
    for oid in ids:
        order = record(ctx, "orders", oid, what="order")
        if ctx.actor in (order["buyer"], order["merchant"]):
            out[oid] = ctx.state["ledger"].get(oid, {"entries": [], "closed": False})
        else:
            require(a.order_id is None, "not_party", "you are not a party to this order")
    return Outcome(True, result={"ledger": out}, evidence=list(out))


@rule("get_market_event")
def get_market_event(ctx: RuleContext, a: GetMarketEvent) -> Outcome:
    ev = record(ctx, "market_events", a.event_id, what="market event")
    require(ev["to"] == ctx.actor, "not_addressed", f"event {a.event_id} was not delivered to you")
    return Outcome(True, result={"event_id": a.event_id, **ev}, evidence=[a.event_id])
