"""Quantities with units, as T2 Grounding reads them from answers, listing claims and replies.

A quantity is a number with a unit of mass (grams base) or length (millimetres base). Keys
carry their unit as a suffix (``weight_g``, ``thickness_in``); values may carry their own
(``"0.18 in"``, ``"3.35 kg"``, ``'4.5"'``). :func:`quantity` reads one value against the
key it is filed under; :func:`quantities_in` finds every number-with-unit in free text, so
a reply that asserts an unsupported figure can be checked against the record. :func:`stated`
and :func:`stated_in` also keep the unit each figure was written in, so an answer can be held
to the unit it was asked for.
"""

from __future__ import annotations

import math
import re

MASS, LENGTH = "mass", "length"
UNITS: dict[str, tuple[str, float]] = {
    "g": (MASS, 1.0), "gram": (MASS, 1.0), "grams": (MASS, 1.0), "gr": (MASS, 1.0),
    "kg": (MASS, 1000.0), "kilo": (MASS, 1000.0), "kilos": (MASS, 1000.0), "kilogram": (MASS, 1000.0),
    "kilograms": (MASS, 1000.0), "oz": (MASS, 28.349523125), "ounce": (MASS, 28.349523125),
    "ounces": (MASS, 28.349523125), "lb": (MASS, 453.59237), "lbs": (MASS, 453.59237),
    "pound": (MASS, 453.59237), "pounds": (MASS, 453.59237),
    "mm": (LENGTH, 1.0), "millimeter": (LENGTH, 1.0), "millimeters": (LENGTH, 1.0), "millimetre": (LENGTH, 1.0),
    "millimetres": (LENGTH, 1.0), "cm": (LENGTH, 10.0), "centimeter": (LENGTH, 10.0),
    "centimeters": (LENGTH, 10.0), "centimetre": (LENGTH, 10.0), "centimetres": (LENGTH, 10.0),
    "m": (LENGTH, 1000.0), "meter": (LENGTH, 1000.0), "meters": (LENGTH, 1000.0), "metre": (LENGTH, 1000.0),
    "metres": (LENGTH, 1000.0), "in": (LENGTH, 25.4), "inch": (LENGTH, 25.4), "inches": (LENGTH, 25.4),
    '"': (LENGTH, 25.4), "ft": (LENGTH, 304.8), "foot": (LENGTH, 304.8), "feet": (LENGTH, 304.8),
}
"""Unit word -> (dimension, size in the dimension's base unit: grams or millimetres)."""

REL_TOL = 0.05
"""Relative tolerance of a match (rounding 4.5 mm to 0.18 in is 1.6 % off; wrong figures are 15 % off or more)."""

NOT_AFTER_IN = (
    "the", "a", "an", "my", "your", "his", "her", "its", "our", "their", "this", "that", "these",
    "those", "each", "every", "all", "any", "some", "total", "stock", "store", "transit", "cart",
    "hand", "person", "reserve", "advance", "time", "full", "case", "one", "two", "three", "ten",
)
"""Words that, right after "<number> in", make "in" a preposition ("3 in the box", "2 in stock",
"1 in 10"), not inches ("0.18 in thick", "4.5 in."). "in" is the one unit word English uses
mostly as something else; the other unit words are read wherever they follow a number."""

_NUM = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
_WORDS = "|".join(sorted((re.escape(u) for u in UNITS if u != '"'), key=len, reverse=True))
_PREPOSITION = r"(?<=\bin)\s+(?:(?:" + "|".join(NOT_AFTER_IN) + r")\b|\d)"
_QTY = re.compile(r"(?<![\w.,])" + _NUM + r"\s?(?:(" + _WORDS + r")\b(?!" + _PREPOSITION + r")|(\"))",
                  re.IGNORECASE)
_BARE = re.compile(_NUM)


def _number(text: str) -> float:
    """A number as written, thousands commas dropped."""
    return float(text.replace(",", ""))


def key_unit(key: str) -> tuple[str, str | None]:
    """``("weight", "oz")`` for ``weight_oz`` or ``weight_in_ounces``; ``("heel_drop", None)`` for ``heel drop``."""
    parts = [p for p in re.split(r"[\s_\-()]+", key.strip().lower()) if p]
    unit = parts.pop() if len(parts) > 1 and parts[-1] in UNITS else None
    while len(parts) > 1 and parts[-1] == "in":
        parts.pop()
    return "_".join(parts) or key.lower(), unit


def to_base(value: float, unit: str) -> tuple[str, float]:
    """(dimension, value in the base unit)."""
    dim, size = UNITS[unit.lower()]
    return dim, value * size


Stated = tuple[str, float, str]
"""A quantity as stated: (dimension, value in the base unit, the unit it was written in)."""


def stated(key: str, value: object, *, default_unit: str | None = None) -> list[Stated]:
    """Every quantity a field asserts, with the unit it was written in: units in the value first, else
    a bare number in the key's unit, else in ``default_unit``. A list of figures yields them all."""
    _, unit = key_unit(key)
    unit = unit or default_unit
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int | float):
        return [(*to_base(float(value), unit), unit.lower())] if unit else []
    if isinstance(value, str):
        found = stated_in(value)
        if found:
            return found
        bare = _BARE.search(value)
        if bare and unit:
            return [(*to_base(_number(bare.group(1)), unit), unit.lower())]
    return []


def quantity(key: str, value: object, *, default_unit: str | None = None) -> tuple[str, float] | None:
    """The (dimension, base value) a field asserts first, reading the unit from the value, the key, then
    ``default_unit``."""
    found = stated(key, value, default_unit=default_unit)
    return found[0][:2] if found else None


def stated_in(text: str) -> list[Stated]:
    """Every number-with-unit in ``text``, as (dimension, base value, unit as written), in order."""
    out = []
    for m in _QTY.finditer(text):
        unit = (m.group(2) or m.group(3)).lower()
        out.append((*to_base(_number(m.group(1)), unit), unit))
    return out


def quantities_in(text: str) -> list[tuple[str, float]]:
    """Every number-with-unit in ``text``, as (dimension, base value), in order."""
    return [(dim, v) for dim, v, _ in stated_in(text)]


def same_unit(a: str, b: str) -> bool:
    """Whether two unit words name the same unit (``oz`` and ``ounces``, ``in`` and ``"``)."""
    return UNITS[a.lower()] == UNITS[b.lower()]


def close(a: float, b: float, rel_tol: float = REL_TOL) -> bool:
    """Whether two base values agree within the tolerance."""
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-9)


def matches(q: tuple[str, float] | None, truth: tuple[str, float], rel_tol: float = REL_TOL) -> bool:
    """Whether an asserted quantity equals the authoritative one (same dimension, within tolerance)."""
    return q is not None and q[0] == truth[0] and close(q[1], truth[1], rel_tol)
