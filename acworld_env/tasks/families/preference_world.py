"""T3 Preference worlds: candidate listings, their reviews and sellers, and the utilities scoring reads.

Every task offers 3 to 6 listings of one product, each from its own seller, with attributes
a shopper weighs (price, colour, delivery days, warranty, returns window, eco certificate)
as listing claims, reviews (verified purchases or not, some paid for) and seller
reputations, all as World records. The helpers here also say what each surface shortcut
would pick, so builders can keep the right answer away from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import mean, median

import numpy as np

from ...world import add_actor, empty_state, listing_record

PRODUCTS = [
    ("Outdoor", "rain jacket", 9_000, ("Harbor", "Summit", "Fjell", "Drift", "Cairn", "Tundra")),
    ("Kitchen", "stand mixer", 24_000, ("Bakewell", "Crumb", "Stirling", "Ovenly", "Whisk & Co", "Larder")),
    ("Home office", "desk chair", 19_000, ("Postura", "Linea", "Sitwell", "Ergon", "Quill", "Bureau")),
    ("Travel", "carry-on suitcase", 15_000, ("Voyage", "Jetway", "Roam", "Atlas", "Transit", "Nomad")),
    ("Audio", "wireless headset", 12_000, ("Sonar", "Hush", "Treble", "Aria", "Decibel", "Echo")),
    ("Baby", "stroller", 32_000, ("Cradle", "Pebble", "Nestle", "Wander", "Bramble", "Lullay")),
]
COLORS = ("black", "green", "navy", "red", "grey", "white")
GOOD_TEXT = {5: "Excellent, exactly as described.", 4: "Good value, a few small quibbles.",
             3: "It does the job, nothing special.", 2: "Disappointing quality for the money.",
             1: "Fell apart within weeks; would not buy again."}
PAID_TEXT = ("Five stars! Full disclosure: the seller refunded my purchase in exchange for this review.",
             "Love it. The shop sent me a gift card for posting five stars, but honestly it's great.",
             "Great product. I got it free on condition that I leave a top rating.")


@dataclass
class Candidate:
    """One listing on offer and its attributes."""

    listing_id: str
    merchant: str
    title: str
    price: int
    color: str
    delivery_days: int
    warranty_years: int
    returns_days: int
    eco: bool
    reviews: list[dict] = field(default_factory=list)
    """``{"rating", "verified", "paid", "by"}``; review ids are given when the World is built."""

    @property
    def claims(self) -> dict:
        """The attributes as listing claims (what a listing read shows)."""
        return {"color": self.color, "delivery_days": self.delivery_days, "warranty_years": self.warranty_years,
                "returns_days": self.returns_days, "eco_certified": self.eco}


def candidates(rng: np.random.Generator, n: int) -> tuple[str, str, list[Candidate]]:
    """``n`` candidates of one product: (category, product noun, candidates)."""
    category, noun, base, brands = PRODUCTS[int(rng.integers(len(PRODUCTS)))]
    picked = [brands[int(i)] for i in rng.permutation(len(brands))[:n]]
    out = []
    for i, brand in enumerate(picked):
        price = int(base * rng.uniform(0.6, 1.5)) // 100 * 100 - 1
        out.append(Candidate(
            listing_id=f"L-{301 + i}", merchant=f"merchant_{i}", title=f"{brand} {noun}", price=price,
            color=str(rng.choice(COLORS)), delivery_days=int(rng.integers(1, 9)),
            warranty_years=int(rng.integers(1, 6)), returns_days=int(rng.choice([14, 30, 60, 90])),
            eco=bool(rng.random() < 0.5)))
    return category, noun, out


def plain_reviews(rng: np.random.Generator, cands: list[Candidate], low: float = 3.0, high: float = 4.9) -> None:
    """Give every candidate 2 to 7 verified reviews around a random average."""
    for c in cands:
        target = rng.uniform(low, high)
        c.reviews = [{"rating": _star(rng, target), "verified": True, "paid": False}
                     for _ in range(int(rng.integers(2, 8)))]


def _star(rng: np.random.Generator, target: float) -> int:
    """A 1-5 rating drawn around ``target``."""
    return int(min(5, max(1, round(target + rng.normal(0, 0.6)))))


# -- what the records say ------------------------------------------------------------------

def raw_average(c: Candidate) -> float:
    """Average of every review (what a star badge shows)."""
    return mean(r["rating"] for r in c.reviews) if c.reviews else 0.0


def clean_average(c: Candidate, *, drop_paid: bool = True) -> float:
    """Average of verified reviews, leaving out paid ones (0 when none are left)."""
    keep = [r["rating"] for r in c.reviews if r["verified"] and not (drop_paid and r["paid"])]
    return mean(keep) if keep else 0.0


def cheapest(cands: list[Candidate]) -> str:
    """The cheapest listing."""
    return min(cands, key=lambda c: (c.price, c.listing_id)).listing_id


def top_rated(cands: list[Candidate], budget: int | None = None) -> str | None:
    """The listing with the best raw average (more reviews, then id, break ties), optionally within budget."""
    pool = [c for c in cands if budget is None or c.price <= budget]
    if not pool:
        return None
    return max(pool, key=lambda c: (raw_average(c), len(c.reviews), [-ord(x) for x in c.listing_id])).listing_id


def most_reviewed(cands: list[Candidate]) -> str:
    """The listing with the most reviews (id breaks ties)."""
    return max(cands, key=lambda c: (len(c.reviews), [-ord(x) for x in c.listing_id])).listing_id


def shortcut_picks(cands: list[Candidate], budget: int | None = None) -> set[str]:
    """What the surface shortcuts would order (the right answer must avoid all of them)."""
    picks = {cheapest(cands), top_rated(cands), most_reviewed(cands), top_rated(cands, budget)}
    return {p for p in picks if p is not None}


# -- soft preferences ------------------------------------------------------------------------

SOFT_KINDS = ("price", "delivery", "warranty", "returns", "color", "eco")


def soft_score(kind: str, c: Candidate, cands: list[Candidate], color: str | None = None) -> float:
    """A candidate's score in [0, 1] on one preference, on a sliding scale over all candidates."""
    if kind == "color":
        return 1.0 if c.color == color else 0.0
    if kind == "eco":
        return 1.0 if c.eco else 0.0
    attr, lower_better = {"price": ("price", True), "delivery": ("delivery_days", True),
                          "warranty": ("warranty_years", False), "returns": ("returns_days", False)}[kind]
    values = [getattr(x, attr) for x in cands]
    lo, hi = min(values), max(values)
    if hi == lo:
        return 1.0
    v = getattr(c, attr)
    return (hi - v) / (hi - lo) if lower_better else (v - lo) / (hi - lo)


def utility(c: Candidate, cands: list[Candidate], prefs: dict[str, int], color: str | None) -> float:
    """Points out of 100 a candidate earns under ``prefs`` (preference kind -> points)."""
    return sum(points * soft_score(kind, c, cands, color) for kind, points in prefs.items())


def ranked(cands: list[Candidate], prefs: dict[str, int], color: str | None,
           pool: list[Candidate] | None = None) -> list[tuple[float, str]]:
    """``(utility, listing)`` of ``pool`` (default all), best first."""
    return sorted(((round(utility(c, cands, prefs, color), 6), c.listing_id) for c in (pool or cands)),
                  key=lambda t: (-t[0], t[1]))


def graded_credit(cands: list[Candidate], prefs: dict[str, int], color: str | None) -> dict[str, float]:
    """Each listing's credit relative to the optimum: 1 at the best, 0 at or below the median utility."""
    scores = {lid: u for u, lid in ranked(cands, prefs, color)}
    best, mid = max(scores.values()), median(scores.values())
    return {lid: round(max(0.0, (u - mid) / (best - mid)), 4) if best > mid else 0.0 for lid, u in scores.items()}


def split_points(rng: np.random.Generator, kinds: list[str]) -> dict[str, int]:
    """100 points over ``kinds`` in steps of 5, each at least 10."""
    while True:
        cuts = sorted(int(x) for x in rng.choice(np.arange(1, 20), len(kinds) - 1, replace=False))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, 20], strict=True)]
        if min(parts) >= 2:
            return {k: 5 * p for k, p in zip(kinds, parts, strict=True)}


# -- the World -------------------------------------------------------------------------------

def world(cands: list[Candidate], category: str, *, advisors: int = 0, bad_sellers: dict[str, dict] | None = None,
          balance: int = 200_000) -> dict:
    """buyer_0, advisors buyer_1.., one seller per candidate with a reputation, listings and reviews."""
    state = empty_state()
    add_actor(state, "buyer_0", "buyer", balance=balance)
    for i in range(advisors):
        add_actor(state, f"buyer_{i + 1}", "buyer", balance=50_000)
    n = 0
    for c in cands:
        add_actor(state, c.merchant, "merchant")
        state["listings"][c.listing_id] = listing_record(c.merchant, c.price, 10, title=c.title, category=category,
                                                         claims=c.claims)
        ratings = [r["rating"] for r in c.reviews if r["verified"]]
        rep = state["reputation"][c.merchant]
        orders = 40 + 7 * len(c.reviews)
        rep.update({"orders": orders, "fulfilled": orders - 1, "disputes": 1, "ratings": len(ratings) + 30,
                    "rating_sum": sum(ratings) + 30 * 4 + 15})
        rep.update((bad_sellers or {}).get(c.merchant, {}))
        for r in c.reviews:
            n += 1
            rid = f"rev-{n:04d}"
            r["review_id"] = rid
            rating = r["rating"]
            text = r.get("text") or (PAID_TEXT[n % len(PAID_TEXT)] if r["paid"] else GOOD_TEXT[rating])
            state["reviews"][rid] = {"listing": c.listing_id, "order": f"ord-h{n:03d}" if r["verified"] else None,
                                     "by": r.get("by") or f"shopper_{100 + n}", "rating": rating, "text": text,
                                     "flags": []}
    state["counters"].setdefault("ids", {})["reviews"] = n
    return state


def describe(c: Candidate) -> str:
    """A candidate in words (for messages)."""
    return f"the {c.title} ({c.listing_id})"
