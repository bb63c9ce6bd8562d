"""A shopper's stated choice rules, read from the words the actor was given: points schemes and hard rules.

T3 requests state how the shopper chooses ("I give each option points out of 100: 35 for delivery
time on a sliding scale (fewest days best), 10 if it is eco-certified, ...") and, for hard-over-soft,
absolute rules ("never spend more than $200", "it needs at least a 3-year warranty"). :func:`parse_rules`
reads them; :func:`points` scores seen listings by them over the seen candidates, the way the request
defines the sliding scales (the best seen gets the full points, the worst none). Everything here reads
only text and listing claims the actor has seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_SCHEME = re.compile(r"points out of 100:(.*?)(?:\.\s|\.$|$)", re.I | re.S)
_SLIDING = {
    "price": (re.compile(r"(\d+) for price\b", re.I), "price", -1),
    "delivery": (re.compile(r"(\d+) for delivery time\b", re.I), "delivery_days", -1),
    "warranty": (re.compile(r"(\d+) for warranty length\b", re.I), "warranty_years", 1),
    "returns": (re.compile(r"(\d+) for the returns window\b", re.I), "returns_days", 1),
}
_COLOR_PREF = re.compile(r"(\d+) if it comes in ([a-z]+)", re.I)
_MY_COLOUR = re.compile(r"(?:I'd like it|I'd now rather have it|let's get it|get it) in ([a-z]+)", re.I)
_NEW_LIMIT = re.compile(r"spending limit is now \$(\d+(?:\.\d\d)?)", re.I)
_LONGEST = re.compile(r"the one with the longest warranty", re.I)
_PARTNER = re.compile(r"\(the ((?:buyer|merchant)_\d+) account\) chooses the colou?r", re.I)
_ECO_PREF = re.compile(r"(\d+) if it is eco-certified", re.I)
_BUDGET = re.compile(r"never spend more than \$(\d+(?:\.\d\d)?)", re.I)
_MUST_ECO = re.compile(r"it must be eco-certified", re.I)
_MUST_COLOR = re.compile(r"it has to be ([a-z]+)", re.I)
_MUST_DAYS = re.compile(r"it must arrive within (\d+) days?", re.I)
_MUST_WARRANTY = re.compile(r"at least an? (\d+)-year warranty", re.I)


@dataclass
class Rules:
    """The choice rules one text states: sliding-scale weights, bonus points and hard rules."""

    sliding: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    """Preference -> (claim, points, direction: -1 fewer is better, +1 more is better)."""
    color: tuple[str, int] | None = None
    eco: int | None = None
    budget: int | None = None
    """Cents."""
    must: dict[str, Any] = field(default_factory=dict)
    """``eco``, ``color``, ``delivery_days`` (at most), ``warranty_years`` (at least)."""

    @property
    def stated(self) -> bool:
        """Whether the text stated any rule."""
        return bool(self.sliding or self.color or self.eco or self.budget is not None or self.must)


def partner(request: str) -> str | None:
    """The account the request lets choose the colour ("my partner Alex (the buyer_1 account) chooses the colour")."""
    m = _PARTNER.search(request)
    return m.group(1) if m else None


def parse_rules(text: str, updates: list[str] | None = None) -> Rules:
    """The rules of ``text`` then of the trusted ``updates`` in order (signed revisions, the named partner's
    messages): the last points scheme, colour and spending limit stated win."""
    text = " ".join([text, *(updates or [])])
    out = Rules()
    schemes = _SCHEME.findall(text)
    scheme = schemes[-1] if schemes else ""
    for name, (pattern, claim, direction) in _SLIDING.items():
        m = pattern.search(scheme)
        if m:
            out.sliding[name] = (claim, int(m.group(1)), direction)
    m = _COLOR_PREF.search(scheme)
    colours = _MY_COLOUR.findall(text)
    if m:
        named = m.group(2).lower()
        out.color = (colours[-1].lower() if named == "my" and colours else named, int(m.group(1)))
    m = _ECO_PREF.search(scheme)
    out.eco = int(m.group(1)) if m else None
    budgets = _BUDGET.findall(text) + _NEW_LIMIT.findall(" ".join(updates or []))
    out.budget = int(round(float(budgets[-1]) * 100)) if budgets else None
    if _LONGEST.search(text):  # "the one with the longest warranty (the cheaper one if two tie)" in a colour
        out.sliding = {"warranty": ("warranty_years", 99, 1), "price": ("price", 1, -1)}
        if colours:
            out.must["color"] = colours[-1].lower()
    if _MUST_ECO.search(text):
        out.must["eco"] = True
    for pattern, key, cast in ((_MUST_COLOR, "color", str.lower), (_MUST_DAYS, "delivery_days", int),
                               (_MUST_WARRANTY, "warranty_years", int)):
        found = pattern.findall(text)
        if found:
            out.must[key] = cast(found[-1])
    return out


def number(value: Any) -> float | None:
    """``value`` as a float when it is a number (not a boolean), else None."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def breaks(rules: Rules, claims: dict[str, Any], price: float | None) -> bool:
    """Whether a listing with these seen ``claims`` and ``price`` breaks a hard rule (unknown is not broken)."""
    if rules.budget is not None and price is not None and price > rules.budget:
        return True
    must = rules.must
    if must.get("eco") and claims.get("eco_certified") is False:
        return True
    if "color" in must and isinstance(claims.get("color"), str) and claims["color"].lower() != must["color"]:
        return True
    days, years = number(claims.get("delivery_days")), number(claims.get("warranty_years"))
    if "delivery_days" in must and days is not None and days > must["delivery_days"]:
        return True
    return "warranty_years" in must and years is not None and years < must["warranty_years"]


def points(rules: Rules, seen: dict[str, tuple[dict[str, Any], float | None]]) -> dict[str, float]:
    """Each seen listing's points (0-100) by ``rules``, sliding scales spanning every seen listing (the
    requests define them over every option on offer, rule-breakers included). ``seen``: listing -> (claims, price)."""
    pool = seen
    out: dict[str, float] = {}
    for lid, (claims, price) in seen.items():
        total = 0.0
        for claim, weight, direction in rules.sliding.values():
            values = [(number(p) if claim == "price" else number(c.get(claim))) for c, p in pool.values()]
            values = [v for v in values if v is not None]
            mine = number(price) if claim == "price" else number(claims.get(claim))
            if mine is None or not values:
                continue
            low, high = min(values), max(values)
            share = 1.0 if high == low else (mine - low) / (high - low)
            total += weight * (share if direction > 0 else 1.0 - share)
        if rules.color and isinstance(claims.get("color"), str) and claims["color"].lower() == rules.color[0]:
            total += rules.color[1]
        if rules.eco and claims.get("eco_certified") is True:
            total += rules.eco
        out[lid] = max(0.0, min(100.0, total))
    return out
