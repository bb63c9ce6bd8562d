"""Slot features: a fixed-length vector of facts for every menu slot, from what the actor has seen.

A menu policy that sees one logit per slot *index* cannot tell which of two carts is cheaper after
fees, or which listing earns the most of the shopper's points: those are properties of each
candidate action. :class:`SlotFeaturiser` describes every filled slot of the menu with the
:data:`SLOT_FEATURES` numbers below, built **only** from the actor's own raw observations and its
:class:`~acworld_env.envs.known.Known` (never from the counterparty's limits, the scorer's expected
answer or the reference plan; ``tests/wrappers/test_slot_features.py`` changes those and checks the
features stay byte-identical). Unfilled slots are rows of zeros.

``GymActionMenu(env, slot_features=True)`` (and :class:`~acworld_env.wrappers.menu.ActionMenu`) add
the ``slot_features`` observation key, ``Box(0, 1, (N_ACTIONS, len(SLOT_FEATURES)), float32)``.

What the columns say (money in cents, log-scaled; ratios clipped to [0, 2] and halved):

* the action: filled; terminal, read-only and one-shot tool; its kind's position in the sorted tool
  names;
* the listing it names (a line, an offer, a thread's listing): the request's content words it
  matches, best match among seen listings, within the actor's limit, price against the limit,
  cheapest seen, in stock, stated rating met, share of the structured hints met, sponsored, "fits";
  the points it earns by the request's points scheme over the seen listings, whether it is the
  best-pointed seen listing that keeps the hard rules, whether it breaks a hard rule (budget,
  colour, eco-certification, delivery days, warranty years: :mod:`acworld_env.wrappers.preferences`);
  its details read, in the last search's hits; its read reviews (any read, mean verified rating, share
  unverified or flagged; the honest ones, verified with no admitted incentive and, where the request
  calls copies fake, no text copied across writers: mean, count, best among the listings read);
* the seller it names or sells the listing: its reputation read, rating, disputes, within the seller
  rules the request states ("under 3.9 stars", "more than 7 disputes"), sells the best listing;
* the review it names: unverified, admits an incentive, text copied by another writer, its rating;
* the market notice it names: its order named in the request, expired (valid until an earlier round),
  a resend of an earlier notice's stream and sequence number, a sequence number ahead of those seen in
  its stream, its amount equal to the action's;
* its figures: a price is set, the unit price, the quantity, the total (a cart's or a line's cost
  after the published tiers, bundle prices and checkout fees, a quote's or a payment's amount),
  total against the limit, within the limit, unit price against the listing's list price;
* carts and money movements: the cart's problems against the shopping list (count, none), the
  cheapest problem-free cart among the open cart slots, an amount equal to the order's total, the
  cheapest of the open slots of its kind;
* threads: the other side's last price is within the actor's limit;
* history: the same action was accepted before, rejected before, rejections of its kind so far,
  it is the action taken last, its age in rounds since it first appeared in the menu, new this round;
* the records it touches (:mod:`acworld_env.wrappers.slot_records`): its order's status as last seen, a
  promised arrival after a stated day, a delivery outside the returns window, an excluded item, a carrier
  damage report, a return waiting or a dispute open, an extra card hold, a notice about it this round, a
  quantity equal to a notice's good units, notices still due.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

import numpy as np

from ..envs.candidates import SLOTS
from ..envs.candidates_carts import _cart
from ..envs.known import Known, plain_int
from ..scoring.multi_item_pricing import cart_cost, cart_problems, price_quote
from ..vcp import TOOLS
from .action_signature import signature
from .featurise import LISTING_FEATURES, Featuriser, words
from .preferences import Rules, breaks, number, parse_rules, partner, points
from .slot_records import RECORD_FEATURES, RecordFacts

KINDS = tuple(sorted(TOOLS))
SLOT_FEATURES_V1: tuple[str, ...] = (
    "filled", "terminal", "readonly", "one_shot", "kind_code",
    "names_listing", "word_match", "best_match", "listing_within_limit", "listing_price_vs_limit",
    "cheapest_seen", "in_stock", "rating_met", "hints_met", "sponsored", "fits",
    "details_read", "in_hits",
    "scheme_points", "scheme_best", "breaks_hard_rule", "reviews_read", "verified_rating", "doubtful_reviews",
    "honest_rating", "honest_count", "honest_best",
    "seller_checked", "seller_rating", "seller_disputes", "seller_ok", "sells_best",
    "names_review", "review_unverified", "review_incentive", "review_duplicate", "review_rating",
    "names_event", "event_order_named", "event_expired", "event_repeat", "event_gap", "event_amount_matches",
    "has_price", "unit_price", "quantity", "total", "total_vs_limit", "within_limit", "price_vs_list",
    "cart_problems", "cart_ok", "cheapest_ok_cart", "amount_is_order_total", "cheapest_of_kind",
    "their_price_within_limit",
    "accepted_before", "rejected_before", "kind_rejections", "is_last_action", "age", "new",
)
"""The first slot features (a policy saved with these 62 columns reads the first 62 of a row)."""
SLOT_FEATURES: tuple[str, ...] = SLOT_FEATURES_V1 + RECORD_FEATURES
"""The columns of a slot's feature row, in order: :data:`SLOT_FEATURES_V1`, then the record facts
(:data:`~acworld_env.wrappers.slot_records.RECORD_FEATURES`)."""
SLOT_WIDTHS = (len(SLOT_FEATURES_V1), len(SLOT_FEATURES))
"""The row widths a saved scorer may read: the first features alone, or with the record facts."""
N_SLOT_FEATURES = len(SLOT_FEATURES)
_COL = {name: i for i, name in enumerate(SLOT_FEATURES)}
_CART = re.compile(r"^cart\[(\d+)\]@(\w+)\.quote")
_BUYER_TOTAL = ("budget", "spending_limit")
_BUYER_UNIT = ("max_unit_price", "limit_per_unit")
_MERCHANT_FLOOR = ("floor_price", "min_unit_price")
_TOOL_FLAGS = {k: (float(t.terminal), float(t.readonly), float(getattr(t, "one_shot", False))) for k, t in TOOLS.items()}
_LISTING_COLUMNS = ("word_match", "best_match", "listing_within_limit", "listing_price_vs_limit", "cheapest_seen",
                    "in_stock", "rating_met", "hints_met", "sponsored", "in_hits", "details_read", "fits")
_INCENTIVE = re.compile(r"\b(paid|refund(?:ed)?|reward(?:ed)?|free|gift(?:ed)?|discount(?:ed)?|compensat\w*|"
                        r"in exchange|for (?:my|this|the) review|sponsored|comped)\b", re.I)
_COPIED_RULE = re.compile(r"word for word|same text|copied", re.I)
_SELLER_STARS = re.compile(r"(?:under|below|less than) (\d(?:\.\d+)?) stars", re.I)
_SELLER_DISPUTES = re.compile(r"more than (\d+) disputes?", re.I)
_ROW_OF = {"word_match": 1, "best_match": 2, "listing_within_limit": 3, "listing_price_vs_limit": 4,
           "cheapest_seen": 5, "in_stock": 6, "rating_met": 8, "hints_met": 9, "sponsored": 10, "in_hits": 11,
           "details_read": 12, "fits": 13}
"""Column of :meth:`Featuriser._row` each listing column copies."""
assert LISTING_FEATURES == 14


def _money(cents: float) -> float:
    return min(1.0, math.log10(1.0 + max(0.0, cents)) / 7.0)


def _ratio(value: float, ref: float) -> float:
    return min(2.0, max(0.0, value / ref)) / 2.0 if ref > 0 else 0.0


def _positive(mandate: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        value = plain_int(mandate.get(key))
        if value is not None and value > 0:
            return value
    return None


def _listing_of(action: dict[str, Any], known: Known) -> str | None:
    lid = action.get("listing_id")
    if isinstance(lid, str):
        return lid
    lines = action.get("lines")
    if isinstance(lines, list) and lines and isinstance(lines[0], dict) and isinstance(lines[0].get("listing_id"), str):
        return lines[0]["listing_id"]
    answer = action.get("answer")
    if isinstance(answer, dict) and isinstance(answer.get("listing_id"), str):
        return answer["listing_id"]
    tid = action.get("thread_id")
    if isinstance(tid, str):
        listing = known["threads"].get(tid, {}).get("listing")
        return listing if isinstance(listing, str) else None
    return None


def _lines(action: dict[str, Any]) -> list[tuple[str, int]]:
    lines = action.get("lines")
    out = []
    for x in lines if isinstance(lines, list) else []:
        if isinstance(x, dict) and isinstance(x.get("listing_id"), str):
            out.append((x["listing_id"], plain_int(x.get("quantity")) or 1))
    return out


class SlotFeaturiser:
    """One actor's slot features for one episode (feed it every observation of the actor, in order)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget the episode."""
        self.bow = Featuriser("bow")
        self.reviews: dict[str, list[dict[str, Any]]] = {}
        self.review_of: dict[str, dict[str, Any]] = {}
        self.writers: dict[str, set[str]] = {}
        self.reputation: dict[str, dict[str, Any]] = {}
        self._honest: dict[str, list[float]] = {}
        self._honest_best: set[str] = set()
        self._best_sellers: set[Any] = set()
        self._copies_fake = False
        self._events: dict[str, tuple[int, dict[str, Any]]] = {}
        self._mandate_orders: set[str] = set()
        self._seller_rule: tuple[float | None, int | None] = (None, None)
        self.texts: list[str] = []
        """Trusted updates seen, in order: signed revisions from the account owner, the named partner's messages."""
        self.outcomes: dict[str, list[int]] = {}
        self.kind_rejects: Counter[str] = Counter()
        self.first_seen: dict[tuple[int, str], int] = {}
        self.last_marker: Any = None
        self.last_sig: str | None = None
        self.record_facts = RecordFacts()

    # -- memory ---------------------------------------------------------------
    def absorb(self, raw: dict[str, Any], known: Known) -> None:
        """Remember what one observation shows (idempotent: the same observation twice changes nothing)."""
        self.bow.absorb(raw)
        last = raw.get("last_result")
        if not isinstance(last, dict):
            return
        marker = last.get("validation_id") or (raw.get("step"), last.get("kind"), last.get("code"))
        if marker == self.last_marker:
            return
        self.last_marker = marker
        self.record_facts.absorb(last)
        result = last.get("result")
        if last.get("accepted") and last.get("kind") == "get_reviews" and isinstance(result, dict):
            lid, reviews = result.get("listing_id"), result.get("reviews")
            if isinstance(lid, str) and isinstance(reviews, list):
                self.reviews[lid] = [r for r in reviews[:50] if isinstance(r, dict)]
                for r in self.reviews[lid]:
                    if isinstance(r.get("review_id"), str):
                        self.review_of[r["review_id"]] = r
                        self.writers.setdefault(str(r.get("text")), set()).add(str(r.get("by")))
        if last.get("accepted") and last.get("kind") == "get_merchant_reputation" and isinstance(result, dict) \
                and isinstance(result.get("merchant_id"), str):
            self.reputation[result["merchant_id"]] = result
        pending = known.pending
        if pending and pending.get("kind") == last.get("kind"):
            sig = signature(pending)
            counts = self.outcomes.setdefault(sig, [0, 0])
            counts[0 if last.get("accepted") else 1] += 1
            if not last.get("accepted"):
                self.kind_rejects[str(pending.get("kind"))] += 1
            self.last_sig = sig

    # -- features -------------------------------------------------------------
    def __call__(self, raw: dict[str, Any], known: Known, actions: list[dict[str, Any] | None]) -> np.ndarray:
        """The ``(len(actions), N_SLOT_FEATURES)`` rows for the menu ``actions`` of observation ``raw``."""
        known.sync()
        self.absorb(raw, known)
        out = np.zeros((len(actions), N_SLOT_FEATURES), dtype=np.float32)
        request = str(raw.get("request") or "")
        table = self.bow._listing_table(known, request, words(request), raw)
        ally = partner(request)
        self.texts = [m["text"] for m in known.messages
                      if (m["kind"] == "event" and m["signed"] and m["sender"] == "account_owner")
                      or (ally is not None and m["from"] == ally)]
        rules = parse_rules(request, self.texts)
        scheme = self._scheme(rules, known)
        self._copies_fake = bool(_COPIED_RULE.search(request))
        named = known.mandate.get("orders")
        self._mandate_orders = {o for o in named if isinstance(o, str)} if isinstance(named, list) else set()
        self._events = {m["event_id"]: (i, m["event"]) for i, m in enumerate(known.messages)
                        if isinstance(m.get("event_id"), str) and m.get("event")}
        self._honest = {lid: self._honest_reviews(reviews) for lid, reviews in self.reviews.items()}
        means = {lid: sum(h) / len(h) for lid, h in self._honest.items() if h}
        top = max(means.values(), default=None)
        self._honest_best = {lid for lid, m in means.items() if top is not None and m >= top - 1e-9}
        text = " ".join([request, *self.texts])
        stars, disputes = _SELLER_STARS.search(text), _SELLER_DISPUTES.search(text)
        self._seller_rule = (float(stars.group(1)) if stars else None, int(disputes.group(1)) if disputes else None)
        self._best_sellers = {known["listings"][lid].get("merchant") for lid in self._honest_best | scheme[1]
                              if lid in known["listings"]}
        clock = plain_int(raw.get("round")) if plain_int(raw.get("round")) is not None else plain_int(raw.get("step"))
        clock = clock or 0
        span = max(1, plain_int(raw.get("max_steps")) or 1)
        mandate = known.mandate
        buyer = known.role == "buyer"
        unit_limit = _positive(mandate, _BUYER_UNIT if buyer else _MERCHANT_FLOOR)
        total_limit = _positive(mandate, _BUYER_TOTAL) if buyer else None
        if buyer and total_limit is None and rules.budget is not None:
            total_limit = rules.budget
        ctx = self.record_facts.context(raw, known, clock, span)
        totals: list[tuple[int, str, float]] = []
        carts: list[tuple[int, float]] = []
        for pos, action in enumerate(actions):
            if action is None:
                continue
            row = out[pos]
            kind = str(action.get("kind"))
            row[_COL["filled"]] = 1.0
            row[1:4] = _TOOL_FLAGS.get(kind, (0.0, 0.0, 0.0))
            row[_COL["kind_code"]] = (KINDS.index(kind) + 1) / len(KINDS) if kind in KINDS else 0.0
            lid = _listing_of(action, known)
            if lid is not None:
                self._listing(row, lid, table, scheme, rules, known)
            seller = action.get("merchant_id") if isinstance(action.get("merchant_id"), str) else \
                known["listings"].get(lid, {}).get("merchant") if lid else None
            if isinstance(seller, str):
                self._seller(row, seller)
            rid = action.get("review_id")
            if isinstance(rid, str) and rid in self.review_of:
                self._review(row, self.review_of[rid])
            eid = action.get("event_id")
            if isinstance(eid, str) and eid in self._events:
                self._event(row, eid, action, request, clock)
            total = self._figures(row, action, known, lid, unit_limit, total_limit, buyer)
            if SLOTS[pos].kind == "request_quote" and (m := _CART.match(SLOTS[pos].label)):
                cost = self._cart(row, known, int(m.group(1)), m.group(2), total_limit)
                if cost is not None:
                    total = cost
                    row[_COL["total"]] = _money(cost)
                    if row[_COL["cart_ok"]]:
                        carts.append((pos, cost))
            elif SLOTS[pos].label.startswith("cart:cheapest"):
                row[_COL["cart_ok"]] = row[_COL["cheapest_ok_cart"]] = 1.0
            if total is not None:
                totals.append((pos, kind, total))
            self._history(row, pos, action, clock, span)
            self.record_facts.fill(row, _COL, action, known, ctx)
        if carts:
            best = min(cost for _, cost in carts)
            for pos, cost in carts:
                out[pos, _COL["cheapest_ok_cart"]] = float(cost <= best)
        by_kind: dict[str, float] = {}
        for _, kind, total in totals:
            by_kind[kind] = min(by_kind.get(kind, total), total)
        for pos, kind, total in totals:
            out[pos, _COL["cheapest_of_kind"]] = float(total <= by_kind[kind])
        return out

    def _scheme(self, rules: Rules, known: Known) -> tuple[dict[str, float], set[str], dict[str, bool]]:
        """Points of each seen listing with claims, the best keeping the hard rules, and which break one."""
        if not rules.stated:
            return {}, set(), {}
        seen: dict[str, tuple[dict[str, Any], float | None]] = {}
        for lid, rec in known["listings"].items():
            claims = rec.get("claims") or self.bow.facts.get(lid, {}).get("claims")
            if isinstance(claims, dict) and claims:
                seen[lid] = (claims, self.bow._price(lid, known))
        broken = {lid: breaks(rules, *v) for lid, v in seen.items()}
        pts = points(rules, seen) if seen else {}
        keep = [p for lid, p in pts.items() if not broken[lid]]
        top = max(keep, default=None)
        best = {lid for lid, p in pts.items() if top is not None and not broken[lid] and p >= top - 1e-9}
        return pts, best, broken

    def _listing(self, row: np.ndarray, lid: str, table: dict[str, np.ndarray],
                 scheme: tuple[dict[str, float], set[str], dict[str, bool]], rules: Rules, known: Known) -> None:
        row[_COL["names_listing"]] = 1.0
        facts = table.get(lid)
        if facts is not None:
            for name in _LISTING_COLUMNS:
                row[_COL[name]] = facts[_ROW_OF[name]]
        pts, best, broken = scheme
        if lid in pts:
            row[_COL["scheme_points"]] = pts[lid] / 100.0
            row[_COL["scheme_best"]] = float(lid in best)
            row[_COL["breaks_hard_rule"]] = float(broken[lid])
        elif rules.budget is not None and (price := self.bow._price(lid, known)) is not None:
            row[_COL["breaks_hard_rule"]] = float(price > rules.budget)
        reviews = self.reviews.get(lid)
        if reviews:
            row[_COL["reviews_read"]] = 1.0
            verified = [r["rating"] for r in reviews if r.get("verified_purchase") and not r.get("flags")
                        and isinstance(r.get("rating"), int | float)]
            row[_COL["verified_rating"]] = (sum(verified) / len(verified) / 5.0) if verified else 0.0
            row[_COL["doubtful_reviews"]] = 1.0 - len(verified) / len(reviews)
            honest = self._honest.get(lid, [])
            row[_COL["honest_rating"]] = sum(honest) / len(honest) / 5.0 if honest else 0.0
            row[_COL["honest_count"]] = min(1.0, len(honest) / 5.0)
            row[_COL["honest_best"]] = float(lid in self._honest_best)

    def _incentive(self, review: dict[str, Any]) -> bool:
        return bool(_INCENTIVE.search(str(review.get("text") or "")))

    def _duplicate(self, review: dict[str, Any]) -> bool:
        return len(self.writers.get(str(review.get("text")), ())) > 1

    def _honest_reviews(self, reviews: list[dict[str, Any]]) -> list[float]:
        """Ratings of the reviews that count: verified purchases, no admitted incentive, and no text copied
        across writers where the request calls copies fake."""
        return [float(r["rating"]) for r in reviews if r.get("verified_purchase") and not self._incentive(r)
                and not (self._copies_fake and self._duplicate(r)) and isinstance(r.get("rating"), int | float)]

    def _review(self, row: np.ndarray, review: dict[str, Any]) -> None:
        row[_COL["names_review"]] = 1.0
        row[_COL["review_unverified"]] = float(not review.get("verified_purchase"))
        row[_COL["review_incentive"]] = float(self._incentive(review))
        row[_COL["review_duplicate"]] = float(self._duplicate(review))
        rating = review.get("rating")
        row[_COL["review_rating"]] = float(rating) / 5.0 if isinstance(rating, int | float) else 0.0

    def _event(self, row: np.ndarray, eid: str, action: dict[str, Any], request: str, clock: int) -> None:
        """A market notice's facts as seen: its order named in the request or mandate, expired, a resend of an earlier
        one of its stream and sequence number, ahead of its stream's next number, its amount as the action's."""
        order, event = self._events[eid]
        row[_COL["names_event"]] = 1.0
        oid = event.get("order_id")
        mine = self._mandate_orders
        row[_COL["event_order_named"]] = float(isinstance(oid, str) and (oid in request or oid in mine))
        until = plain_int(event.get("valid_until_round"))
        row[_COL["event_expired"]] = float(until is not None and until < clock)
        stream, seq = event.get("stream"), plain_int(event.get("seq"))
        earlier = [e for i, e in self._events.values() if i < order and e.get("stream") == stream]
        if stream is not None and seq is not None:
            row[_COL["event_repeat"]] = float(any(plain_int(e.get("seq")) == seq for e in earlier))
            seen = {plain_int(e.get("seq")) for _, e in self._events.values() if e.get("stream") == stream}
            row[_COL["event_gap"]] = float(any(s not in seen for s in range(1, seq)))
        amount = plain_int(action.get("amount"))
        row[_COL["event_amount_matches"]] = float(amount is not None and amount == plain_int(event.get("amount")))

    def _seller(self, row: np.ndarray, merchant: str) -> None:
        row[_COL["sells_best"]] = float(merchant in self._best_sellers)
        rep = self.reputation.get(merchant)
        if rep is None:
            return
        rating, disputes = number(rep.get("average_rating")), number(rep.get("disputes"))
        row[_COL["seller_checked"]] = 1.0
        row[_COL["seller_rating"]] = (rating or 0.0) / 5.0
        row[_COL["seller_disputes"]] = min(1.0, (disputes or 0.0) / 20.0)
        min_stars, max_disputes = self._seller_rule
        ok = (min_stars is None or (rating is not None and rating >= min_stars)) and \
            (max_disputes is None or (disputes is not None and disputes <= max_disputes))
        row[_COL["seller_ok"]] = float(ok)

    def _figures(self, row: np.ndarray, action: dict[str, Any], known: Known, lid: str | None,
                 unit_limit: int | None, total_limit: int | None, buyer: bool) -> float | None:
        unit = next((plain_int(action.get(k)) for k in ("unit_price", "price") if plain_int(action.get(k)) is not None),
                    None)
        lines = _lines(action)
        quantity = plain_int(action.get("quantity")) or sum(q for _, q in lines) or None
        total: float | None = None
        if lines:
            records = {x: known["listings"].get(x, {}) for x, _ in lines}
            if all("price" in r and "merchant" in r for r in records.values()):
                priced = {x: {**r, "terms": r.get("terms") or {}} for x, r in records.items()}
                total = float(price_quote(priced, lines)["total"])
                unit = unit if unit is not None else int(total / max(1, sum(q for _, q in lines)))
        amount = next((plain_int(action.get(k)) for k in ("amount", "total") if plain_int(action.get(k)) is not None),
                      None)
        qid = action.get("quote_id")
        if amount is None and isinstance(qid, str):
            amount = plain_int(known["quotes"].get(qid, {}).get("total"))
        if total is None and amount is not None:
            total = float(amount)
        if total is None and unit is not None:
            total = float(unit * (quantity or 1))
        if unit is not None:
            row[_COL["has_price"]] = 1.0
            row[_COL["unit_price"]] = _money(unit)
            price = self.bow._price(lid, known) if lid else None
            if price:
                row[_COL["price_vs_list"]] = _ratio(unit, price)
        if quantity:
            row[_COL["quantity"]] = min(1.0, quantity / 20.0)
        if total is not None:
            row[_COL["total"]] = _money(total)
        within = True
        if buyer:
            if total is not None and total_limit:
                row[_COL["total_vs_limit"]] = _ratio(total, total_limit)
                within = total <= total_limit
            elif unit is not None and unit_limit:
                row[_COL["total_vs_limit"]] = _ratio(unit, unit_limit)
            if unit is not None and unit_limit:
                within = within and unit <= unit_limit
        elif unit is not None and unit_limit:
            row[_COL["total_vs_limit"]] = _ratio(unit, unit_limit)
            within = unit >= unit_limit
        row[_COL["within_limit"]] = float(within and (unit is not None or total is not None))
        oid = action.get("order_id")
        if amount is not None and isinstance(oid, str):
            order_total = plain_int(known["orders"].get(oid, {}).get("total"))
            row[_COL["amount_is_order_total"]] = float(order_total is not None and amount == order_total)
        tid = action.get("thread_id")
        if isinstance(tid, str):
            theirs = plain_int(known["threads"].get(tid, {}).get("theirs"))
            if theirs is not None and unit_limit:
                row[_COL["their_price_within_limit"]] = float(theirs <= unit_limit if buyer else theirs >= unit_limit)
        return total

    def _cart(self, row: np.ndarray, known: Known, c: int, mode: str, total_limit: int | None) -> float | None:
        groups = _cart(known, c, mode)
        items = known.mandate.get("shopping_list")
        if not groups or not isinstance(items, list):
            return None
        cart = {x["listing_id"]: int(x["quantity"]) for lines in groups.values() for x in lines}
        records = {lid: {**known["listings"][lid], "terms": known["listings"][lid].get("terms") or {}}
                   for lid in cart if "price" in known["listings"].get(lid, {})}
        if len(records) < len(cart):
            return None
        needs = [x for x in items if isinstance(x, dict) and "candidates" in x and "item" in x]
        needs = [{"min": 1, "max": 1, **x} for x in needs]
        problems = cart_problems(records, cart, needs)
        cost = float(cart_cost(records, cart))
        if total_limit is not None and cost > total_limit:
            problems.append("over budget")
        row[_COL["cart_problems"]] = min(1.0, len(problems) / 3.0)
        row[_COL["cart_ok"]] = float(not problems)
        return cost

    def _history(self, row: np.ndarray, pos: int, action: dict[str, Any], clock: int, span: int) -> None:
        sig = signature(action)
        accepted, rejected = self.outcomes.get(sig, (0, 0))
        row[_COL["accepted_before"]] = float(accepted > 0)
        row[_COL["rejected_before"]] = float(rejected > 0)
        row[_COL["kind_rejections"]] = min(1.0, self.kind_rejects[str(action.get("kind"))] / 3.0)
        row[_COL["is_last_action"]] = float(sig == self.last_sig)
        first = self.first_seen.setdefault((pos, sig), clock)
        row[_COL["age"]] = min(1.0, max(0, clock - first) / span)
        row[_COL["new"]] = float(first == clock)
