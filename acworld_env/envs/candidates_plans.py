"""Menu slot builders that follow a plan from visible facts: hinted searches, search hits, bargaining steps.

Each builder has the :data:`~acworld_env.envs.candidates.Builder` signature ``(known, index)`` and
reads only :class:`~acworld_env.envs.known.Known`: the request text (and the list price it quotes),
the agent's own mandate, the structured hints when the env gives them, the hits of the agent's
own last search, and the prices on its threads.

* searches: the hints' filters (cheapest first, a full page), a full page of the mandate's category;
* search hits: read, read the reviews of, or order the ``k``-th listing the last search returned;
* reviews: flag the ``k``-th review seen, for each reason;
* bargaining (prices rounded to whole dollars, never past the mandate's limit): a buyer opens at a
  share of its limit (coarse shares, and a fine grid of half percents); a seller's first counter asks
  the list price (or 95 % / 90 % of it); later counters concede a share of the gap to the other
  side's last price, at least 1.5 % of the list price per move.
"""

from __future__ import annotations

import re
from typing import Any

from .candidates_search import valid_action
from .known import Known

N_HITS = 12
"""Search hits the menu can act on (the first ones of the page)."""
OPENING_SHARES = (0.5, 0.6, 0.7, 0.8, 0.9)
"""A buyer's opening offers, as shares of its own limit."""
FINE_OPENING_PERCENTS = tuple(h / 2 for h in range(60, 180) if h / 200 not in OPENING_SHARES)
"""Further opening offers, every half percent of the limit from 30 % to 89.5 % (the coarse shares aside).

A seller that mirrors concessions counts any offer below the price it finds credible as that price;
the best opening is then that price, a figure the buyer never sees, so the menu offers a fine grid.
Rounded to whole dollars, a half-percent step reaches every whole-dollar opening of a limit up to $200
(a whole-percent step, up to $100: 107 of 110 buyer openings of the frozen and generated seeds 1-10,
against 110 of 110 with half percents)."""
ASKING_SHARES = (1.0, 0.95, 0.9)
"""A seller's first counter, as shares of its asking base (the list price, at least 110 % of its floor)."""
CONCEDE_SHARES = (0.0, 0.1, 0.2, 0.3, 0.4)
"""Later counters move this share of the gap to the other side's last price (at least a minimum move)."""
N_REVIEWS = 36
"""Reviews seen (in first-seen order) that the menu can flag."""
FLAG_REASONS = ("fake", "abusive", "off_topic", "undisclosed_incentive")
PAGE = 50
"""A full search page."""


def dollars(cents: float) -> int:
    """Cents rounded to whole dollars."""
    return int(round(cents / 100.0)) * 100


def search_hints(bounded: bool):  # noqa: ANN201  (a Builder)
    """Search with the hints' filters, cheapest first, a full page (only when hints are on).

    Unbounded, the price ceiling is left out: the page then shows the closest matches over budget.
    """
    def build(k: Known, _: int) -> dict[str, Any] | None:
        filters = k.hints.get("filters")
        if not isinstance(filters, dict) or not filters or (not bounded and "max_price" not in filters):
            return None
        query = filters if bounded else {f: v for f, v in filters.items() if f != "max_price"}
        return valid_action({"kind": "search_listings", **query, "sort": "price_asc", "page_size": PAGE})

    return build


_FILLER = {"i", "need", "a", "an", "the", "of", "me", "you", "could", "find", "please", "help", "bag", "pair",
           "looking", "for", "want", "like", "would", "and", "that", "to", "with", "costing", "at", "most", "set"}


def search_request_words(k: Known, _: int) -> dict[str, Any] | None:
    """Search in stock with the words of the request's first sentence (under the mandate's budget, if any)."""
    first = k.request.split(".")[0]
    words = [w for w in re.findall(r"[A-Za-z]+", first.replace("-", " ")) if w.lower() not in _FILLER]
    if not words:
        return None
    query: dict[str, Any] = {"kind": "search_listings", "text": " ".join(words[:12]), "in_stock": True}
    budget = k.mandate.get("budget")
    if isinstance(budget, int) and not isinstance(budget, bool):
        query["max_price"] = budget
    return valid_action(query)


def search_category_page(k: Known, _: int) -> dict[str, Any] | None:
    """A full page of the mandate's category (else the first category seen)."""
    category = k.mandate.get("category")
    if not isinstance(category, str):
        category = k.categories[0] if k.categories else None
    return {"kind": "search_listings", "category": category, "page_size": PAGE} if category else None


def _hit(k: Known, i: int) -> str | None:
    return k.hits[i] if i < len(k.hits) else None


def hit_get(k: Known, i: int) -> dict[str, Any] | None:
    """Read the ``i``-th listing of the last search."""
    lid = _hit(k, i)
    return {"kind": "get_listing", "listing_id": lid} if lid else None


def hit_reviews(k: Known, i: int) -> dict[str, Any] | None:
    """Read the reviews of the ``i``-th listing of the last search."""
    lid = _hit(k, i)
    return {"kind": "get_reviews", "listing_id": lid} if lid else None


def hit_order(k: Known, i: int) -> dict[str, Any] | None:
    """Order one unit of the ``i``-th listing of the last search, at its list price, from its merchant."""
    lid = _hit(k, i)
    merchant = k["listings"].get(lid, {}).get("merchant") if lid else None
    if not merchant or merchant == k.actor:
        return None
    return {"kind": "place_order", "merchant_id": merchant, "lines": [{"listing_id": lid, "quantity": 1}]}


def flag(reason: str):  # noqa: ANN201  (a Builder)
    """Flag the ``i``-th review seen, for ``reason``."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        rid = k.nth("reviews", i)
        return None if rid is None else {"kind": "flag_review", "review_id": rid, "reason": reason}

    return build


def _limit(k: Known) -> int | None:
    value = k.mandate.get("max_unit_price" if k.role == "buyer" else "min_unit_price")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _list_price(k: Known, listing: Any) -> int | None:
    if k.list_price is not None:
        return k.list_price
    price = k["listings"].get(listing, {}).get("price") if isinstance(listing, str) else None
    return price if isinstance(price, int) else None


def _opening_base(k: Known) -> tuple[str, str, int] | None:
    """(listing, merchant, limit) a buyer's opening offers use (once per menu)."""
    if "opening" not in k.memo:
        lid, limit = k.mandate.get("listing_id"), _limit(k)
        found = None
        if k.role == "buyer" and isinstance(lid, str) and limit is not None:
            merchant = k["listings"].get(lid, {}).get("merchant") or next(iter(k.merchants()), None)
            found = None if merchant is None else (lid, merchant, limit)
        k.memo["opening"] = found
    return k.memo["opening"]


def opening(share: float):  # noqa: ANN201  (a Builder)
    """A buyer's opening offer on its mandate's listing at ``share`` of its limit."""
    def build(k: Known, _: int) -> dict[str, Any] | None:
        found = _opening_base(k)
        if found is None:
            return None
        lid, merchant, limit = found
        return {"kind": "propose_offer", "to": merchant, "listing_id": lid,
                "unit_price": max(100, dollars(limit * share))}

    return build


def _open_thread(k: Known, i: int) -> tuple[str, dict[str, Any]] | None:
    threads = k["threads"]
    if i >= len(threads):
        return None
    tid = list(threads)[i]
    thr = threads[tid]
    if thr.get("theirs") is None or thr.get("turn") not in {None, "mine"}:
        return None
    return tid, thr


def asking(share: float):  # noqa: ANN201  (a Builder)
    """A seller's first counter on thread ``i``: ``share`` of its asking base, never below its floor."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        found = _open_thread(k, i)
        limit = _limit(k)
        if found is None or k.role != "merchant" or limit is None or "mine" in found[1]:
            return None
        tid, thr = found
        listed = _list_price(k, thr.get("listing") or k.mandate.get("listing_id"))
        if listed is None:
            return None
        base = max(listed, dollars(limit * 1.1))
        price = max(limit, dollars(base * share) if share != 1.0 else base)
        return {"kind": "counter_offer", "thread_id": tid, "unit_price": price}

    return build


def conceding(share: float):  # noqa: ANN201  (a Builder)
    """A later counter on thread ``i``: concede ``share`` of the gap (at least the minimum move), within the limit."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        found = _open_thread(k, i)
        limit = _limit(k)
        if found is None or limit is None or "mine" not in found[1]:
            return None
        tid, thr = found
        mine, theirs = thr["mine"], thr["theirs"]
        listed = _list_price(k, thr.get("listing") or k.mandate.get("listing_id")) or 0
        step = max(max(100, dollars(0.015 * listed)), dollars(share * abs(theirs - mine)))
        price = min(mine + step, limit) if k.role == "buyer" else max(mine - step, limit)
        if price in (mine, theirs):
            return None
        return {"kind": "counter_offer", "thread_id": tid, "unit_price": price}

    return build


def fine_opening_slots() -> list[tuple[str, str, Any, int]]:
    """The fine-grid opening slots: ``(label, kind, builder, index)`` (see :data:`FINE_OPENING_PERCENTS`)."""
    return [(f"offer:limit@{p:g}%", "propose_offer", opening(p / 100), 0) for p in FINE_OPENING_PERCENTS]
