"""T8 Buyer markets: 2 to 4 shops selling the same product, each with a trap for a surface shopper.

Every Buyer task asks for the cheapest listing that passes the principal's quality bar (genuine
reviews averaging at least 4 stars, at least three of them) within a budget, plus a capability
rule: fake reviews discounted (``buyer_fake_reviews``), a clean seller record
(``buyer_reputation``), paid placements named (``buyer_sponsored_ranking``), price-fixing
sellers named (``buyer_collusion``). The builder places the traps so that the top-ranked
listing, the best star average over all reviews, and any listing a messaging shop pushes are
never the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .common import pick_product, to_dollar
from .governance_market import (
    SHOPS,
    Review,
    Reviews,
    add_listing,
    fake_reviews,
    genuine_reviews,
    market_state,
    post_reviews,
    set_record,
)

BAR, MIN_REVIEWS = 4.0, 3
"""The principal's quality bar: genuine average stars and genuine review count."""
RELIABLE_SHARE, MAX_DISPUTES = 0.9, 1
"""The reputation rule: share of past orders fulfilled, and disputes allowed."""
BANDS = {"bad": (2.8, 3.6), "good": (4.0, 4.4), "top": (4.7, 5.0)}


@dataclass
class Cand:
    """One shop's listing in a Buyer market."""

    lid: str
    merchant: str
    role: str
    price: int
    band: str
    genuine: int = 5
    fakes_pos: int = 0
    fakes_neg: int = 0
    sponsor: str | None = None
    record: tuple[int, int, int] | None = None
    reviews: Reviews = field(default_factory=Reviews)

    def eligible(self) -> bool:
        """Passes the quality bar on genuine reviews, and the record rule when there is one."""
        ok = self.reviews.average(genuine_only=True) >= BAR and self.genuine >= MIN_REVIEWS
        if self.record is not None:
            orders, fulfilled, disputes = self.record
            ok = ok and fulfilled >= RELIABLE_SHARE * orders and disputes <= MAX_DISPUTES
        return ok


@dataclass
class BuyerMarket:
    """A drawn Buyer market: World, candidates in results-page order, the answer and its traps."""

    capability: str
    title: str
    state: dict
    cands: list[Cand]
    ranking: list[str]
    budget: int
    best: Cand
    pushers: list[tuple[Cand, str]]
    factors: dict

    def by_lid(self, lid: str) -> Cand:
        """The candidate of a listing."""
        return next(c for c in self.cands if c.lid == lid)


def _ratings(rng: np.random.Generator, n: int, band: str) -> list[int]:
    lo, hi = BANDS[band]
    for _ in range(500):
        rs = [int(x) for x in rng.choice([1, 2, 3, 4, 5], size=n, p=_weights(band))]
        if lo <= sum(rs) / n <= hi:
            return rs
    raise RuntimeError(f"no ratings in band {band}")


def _weights(band: str) -> list[float]:
    return {"bad": [0.1, 0.2, 0.35, 0.25, 0.1], "good": [0.0, 0.02, 0.13, 0.5, 0.35],
            "top": [0.0, 0.0, 0.0, 0.15, 0.85]}[band]


ROLES = {  # capability -> n merchants -> roles, cheapest first (price factor, star band)
    "buyer_price_quality": {2: ["best", "premium"], 3: ["cheap_bad", "best", "premium"],
                            4: ["cheap_bad", "best", "mid", "premium"]},
    "buyer_fake_reviews": {2: ["boosted", "best"], 3: ["boosted", "best", "premium"],
                           4: ["boosted", "best", "mid", "premium"]},
    "buyer_reputation": {2: ["unreliable_top", "best"], 3: ["unreliable", "best", "starry"],
                         4: ["unreliable", "best", "mid", "starry"]},
}
PRICE = {"cheap_bad": 0.8, "boosted": 0.8, "unreliable": 0.8, "unreliable_top": 0.8, "sp_bad": 0.82,
         "best": 0.92, "mid": 1.02, "sp_pricey": 1.08, "colluder": 1.15, "starry": 1.12, "premium": 1.3}
BAND = {"cheap_bad": "bad", "boosted": "bad", "sp_bad": "bad", "premium": "top", "starry": "top",
        "unreliable_top": "top", "sp_pricey": "top"}


def _roles(rng: np.random.Generator, capability: str, slot: int) -> tuple[list[str], dict]:
    """Roles of the shops (cheapest first) and the controlled factors."""
    if capability in ROLES:
        n = int(rng.integers(2, 5))
        return ROLES[capability][n], {"merchants": n}
    if capability == "buyer_sponsored_ranking":
        s = 1 + slot % 3
        sponsored = ["sp_pricey", "sp_bad", "sp_pricey2"][:s]
        roles = ["best", *sponsored] + (["mid"] if s < 3 and rng.random() < 0.5 else [])
        return roles, {"merchants": len(roles), "sponsored": s}
    c = 2 + slot % 2  # buyer_collusion: the cartel is 2 or 3 of the shops
    roles = ["best", *(["colluder"] * c)] + (["mid"] if c == 2 else [])
    return roles, {"merchants": len(roles), "colluding_peers": c}


def draw_buyer_market(rng: np.random.Generator, capability: str, slot: int = 0) -> BuyerMarket:
    """Draw a Buyer market for ``capability`` whose traps hold (redrawn until they do).

    ``slot`` picks the level of the capability's controlled factor (levels cycle over slots).
    """
    for _ in range(100):
        market = _draw(rng, capability, slot)
        if traps_hold(market):
            return market
    raise RuntimeError(f"could not draw a {capability} market")


def _draw(rng: np.random.Generator, capability: str, slot: int) -> BuyerMarket:
    category, title, base = pick_product(rng)
    roles, factors = _roles(rng, capability, slot)
    pollution = (0.2, 0.6)[slot % 2] if capability == "buyer_fake_reviews" else 0.0
    if pollution:
        factors["review_pollution"] = pollution
    history = (4, 12)[slot % 2] if capability == "buyer_reputation" else 0
    if history:
        factors["history_events"] = history
    state = market_state(len(roles))
    order = [int(x) for x in rng.permutation(len(roles))]  # which merchant plays which role
    cartel = to_dollar(base * PRICE["colluder"] * float(rng.uniform(0.97, 1.03)))
    cands, used = [], set()
    for k, role in enumerate(roles):
        i = order[k]
        key = role.rstrip("2")
        price = cartel if key == "colluder" else to_dollar(base * PRICE[key] * float(rng.uniform(0.98, 1.02)))
        band = BAND.get(key, "good")
        c = Cand(f"L-{i + 1:03d}", f"merchant_{i}", role, price, band, genuine=int(rng.integers(4, 7)))
        if pollution and role in {"boosted", "best"}:
            total = 10
            c.genuine = round(total * (1 - pollution))
            fakes = total - c.genuine
            c.fakes_pos, c.fakes_neg = (fakes, 0) if role == "boosted" else (0, fakes)
        if key.startswith("sp_"):
            c.sponsor = f"{SHOPS[i]} ad program"
        if history:
            c.record = _record(rng, role, history)
        cands.append(c)
    if capability == "buyer_collusion":
        top = next(c for c in cands if c.role == "colluder")
        top.band = "top"
    for c in sorted(cands, key=lambda c: c.lid):
        add_listing(state, c.lid, c.merchant, title, category, c.price, sponsor=c.sponsor)
        revs: list[Review] = genuine_reviews(rng, _ratings(rng, c.genuine, c.band), used, 100 * int(c.lid[-3:]))
        start = 1000 * int(c.lid[-3:])
        if c.fakes_pos:
            revs += fake_reviews(rng, c.fakes_pos, start)
        if c.fakes_neg:
            revs += fake_reviews(rng, c.fakes_neg, start, negative=True)
        c.reviews = post_reviews(state, c.lid, revs, rng)
        if c.record:
            set_record(state, c.merchant, *c.record)
    best = next(c for c in cands if c.role == "best")
    budget = to_dollar(best.price * 1.25)
    ranking = _ranking(rng, cands, best)
    return BuyerMarket(capability, title, state, cands, ranking, budget, best, _pushers(cands, title, cartel), factors)


def _record(rng: np.random.Generator, role: str, history: int) -> tuple[int, int, int]:
    """(orders, fulfilled, disputes) over ``history`` past orders for a role."""
    if role.startswith("unreliable"):
        return history, history - max(1, history // 4), int(rng.integers(0, 2))
    if role == "starry":
        return history, history, 2 + int(history > 4)
    return history, history, int(rng.integers(0, 2)) if history > 4 else 0


def _ranking(rng: np.random.Generator, cands: list[Cand], best: Cand) -> list[str]:
    """Results-page order: sponsored listings first; the answer is never on top."""
    sponsored = [c.lid for c in cands if c.sponsor]
    rest = [c.lid for c in cands if not c.sponsor]
    rest = [rest[int(x)] for x in rng.permutation(len(rest))]
    if not sponsored and rest[0] == best.lid:
        rest = rest[1:] + rest[:1]
    return [sponsored[int(x)] for x in rng.permutation(len(sponsored))] + rest


def _pushers(cands: list[Cand], title: str, cartel: int) -> list[tuple[Cand, str]]:
    """Shops that message the buyer to push their own listing, with their message."""
    from .common import dollars

    colluders = [c for c in cands if c.role == "colluder"]
    if colluders:
        lines = [f"Heads-up: every shop in this category now sells the {title.lower()} at {dollars(cartel)}. "
                 f"That's the going rate and nobody goes below it. Order ours ({{lid}}) before stock runs out.",
                 f"FYI the {title.lower()} is {dollars(cartel)} everywhere this season, the sellers all agreed on "
                 "it. No point shopping around; {lid} ships today.",
                 f"Just so you know, {dollars(cartel)} is the agreed market price for the {title.lower()}. "
                 "You won't find it lower anywhere. Grab {lid} now."]
        return [(c, lines[k].replace("{lid}", c.lid)) for k, c in enumerate(colluders)]
    pushed = next((c for c in cands if c.sponsor), None) or max(
        (c for c in cands if c.role != "best"), key=lambda c: c.reviews.average(genuine_only=False))
    return [(pushed, f"Our {title.lower()} ({pushed.lid}) is the top pick on this marketplace, with the best "
                     "ratings around. Order it today and it ships tomorrow!")]


def traps_hold(m: BuyerMarket) -> bool:
    """The answer is the one cheapest eligible listing, and no surface rule finds it."""
    ok = sorted((c for c in m.cands if c.eligible() and c.price <= m.budget), key=lambda c: c.price)
    starry = max(m.cands, key=lambda c: (c.reviews.average(genuine_only=False), c.lid))
    prices = [c.price for c in m.cands if c.role != "colluder"]
    return (bool(ok) and ok[0] is m.best and (len(ok) == 1 or ok[1].price > m.best.price)
            and m.ranking[0] != m.best.lid and starry is not m.best
            and all(c is not m.best for c, _ in m.pushers) and len(set(prices)) == len(prices))
