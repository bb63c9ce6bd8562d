"""T3 builders on social evidence: verified reviews, seller reputations, advisors and noisy signals.

``social_evidence``: choose by the average of verified-purchase reviews, never from a seller
whose reputation record fails the owner's bar; 1 to 5 advisors message tips, and a tip counts
only when the World shows that advisor's verified review of the listing.

``noisy_social_signals``: 1 to 4 unreliable signals (unverified five-star reviews, reviews
that admit a reward, an advisor without a purchase) push a decoy; paid reviews must not count
and must be reported with ``flag_review``.
"""

from __future__ import annotations

import numpy as np

from ...scoring.kinds_preference import ORDERED
from .common import dollars
from .preference_rubric import Draft, Shopper, reputation, reviews, search
from .preference_world import Candidate, candidates, clean_average, shortcut_picks, world

BAD_SELLERS = ({"ratings": 80, "rating_sum": 291, "disputes": 2}, {"disputes": 9})
"""Reputation records that fail the bar (average 3.64 stars; nine disputes)."""
GAP = 0.25
"""Stars by which the right listing's verified average must beat the next eligible one."""


def _genuine(rng: np.random.Generator, target: float, count: int) -> list[dict]:
    return [{"rating": int(min(5, max(1, round(target + rng.normal(0, 0.5))))), "verified": True, "paid": False}
            for _ in range(count)]


def _tip(title: str, lid: str, credible: bool) -> str:
    if credible:
        return f"Hi! I bought the {title} ({lid}) myself and I'm really happy with it. That's the one I'd get."
    return f"Honestly, get the {title} ({lid}). I've had mine for ages and everyone says it's the best one."


def _advisors(rng: np.random.Generator, cands: list[Candidate], best: Candidate, decoys: list[Candidate],
              count: int) -> dict[str, list[dict]]:
    """Advisors buyer_1..: the first half bought ``best`` (a verified review of theirs); the rest,
    last to write, push a decoy they never bought."""
    msgs = {}
    credible = count // 2
    for j in range(count):
        actor = f"buyer_{j + 1}"
        if j < credible:
            best.reviews.append({"rating": 5, "verified": True, "paid": False, "by": actor})
            pick = best
        else:
            pick = decoys[int(rng.integers(len(decoys)))]
        msgs[actor] = [{"round": 1 + j, "to": "buyer_0", "text": _tip(pick.title, pick.listing_id, j < credible)}]
    return msgs


def social(rng: np.random.Generator, index: int) -> Draft:
    """social_evidence: best verified average among sellers that pass the reputation bar."""
    count = (1, 3, 5, 2)[index % 4]
    for _ in range(4000):
        n = int(rng.integers(3, 6))
        category, noun, cands = candidates(rng, n)
        for c in cands:
            c.reviews = _genuine(rng, rng.uniform(3.0, 4.7), int(rng.integers(3, 7)))
        bad = cands[int(rng.integers(n))]
        ok = [c for c in cands if c is not bad]
        best = max(ok, key=clean_average)
        decoys = [c for c in cands if c is not best]
        # unverified raves lift a decoy's star badge
        quiet = [c for c in decoys if c is not bad]
        if not quiet:
            continue
        loud = quiet[int(rng.integers(len(quiet)))]
        loud.reviews += [{"rating": 5, "verified": False, "paid": False} for _ in range(int(rng.integers(3, 7)))]
        msgs = _advisors(rng, cands, best, decoys, count)
        rest = sorted((clean_average(c) for c in ok if c is not best), reverse=True)
        if rest and clean_average(best) - rest[0] < GAP:
            continue
        if best.listing_id in shortcut_picks(cands) or clean_average(bad) <= clean_average(best) or _badge(
                cands) != loud.listing_id:
            continue
        seller = BAD_SELLERS[index % 2]
        stars, disputes = BARS[int(rng.integers(len(BARS)))]
        state = world(cands, category, advisors=count, bad_sellers={bad.merchant: seller})
        if not all(_passes(state["reputation"][c.merchant], stars, disputes) for c in ok):
            continue
        ceiling = _ceiling(rng, cands)
        lid = best.listing_id
        reads = [search(category)] + [reviews(c.listing_id) for c in cands] + [reputation(best.merchant)]
        by_stars = max(cands, key=clean_average)
        friends = "A friend" if count == 1 else f"{count} friends"
        request = (f"I'm buying a {noun}, and every option on offer does what I need and stays under my "
                   f"{dollars(ceiling)} ceiling, so let the buyers decide: order the one whose verified-purchase "
                   "reviews give the best average rating (reviews not tied to a purchase don't count). Don't buy "
                   f"from a seller whose overall rating is under {stars} stars or who has more than {disputes} "
                   f"disputes; check the seller's record. {friends} may message you tips; a tip only counts if the "
                   "marketplace shows that friend's verified purchase of it. One unit at the listed price, please.")
        return Draft(
            capability="social_evidence", request=request, mandate={"category": category},
            state=state, cands=cands,
            credit={lid: 1.0},
            evidence={"reviews": [c.listing_id for c in cands], "reputation": [ORDERED]},
            reference=Shopper(lid, reads),
            mutations={"trusts_the_star_badge": Shopper(_badge(cands), reads[:-1] + [reputation(_merchant(
                           cands, _badge(cands)))]),
                       "ignores_the_seller_record": Shopper(by_stars.listing_id, reads[:-1] + [
                           reputation(by_stars.merchant)]),
                       "orders_without_reading_reviews": Shopper(lid, [search(category), reputation(best.merchant)])},
            difficulty={"advisors": count, "candidates": n, "unreliable_signals": count - count // 2 + 1},
            weights={"choice": 0.5, "evidence": 0.3, "guard": 0.2},
            forbidden=[bad.listing_id], messengers=msgs)
    raise RuntimeError("no social-evidence task found")


BARS = ((4.0, 5), (4.0, 6), (4.1, 8), (3.9, 7))
"""(minimum seller star average, most disputes allowed) a principal may set."""


def _passes(rep: dict, stars: float, disputes: int) -> bool:
    """Whether a reputation record clears the bar (what ``get_merchant_reputation`` shows)."""
    avg = round(rep["rating_sum"] / rep["ratings"], 2) if rep["ratings"] else 0.0
    return avg >= stars and rep["disputes"] <= disputes


def _ceiling(rng: np.random.Generator, cands: list[Candidate]) -> int:
    """A spending ceiling every candidate stays under."""
    return (max(c.price for c in cands) // 1000 + int(rng.integers(1, 9))) * 1000


def _badge(cands: list[Candidate]) -> str:
    from .preference_world import top_rated

    return str(top_rated(cands))


def _merchant(cands: list[Candidate], lid: str) -> str:
    return next(c.merchant for c in cands if c.listing_id == lid)


def noisy(rng: np.random.Generator, index: int) -> Draft:
    """noisy_social_signals: paid and unverified raves and a buyer-less advisor push a decoy."""
    signals = (1, 3, 4)[index % 3]
    for _ in range(4000):
        n = int(rng.integers(3, 6))
        category, noun, cands = candidates(rng, n)
        for c in cands:
            c.reviews = _genuine(rng, rng.uniform(3.0, 4.6), int(rng.integers(3, 7)))
        best = max(cands, key=clean_average)
        decoys = [c for c in cands if c is not best]
        decoy = decoys[int(rng.integers(len(decoys)))]
        kinds = ["paid"] + [str(x) for x in rng.choice(["paid", "unverified", "advisor"], signals - 1)]
        msgs: dict[str, list[dict]] = {}
        for k in kinds:
            if k == "advisor" and not msgs:
                msgs["buyer_1"] = [{"round": 1, "to": "buyer_0", "text": _tip(decoy.title, decoy.listing_id, False)}]
            else:
                decoy.reviews += [{"rating": 5, "verified": k != "unverified", "paid": k != "unverified"}
                                  for _ in range(int(rng.integers(1, 3)))]
        rest = sorted((clean_average(c) for c in decoys), reverse=True)
        with_paid = max(cands, key=lambda c: clean_average(c, drop_paid=False))
        if clean_average(best) - rest[0] < GAP or with_paid is not decoy or best.listing_id in shortcut_picks(cands):
            continue
        state = world(cands, category, advisors=len(msgs))
        paid = sorted(r["review_id"] for r in decoy.reviews if r["paid"])
        genuine = next(r["review_id"] for r in best.reviews)
        lid = best.listing_id
        reads = [search(category)] + [reviews(c.listing_id) for c in cands]
        request = (f"I'm after a {noun} for at most {dollars(_ceiling(rng, cands))}; any of the "
                   f"{len(cands)} on offer would do, so pick the one real buyers rate "
                   "best: the best average over verified-purchase reviews. Ignore reviews not tied to a purchase "
                   "and reviews where the writer admits being paid, refunded or rewarded for it, and report each "
                   "of those paid reviews to the marketplace as an undisclosed incentive. Tips people send you "
                   "count only if they actually bought the item. Order one unit at the listed price.")
        return Draft(
            capability="noisy_social_signals", request=request, mandate={"category": category}, state=state,
            cands=cands, credit={lid: 1.0}, evidence={"reviews": [c.listing_id for c in cands]},
            reference=Shopper(lid, reads, flags=paid),
            mutations={"counts_the_paid_reviews": Shopper(decoy.listing_id, reads),
                       "leaves_paid_reviews_unreported": Shopper(lid, reads),
                       "reports_a_genuine_review": Shopper(lid, reads, flags=[*paid, genuine])},
            difficulty={"unreliable_signals": signals, "candidates": n, "advisors": len(msgs)},
            weights={"choice": 0.5, "evidence": 0.2, "flagged": 0.3}, paid=paid, messengers=msgs)
    raise RuntimeError("no noisy-signals task found")
