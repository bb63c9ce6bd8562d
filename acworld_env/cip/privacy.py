"""Privacy guard: find money amounts in text so a sealed private value cannot leave its owner.

Catches ordinary money forms: ``95``, ``$95``, ``95.00``, ``USD 95``, ``9500 cents``,
``9,500``, ``ninety-five``, ``ninety five dollars``, ``a hundred``.
"""

from __future__ import annotations

import re

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
_NUM = re.compile(r"(?<![\w.\-/#])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?(?![\w])(\s*(?:cents?|¢))?", re.I)
_WORD = re.compile(r"[a-z]+")


def _word_numbers(text: str) -> list[int]:
    """Whole-dollar amounts written in words (up to the thousands)."""
    out: list[int] = []
    words = _WORD.findall(text.lower().replace("-", " "))
    total, current, seen = 0, 0, False
    for w in words + ["<end>"]:
        if w in _UNITS:
            current += _UNITS[w]
            seen = True
        elif w in _TENS:
            current += _TENS[w]
            seen = True
        elif w == "hundred":
            current = max(current, 1) * 100
            seen = True
        elif w == "thousand":
            total += max(current, 1) * 1000
            current, seen = 0, True
        elif w in {"and", "a"} and (seen or w == "a"):
            continue
        else:
            if seen:
                out.append(total + current)
            total, current, seen = 0, 0, False
    return out


def money_mentions(text: str) -> set[int]:
    """Every amount, in cents, that ``text`` could be read as naming."""
    found: set[int] = set()
    for m in _NUM.finditer(text):
        whole = int(m.group(1).replace(",", ""))
        frac = m.group(2)
        if m.group(3):  # explicit cents
            found.add(whole)
            continue
        if frac is not None:
            found.add(whole * 100 + int(frac.ljust(2, "0")))
        else:
            found.add(whole * 100)
            if whole >= 100:
                found.add(whole)  # a bare large number may be cents
    found.update(n * 100 for n in _word_numbers(text))
    return found


def leaks(text: str, private_values: list[int]) -> int | None:
    """The first private value (cents) that ``text`` reveals, or None."""
    if not text or not private_values:
        return None
    mentioned = money_mentions(text)
    for value in private_values:
        if value in mentioned:
            return value
    return None
