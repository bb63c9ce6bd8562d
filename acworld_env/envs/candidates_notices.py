"""Menu slot builders that act on what market notices report: delivery estimates, costs, arrivals, stock.

Builders have the :data:`~acworld_env.envs.candidates.Builder` signature ``(known, index)`` and read
only :class:`~acworld_env.envs.known.Known`: the figures of the notices delivered to the agent, its
mandate (markup, shipping rounds, quantity wanted), the orders its request names with their listing,
the stock levels it read or was told, and the units its own orders asked for.

* ``event[k].eta[j]``: a carrier's new estimate for an order sets that order's delivery round; a
  supplier's date for a listing sets the ``j``-th order waiting on it to that date plus the
  mandate's shipping rounds;
* ``event[k].reprice``: a new unit cost reprices its listing at the cost plus the mandate's markup,
  rounded to whole dollars;
* ``event[k].restock`` / ``restock:good``: book the units a delivery notice says arrived (all of
  them, or those not damaged);
* ``answer:stock``: answer with the stock last seen of each listing the mandate names;
* ``listing[k].order:rest`` / ``order:rest-in-stock``: order the units the mandate still wants
  (less those already ordered), or as many of them as the listing has in stock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .known import Known, plain_int

Builder = Callable[[Known, int], "dict[str, Any] | None"]
N_WAITING = 2
"""Orders waiting on one listing that a supplier's date can set."""


def _event(k: Known, i: int) -> dict[str, Any]:
    eid = k.nth("events", i)
    return k["events"][eid] if eid else {}


def eta(j: int) -> Builder:
    """Set a delivery round from the ``i``-th notice (see the module docstring)."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        ev = _event(k, i)
        estimate, oid = plain_int(ev.get("estimate_round")), ev.get("order_id")
        if estimate is not None and isinstance(oid, str):
            return {"kind": "set_eta", "order_id": oid, "eta_round": estimate} if j == 0 else None
        date, lid = plain_int(ev.get("delivery_round")), ev.get("listing_id")
        if date is None or not isinstance(lid, str):
            return None
        waiting = [o for o, listing in k.order_listing.items() if listing == lid]
        shipping = plain_int(k.mandate.get("shipping_rounds")) or 0
        return {"kind": "set_eta", "order_id": waiting[j], "eta_round": date + shipping} if j < len(waiting) else None

    return build


def reprice(k: Known, i: int) -> dict[str, Any] | None:
    """Reprice the listing of the ``i``-th notice's new unit cost at the mandate's markup."""
    ev = _event(k, i)
    cost, markup, lid = plain_int(ev.get("unit_cost")), plain_int(k.mandate.get("markup_percent")), ev.get("listing_id")
    if cost is None or markup is None or not isinstance(lid, str):
        return None
    return {"kind": "update_listing", "listing_id": lid, "price": int(round(cost * (100 + markup) / 10_000)) * 100}


def restock(good_only: bool) -> Builder:
    """Book the units the ``i``-th notice says arrived (less the damaged ones when ``good_only``)."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        ev = _event(k, i)
        received, lid = plain_int(ev.get("received")), ev.get("listing_id")
        if received is None or not isinstance(lid, str):
            return None
        units = received - (plain_int(ev.get("damaged")) or 0 if good_only else 0)
        if units <= 0 or (good_only and not ev.get("damaged")):
            return None
        return {"kind": "restock", "listing_id": lid, "quantity": units}

    return build


def order_rest(in_stock: bool) -> Builder:
    """Order from the ``i``-th listing seen the units still wanted (capped at its stock when ``in_stock``)."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        lid = k.nth("listings", i)
        rec = k["listings"][lid] if lid else {}
        wanted = plain_int(k.mandate.get("quantity"))
        if lid is None or wanted is None or not isinstance(rec.get("merchant"), str) or rec["merchant"] == k.actor:
            return None
        units = wanted - sum(k.ordered.values())
        if in_stock:
            stock = plain_int(rec.get("stock"))
            if stock is None or stock >= units:
                return None  # the same as ordering the rest
            units = stock
        if units <= 0:
            return None
        return {"kind": "place_order", "merchant_id": rec["merchant"], "lines": [{"listing_id": lid, "quantity": units}]}

    return build


def stock_answer(k: Known, _: int) -> dict[str, Any] | None:
    """A merchant's answer: the stock last seen of each listing the mandate names (listing -> units)."""
    listings = k.mandate.get("listings")
    if k.role != "merchant" or not isinstance(listings, list) or not listings:
        return None
    stock = {lid: k["listings"].get(lid, {}).get("stock") for lid in listings if isinstance(lid, str)}
    if not stock or not all(isinstance(v, int) for v in stock.values()):
        return None
    return {"kind": "submit_answer", "answer": stock, "evidence": list(stock),
            "rationale": "Stock on hand as last read."}


def slots(n_events: int, n_listings: int) -> list[tuple[str, str, Builder, int]]:
    """The notice slots: ``(label, kind, builder, index)``."""
    out: list[tuple[str, str, Builder, int]] = [("answer:stock", "submit_answer", stock_answer, 0)]
    for i in range(n_events):
        out += [(f"event[{i}].eta[{j}]", "set_eta", eta(j), i) for j in range(N_WAITING)]
        out += [(f"event[{i}].reprice", "update_listing", reprice, i),
                (f"event[{i}].restock", "restock", restock(False), i),
                (f"event[{i}].restock:good", "restock", restock(True), i)]
    for i in range(n_listings):
        out += [(f"listing[{i}].order:rest", "place_order", order_rest(False), i),
                (f"listing[{i}].order:rest-in-stock", "place_order", order_rest(True), i)]
    return out
