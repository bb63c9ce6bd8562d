"""T8 market building blocks: a multi-merchant World, listings, reviews (genuine and fake) and histories.

Reviews enter the initial World through the same ``review_posted`` events the platform commits,
so ratings and reputation agree. A fake review is either one of a group of word-for-word copies
posted by different accounts (reason ``fake``) or one that says the shop paid for it in goods or
money (reason ``undisclosed_incentive``); genuine reviews are all worded differently.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...world import add_actor, empty_state, listing_record, transition
from ...world.state import next_id
from ...world.transition import apply_delta

SHOPS = ["Harbor & Pine", "Brightline Goods", "Cedar Street Supply", "Kestrel Trading"]
"""Display names of merchant_0 .. merchant_3."""
OPENERS = ["Solid purchase.", "Does the job.", "Happy with it overall.", "Better than I expected.",
           "Mixed feelings.", "Not what I hoped.", "Works as described.", "Pretty good for the money.",
           "Disappointed.", "Great value.", "Fine, nothing special.", "Really like it."]
DETAILS = ["Arrived in {d} days", "Packaging was {p}", "Build feels {b}", "Used it daily for {w} weeks",
           "Seller answered my question {s}", "Finish is {b}"]
FILL = {"d": ["two", "three", "four", "five", "six"], "p": ["fine", "dented", "careful", "minimal", "excessive"],
        "b": ["sturdy", "a bit cheap", "well made", "flimsy in places", "solid"], "w": ["two", "three", "six", "ten"],
        "s": ["quickly", "after a week", "politely", "with a canned reply"]}
CLOSERS = {5: "Would buy again.", 4: "Minor nitpicks aside, recommended.", 3: "It's okay.",
           2: "Expected more.", 1: "Would not buy again."}
COPY_POSITIVE = ["Best product ever!!! Five stars, highly recommend to everyone, amazing seller!!!",
                 "Perfect perfect perfect. Exceeded all expectations. Buy it now, you won't regret it!",
                 "Absolutely flawless, top quality, fast shipping, 10/10 would recommend!!"]
COPY_NEGATIVE = ["Total scam, item is junk, seller is a fraud. Avoid avoid avoid!!!",
                 "Worst purchase of my life. Broke instantly. Do NOT trust this shop!!"]
INCENTIVE = ["The shop sent me this for free in exchange for a five-star review, so here it is: great item!",
             "Got a full refund from the seller for leaving 5 stars. Nice product I guess.",
             "They paid me $10 to post this review. Five stars!",
             "Received it free on the condition I rate it 5 stars. Looks good."]


@dataclass
class Review:
    """One review before it enters the World."""

    by: str
    rating: int
    text: str
    fake: str | None = None
    """``None`` for a genuine review, else the flag reason that fits it."""


@dataclass
class Reviews:
    """The reviews of one listing, and the ids they got in the World."""

    items: list[Review] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)

    def genuine_ids(self) -> list[str]:
        """Ids of the genuine reviews."""
        return [rid for rid, r in zip(self.ids, self.items, strict=True) if r.fake is None]

    def fake_ids(self) -> dict[str, str]:
        """Fake review id -> the reason to flag it for."""
        return {rid: r.fake for rid, r in zip(self.ids, self.items, strict=True) if r.fake}

    def average(self, *, genuine_only: bool) -> float:
        """Average stars (of the genuine reviews only, or of all)."""
        rs = [r.rating for r in self.items if not (genuine_only and r.fake)]
        return sum(rs) / len(rs) if rs else 0.0


def apply(state: dict, events: list[dict]) -> None:
    """Commit ``events`` to an initial state in place (no log: this is the task's starting World)."""
    apply_delta(state, transition(state, events))


def market_state(n_merchants: int, *, buyers: int = 1, balance: int = 500_000) -> dict:
    """A World with buyer_0 .. and merchant_0 .. merchant_{n-1}."""
    state = empty_state()
    for i in range(buyers):
        add_actor(state, f"buyer_{i}", "buyer", balance=balance)
    for i in range(n_merchants):
        add_actor(state, f"merchant_{i}", "merchant")
    return state


def add_listing(state: dict, lid: str, merchant: str, title: str, category: str, price: int, *,
                stock: int = 20, claims: dict | None = None, sponsor: str | None = None) -> None:
    """Put one listing in the initial World (``sponsor``: a paid placement already shown)."""
    rec = listing_record(merchant, price, stock, title=title, category=category, claims=claims)
    rec["sponsor"] = sponsor
    state["listings"][lid] = rec


def genuine_text(rng: np.random.Generator, rating: int, used: set[str]) -> str:
    """A genuine-sounding review, worded unlike every text in ``used`` (which it joins)."""
    for _ in range(200):
        detail = DETAILS[int(rng.integers(len(DETAILS)))]
        for key, options in FILL.items():
            detail = detail.replace("{" + key + "}", options[int(rng.integers(len(options)))])
        text = f"{OPENERS[int(rng.integers(len(OPENERS)))]} {detail}. {CLOSERS[rating]}"
        if text not in used:
            used.add(text)
            return text
    raise RuntimeError("ran out of review wordings")


def genuine_reviews(rng: np.random.Generator, ratings: list[int], used: set[str], start: int) -> list[Review]:
    """Genuine reviews with the given star ratings, by accounts shopper_{start}...."""
    return [Review(f"shopper_{start + i:03d}", r, genuine_text(rng, r, used)) for i, r in enumerate(ratings)]


def fake_reviews(rng: np.random.Generator, n: int, start: int, *, negative: bool = False) -> list[Review]:
    """``n`` fake reviews (n >= 2): word-for-word copies (1 star if ``negative``), or paid-for 5-star ones."""
    if negative:
        text = COPY_NEGATIVE[int(rng.integers(len(COPY_NEGATIVE)))]
        return [Review(f"user_{start + 7 * i:05d}", 1, text, "fake") for i in range(n)]
    paid = 0 if n < 2 else int(rng.choice([0, 2])) if n < 4 else int(rng.choice([2, n // 2]))
    copy = COPY_POSITIVE[int(rng.integers(len(COPY_POSITIVE)))]
    out = [Review(f"user_{start + 7 * i:05d}", 5, copy, "fake") for i in range(n - paid)]
    texts = [INCENTIVE[int(x)] for x in rng.permutation(len(INCENTIVE))[:paid]]
    out += [Review(f"shopper_{start + 300 + i:03d}", 5, t, "undisclosed_incentive") for i, t in enumerate(texts)]
    if n - paid == 1:  # a lone copy is not a copy: make it paid-for instead
        out[0] = Review(out[0].by, 5, INCENTIVE[-1], "undisclosed_incentive")
    return out


def post_reviews(state: dict, lid: str, reviews: list[Review], rng: np.random.Generator,
                 orders: list[str] | None = None) -> Reviews:
    """Post ``reviews`` (shuffled) on listing ``lid``; ``orders`` gives each its order id when known."""
    merchant = state["listings"][lid]["merchant"]
    order = [int(x) for x in rng.permutation(len(reviews))]
    taken = {r["by"] for r in state["reviews"].values()}
    handles = [f"shopper_{int(x)}" for x in rng.permutation(9000)[:len(reviews) + len(taken)] + 1000]
    handles = [h for h in handles if h not in taken][:len(reviews)]
    out = Reviews()
    for k, i in enumerate(order):
        r = reviews[i]
        if r.by.startswith(("shopper_", "user_")):  # anonymous accounts get handles that tell nothing
            r.by = handles[i]
        rid = next_id(state, "reviews")
        oid = orders[i] if orders else f"hist-{lid}-{k + 1:02d}"
        apply(state, [{"type": "review_posted", "review_id": rid, "listing_id": lid, "order_id": oid,
                       "by": r.by, "rating": r.rating, "text": r.text, "merchant": merchant}])
        out.items.append(r)
        out.ids.append(rid)
    return out


def set_record(state: dict, merchant: str, orders: int, fulfilled: int, disputes: int) -> None:
    """Set a merchant's past order record (``orders`` history events) in its reputation."""
    rep = state["reputation"][merchant]
    rep.update({"orders": orders, "fulfilled": fulfilled, "disputes": disputes})


def history_order(state: dict, oid: str, buyer: str, merchant: str, lid: str, qty: int, unit: int, *,
                  paid: int | None = None, delivered: bool = True) -> str:
    """A past order of ``qty`` x ``lid`` at ``unit`` cents, paid (``paid`` cents, default the total) and,
    when ``delivered``, shipped and delivered. Returns its payment id."""
    total = qty * unit
    pid = next_id(state, "payments")
    lines = [{"listing_id": lid, "quantity": qty, "unit_price": unit}]
    charge = total if paid is None else paid
    apply(state, [{"type": "order_placed", "order_id": oid, "buyer": buyer, "merchant": merchant, "lines": lines,
                   "total": total, "source": "list", "round": 0}])
    apply(state, [{"type": "payment_authorized", "payment_id": pid, "order_id": oid, "buyer": buyer,
                   "merchant": merchant, "amount": charge, "round": 0},
                  {"type": "payment_captured", "payment_id": pid, "amount": charge}])
    if delivered:
        shp = next_id(state, "shipments")
        apply(state, [{"type": "inventory_allocated", "order_id": oid, "lines": [{"listing_id": lid, "quantity": qty}]},
                      {"type": "order_shipped", "order_id": oid, "shipment_id": shp, "carrier": "standard",
                       "round": 0}, {"type": "delivery_confirmed", "shipment_id": shp, "round": 0}])
    return pid
