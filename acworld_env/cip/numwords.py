"""Spelled-out numbers and money slang: ``a hundred``, ``ninety-nine``, ``one zero zero``, ``twelve ninety-nine``.

Values are integers in :data:`U` units (1/10,000 of a currency unit), so cents and sub-cent
arithmetic stay exact without floats.
"""

from __future__ import annotations

import re

U = 10_000
"""Value units per currency unit (a dollar); a cent is ``U // 100``."""

SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90, "ninty": 90, "twenny": 20, "tweny": 20,
}
SCALES = {"hundred": 100, "hundered": 100, "hunderd": 100, "hundrd": 100, "thousand": 1000,
          "grand": 1000, "million": 10**6, "billion": 10**9, "dozen": 12}
DIGIT_WORDS = {"zero": 0, "oh": 0, "o": 0, "nought": 0, "naught": 0, "nil": 0, "one": 1, "two": 2,
               "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}

SLANG = {
    "benjamin": 100, "benjamins": 100, "benji": 100, "benjis": 100, "benjies": 100, "benny": 100,
    "bennies": 100, "franklin": 100, "franklins": 100, "hundo": 100, "hundos": 100, "hunnid": 100,
    "hunnids": 100, "hunnit": 100, "hunned": 100, "hundy": 100, "hundies": 100, "cnote": 100,
    "cnotes": 100, "century": 100, "centuries": 100, "ton": 100, "bill": 100, "bills": 100, "yard": 100,
    "yards": 100, "stack": 1000, "stacks": 1000, "rack": 1000, "racks": 1000, "fiver": 5, "fivers": 5, "tenner": 10, "tenners": 10, "sawbuck": 10, "sawbucks": 10,
    "jackson": 20, "jacksons": 20, "hamilton": 10, "hamiltons": 10, "grant": 50, "grants": 50,
    "lincoln": 5, "lincolns": 5, "washington": 1, "washingtons": 1, "ben": 100, "bens": 100, "pony": 25, "ponies": 25, "monkey": 500, "monkeys": 500,
    "score": 20, "buck": 1, "bucks": 1, "dollar": 1, "dollars": 1, "cent": 0.01, "cents": 0.01,
    "penny": 0.01, "pennies": 0.01, "fifties": 50, "twenties": 20, "tens": 10, "fives": 5,
    "hundreds": 100, "grands": 1000,
}
"""Money slang, in currency units per item."""

FREE_SLANG = frozenset({"benjamin", "benjamins", "benji", "benjis", "benjies", "hundo", "hundos",
                        "hunnid", "hunnids", "hunnit", "hunned", "hundy", "hundies", "cnote", "cnotes",
                        "fiver", "tenner", "sawbuck"})
"""Slang that means money even without a count before it (``c-note``, ``hundo``)."""

SLANG_SPOILERS = frozenset({"of", "more", "less", "better", "worse", "too", "cheaper", "ago", "old",
                            "to", "for", "longer", "away", "off", "in", "on", "at", "from", "was", "has"})
"""Words after ``a ton``/``a yard``/``a bill`` that show it is not money (``a ton of``, ``a yard away``)."""

COUNT_SPOILERS = frozenset({"thanks", "thank", "weighs", "weigh", "weighed", "weighing", "in", "per",
                            "like", "liked", "love", "loved", "helps", "helped", "appreciate", "the",
                            "this", "that", "my", "your", "our", "their", "his", "her", "every", "each",
                            "quarter", "half", "pay", "paid", "sign", "signed", "from"})
"""Words before the count that show the slang noun is meant literally (``thanks a ton``, ``the bill``)."""


_FRACTIONS = {"half": U // 2, "quarter": U // 4}
"""``and a half``, ``and a quarter`` after a spelled-out number."""


def is_number_word(word: str) -> bool:
    """True for a word that can start a spelled-out number."""
    return word in SMALL or word in TENS or word in SCALES


def _digits(words: list[str]) -> int | None:
    """``one zero zero`` -> 100; None unless every word is a single digit (and there are two or more)."""
    if len(words) < 2 or any(w not in DIGIT_WORDS for w in words):
        return None
    return int("".join(str(DIGIT_WORDS[w]) for w in words))


def _cardinal_segments(words: list[str]) -> list[tuple[int, bool]]:
    """Split a run of number words into the numbers it spells: ``(value, two_digit)`` each.

    ``two_digit`` marks a segment that is exactly a ten or teen (with an optional unit), the
    right half of price-speak (``twelve | ninety-nine``).
    """
    out: list[tuple[int, bool]] = []
    total = cur = 0
    last = ""  # "", "unit", "teen", "ten", "hundred", "scale"
    started = False
    two_digit = False

    def close() -> None:
        nonlocal total, cur, last, started, two_digit
        if started:
            out.append((total + cur, two_digit and total == 0 and 10 <= cur <= 99))
        total = cur = 0
        last, started, two_digit = "", False, False

    for w in words:
        if w in ("a", "an", "and"):
            continue
        if w in TENS:
            if last not in ("", "hundred", "scale"):
                close()
            two_digit = last == "" and total == 0
            cur += TENS[w]
            last = "ten"
        elif w in SMALL:
            v = SMALL[w]
            if v == 0:
                close()
                out.append((0, False))
                continue
            if v >= 10:
                if last not in ("", "hundred", "scale"):
                    close()
                two_digit = last == "" and total == 0
                cur += v
                last = "teen"
            else:
                if last == "ten" and cur % 10 == 0:
                    cur += v
                elif last in ("", "hundred", "scale"):
                    two_digit = False
                    cur += v
                else:
                    close()
                    cur = v
                last = "unit"
        elif w in SCALES:
            scale = SCALES[w]
            if scale == 100:
                if last in ("unit", "teen", "ten") and cur % 100 != 0 and cur < 100:
                    cur *= 100
                elif last == "":
                    cur = 100
                else:
                    close()
                    cur = 100
            else:
                total += max(cur, 1) * scale
                cur = 0
            two_digit = False
            last = "hundred" if scale == 100 else "scale"
        started = True
    close()
    return out


def spelled_values(words: list[str]) -> list[int]:
    """Every value (in :data:`U`) a run of number words could name.

    ``words`` holds the run's words in order (hyphens already dropped); it may contain ``and``,
    ``a``/``an`` before a scale, ``point`` followed by digit words, and ``and a half``.
    """
    half = 0
    if len(words) >= 3 and words[-1] in _FRACTIONS and words[-2] in ("a", "an") and words[-3] == "and":
        words, half = words[:-3], _FRACTIONS[words[-1]]
    decimals = None
    if "point" in words:
        k = words.index("point")
        tail = words[k + 1:]
        if tail and all(w in DIGIT_WORDS for w in tail) and len(tail) <= 4:
            decimals = "".join(str(DIGIT_WORDS[w]) for w in tail)
        words = words[:k]
    out: list[int] = []
    seq = _digits(words)
    if seq is not None:
        out.append(seq * U)
        if len(words) == 3 and words[1] in ("oh", "o"):  # "nine oh five": 9.05
            out.append(DIGIT_WORDS[words[0]] * U + DIGIT_WORDS[words[2]] * U // 100)
    segments = _cardinal_segments(words) if words else [(0, False)]
    for v, _ in segments:
        out.append(v * U)
    if len(segments) == 2 and segments[1][1]:
        a, b = segments[0][0], segments[1][0]
        out.append(a * U + b * U // 100)  # "thirty-three fifty": 33.50
        out.append((a * 100 + b) * U)  # "twelve ninety-nine": 1299
    if decimals is not None and segments:
        whole = segments[-1][0] if words else 0
        out.append(whole * U + int(decimals) * U // 10 ** len(decimals))
    if half:
        out = [v + half for v in out[-1:]] + out
    return out


# -- obfuscated spellings ------------------------------------------------------------------

_NUMBER_WORDS = sorted({*SMALL, *TENS, "hundred", "thousand", "million"}, key=len, reverse=True)
_GLUED = re.compile(r"\b(?:%s)(?:and|a)?(?:%s)(?:(?:and|a)?(?:%s))*\b" % (("|".join(_NUMBER_WORDS),) * 3))
_GLUED_PART = re.compile("|".join([*_NUMBER_WORDS, "and", "a"]))
_SPACED_LETTERS = re.compile(r"\b[a-z](?:[ .\-_*][a-z]\b){3,}")
_LEET_TOKEN = re.compile(r"\b[a-z0-9]*(?:[a-z][0-9]|[0-9][a-z])[a-z0-9]*\b")
_LEET = str.maketrans("013457", "oleast")
_LEET_I = str.maketrans("013457", "oieast")
_GLUED_HINT = re.compile(r"(?:ty|teen|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
                         r"(?:hundred|thousand|one|two|three|four|five|six|seven|eight|nine)")
_SPACED_HINT = re.compile(r"\b[a-z][ .\-_*][a-z][ .\-_*][a-z]\b")
_LEET_HINT = re.compile(r"[a-z][013457][a-z]|\b[013457][a-z]{2}|[a-z]{2}[013457]\b")


def _unglue(m: re.Match[str]) -> str:
    return " ".join(_GLUED_PART.findall(m.group(0)))


def _unspace(m: re.Match[str]) -> str:
    joined = "".join(ch for ch in m.group(0) if ch.isalpha())
    return _GLUED.sub(_unglue, joined) if _GLUED.fullmatch(joined) or joined in SMALL or joined in TENS \
        or joined in SCALES else m.group(0)


def _unleet(m: re.Match[str]) -> str:
    tok = m.group(0)
    if tok.isdigit() or not any(ch.isalpha() for ch in tok):
        return tok
    for table in (_LEET, _LEET_I):
        word = tok.translate(table)
        if word in SMALL or word in TENS or word in SCALES:
            return word
    return tok


def respell(lower: str) -> str:
    """Undo obfuscated spellings of number words in lower-cased text.

    ``onehundred`` -> ``one hundred``; ``n i n e t y``/``n-i-n-e-t-y`` -> ``ninety``;
    ``0ne hundr3d``/``n1nety`` -> ``one hundred``/``ninety``. Words that do not become
    number words are left alone.
    """
    if _SPACED_HINT.search(lower) and _SPACED_LETTERS.search(lower):
        lower = _SPACED_LETTERS.sub(_unspace, lower)
    if _LEET_HINT.search(lower):
        lower = _LEET_TOKEN.sub(_unleet, lower)
    if _GLUED_HINT.search(lower):
        lower = _GLUED.sub(_unglue, lower)
    return lower
