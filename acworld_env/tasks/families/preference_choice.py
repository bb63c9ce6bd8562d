"""T3 builders for choosing on stated preferences: weighted soft preferences and hard-over-soft limits.

The shopper states a points scheme (2 to 6 preferences) and, for hard-over-soft, two absolute
rules (a budget and one must-have). The right listing is computed over the full candidate
set from the listing records; builders redraw until it is unique by a margin and none of the
surface shortcuts (cheapest, best-rated, most-reviewed) lands on it.
"""

from __future__ import annotations

import numpy as np

from ...scoring.kinds_preference import ORDERED
from .common import dollars
from .preference_rubric import Draft, Shopper, reviews, search
from .preference_world import (
    SOFT_KINDS,
    Candidate,
    candidates,
    graded_credit,
    plain_reviews,
    ranked,
    shortcut_picks,
    split_points,
    world,
)

SLIDING = ("On a sliding scale the best of all the options on offer gets the full points, the worst gets none, "
           "and the rest get their share in proportion.")
MARGIN = 3.0
"""Points by which the right option must beat the next one."""


def pref_phrase(kind: str, points: int, color: str | None) -> str:
    """One preference of a points scheme, in words."""
    return {
        "price": f"{points} for price on a sliding scale (cheapest best)",
        "delivery": f"{points} for delivery time on a sliding scale (fewest days best)",
        "warranty": f"{points} for warranty length on a sliding scale (longest best)",
        "returns": f"{points} for the returns window on a sliding scale (longest best)",
        "color": f"{points} if it comes in {color}",
        "eco": f"{points} if it is eco-certified",
    }[kind]


def scheme(prefs: dict[str, int], color: str | None) -> str:
    """A whole points scheme in words."""
    parts = [pref_phrase(k, p, color) for k, p in prefs.items()]
    text = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    sliding = f" {SLIDING}" if any(k in prefs for k in ("price", "delivery", "warranty", "returns")) else ""
    return f"I give each option points out of 100: {text}.{sliding}"


def full_reads(category: str, listing_id: str) -> list[dict]:
    """See every candidate, then read the chosen one's reviews."""
    return [search(category), reviews(listing_id)]


def _color_for(rng: np.random.Generator, cands: list[Candidate]) -> str:
    return str(rng.choice(sorted({c.color for c in cands})))


def weighted(rng: np.random.Generator, index: int) -> Draft:
    """weighted_soft_preferences: the most points under a 2-6 preference scheme; graded credit."""
    k = (2, 3, 5, 6)[index % 4]
    for _ in range(4000):
        n = int(rng.integers(4, 7))
        category, noun, cands = candidates(rng, n)
        plain_reviews(rng, cands)
        kinds = [str(x) for x in rng.choice(SOFT_KINDS, k, replace=False)]
        prefs = split_points(rng, kinds)
        color = _color_for(rng, cands) if "color" in prefs else None
        (u1, best), (u2, second) = ranked(cands, prefs, color)[:2]
        if u1 - u2 < MARGIN or best in shortcut_picks(cands):
            continue
        credit = graded_credit(cands, prefs, color)
        request = (f"I'm shopping for a {noun} and I have a clear way of choosing. {scheme(prefs, color)} "
                   f"Please order the {noun} that scores the most points, one unit at the listed price, and "
                   "look at what buyers say about it before you place the order.")
        return Draft(
            capability="weighted_soft_preferences", request=request, mandate={"category": category},
            state=world(cands, category), cands=cands, credit=credit,
            evidence={"seen": [c.listing_id for c in cands], "reviews": [ORDERED]},
            reference=Shopper(best, full_reads(category, best)),
            mutations={"orders_the_runner_up": Shopper(second, full_reads(category, second)),
                       "orders_without_reading": Shopper(best, [])},
            difficulty={"preferences": k, "candidates": n}, weights={"choice": 0.7, "evidence": 0.3})
    raise RuntimeError("no weighted task found")


MUST_HAVES = ("eco", "color", "delivery", "warranty")


def _must(kind: str, cands: list[Candidate], rng: np.random.Generator) -> tuple[str, object]:
    """A must-have rule (kind, value) with its threshold drawn from the candidates."""
    if kind == "eco":
        return "eco", True
    if kind == "color":
        return "color", _color_for(rng, cands)
    values = sorted({c.delivery_days if kind == "delivery" else c.warranty_years for c in cands})
    return kind, values[len(values) // 2]


def _meets(c: Candidate, must: tuple[str, object]) -> bool:
    kind, value = must
    return {"eco": lambda: c.eco, "color": lambda: c.color == value,
            "delivery": lambda: c.delivery_days <= value,  # type: ignore[operator]
            "warranty": lambda: c.warranty_years >= value}[kind]()  # type: ignore[operator]


def _must_words(must: tuple[str, object]) -> str:
    kind, value = must
    return {"eco": "it must be eco-certified", "color": f"it has to be {value}",
            "delivery": f"it must arrive within {value} days", "warranty": f"it needs at least a {value}-year warranty",
            }[kind]


def hard_over_soft(rng: np.random.Generator, index: int) -> Draft:
    """hard_over_soft: the most points among options that keep a budget and a must-have."""
    for _ in range(4000):
        n = int(rng.integers(4, 7))
        category, noun, cands = candidates(rng, n)
        plain_reviews(rng, cands)
        must = _must(MUST_HAVES[(index + int(rng.integers(2))) % 4], cands, rng)
        kinds = [str(x) for x in rng.choice([k for k in SOFT_KINDS if k != must[0]], 2 + index % 3, replace=False)]
        prefs = split_points(rng, kinds)
        color = _color_for(rng, cands) if "color" in prefs else None
        prices = sorted(c.price for c in cands)
        cut = int(rng.integers(1, n - 1))
        budget = (prices[cut] + prices[cut + 1]) // 2 // 1000 * 1000
        feasible = [c for c in cands if c.price <= budget and _meets(c, must)]
        if len(feasible) < 2:
            continue
        overall = ranked(cands, prefs, color)[0][1]
        (u1, best), (u2, second) = ranked(cands, prefs, color, feasible)[:2]
        ids = {c.listing_id for c in feasible}
        if overall in ids or u1 - u2 < MARGIN or best in shortcut_picks(cands, budget):
            continue
        request = (f"I need a {noun}. Two rules are absolute: never spend more than {dollars(budget)}, and "
                   f"{_must_words(must)}. Within those rules, here is how I choose. {scheme(prefs, color)} The sliding scales compare "
                   f"every {noun} on offer, including ones that break my rules. Order the one that keeps both rules "
                   "and scores the most points, one unit at the listed price, and check its reviews first.")
        return Draft(
            capability="hard_over_soft", request=request, mandate={"category": category, "budget": budget},
            state=world(cands, category), cands=cands, credit={best: 1.0},
            evidence={"seen": [c.listing_id for c in cands], "reviews": [ORDERED]},
            reference=Shopper(best, full_reads(category, best)),
            mutations={"puts_preference_over_a_rule": Shopper(overall, full_reads(category, overall)),
                       "orders_a_weaker_fit": Shopper(second, full_reads(category, second)),
                       "orders_without_reading": Shopper(best, [])},
            difficulty={"preferences": len(prefs) + 2, "candidates": n, "hard_rules": 2},
            weights={"choice": 0.55, "evidence": 0.2, "guard": 0.25},
            forbidden=sorted(c.listing_id for c in cands if c.listing_id not in ids))
    raise RuntimeError("no hard-over-soft task found")
