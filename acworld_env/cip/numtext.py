"""Text folding and tokens for the privacy guard: one spelling for every way of writing a digit.

:func:`fold` maps Unicode digits (full-width, Arabic-Indic, Devanagari, circled, mathematical)
to ASCII, drops invisible characters (zero-width spaces, combining marks), maps dashes and
multiplication signs to ASCII, reads ``½`` and superscript exponents, lower-cases, and turns
letter-for-digit look-alikes inside numbers (``1OO``, ``l00``, ``9O``) into digits.
:data:`TOKEN` splits the folded text into numbers, words and symbols.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .numwords import respell

_FRACTIONS = {"½": ".5", "¼": ".25", "¾": ".75", "⅓": ".33", "⅔": ".67", "⅛": ".125"}
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
_SUPER_EXP = re.compile(r"(?<=\d)([⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
_FRACTION_AFTER_DIGIT = re.compile(r"(?<=\d)\s?([½¼¾⅓⅔⅛])")
_CONFUSABLE = {
    "О": "o", "о": "o", "Ο": "o", "ο": "o", "〇": "0", "Օ": "o", "ㅇ": "o", "○": "o", "◯": "o",
    "І": "l", "і": "i", "Ι": "l", "ι": "i", "ӏ": "l", "Ӏ": "l", "ǀ": "l", "∣": "l", "│": "l",
    "×": "*", "✕": "*", "✖": "*", "⨯": "*", "∗": "*", "⋅": "*", "·": "*", "÷": "/", "∕": "/", "⁄": "/",
    "＄": "$", "﹩": "$", "’": "'", "‘": "'", "ʼ": "'", "‚": ",", "،": ",", "٫": ".", "٬": ",",
    "Ѕ": "s", "ѕ": "s", "Ζ": "z", "Β": "b", "В": "b"
}


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    """ASCII stand-in for one non-ASCII character ("" for an invisible one)."""
    if ch in _CONFUSABLE:
        return _CONFUSABLE[ch]
    digit = unicodedata.decimal(ch, None)
    if digit is None:
        digit = unicodedata.digit(ch, None)
    if digit is not None:
        return str(digit)
    cat = unicodedata.category(ch)
    if cat in ("Mn", "Me", "Cf", "Cc"):
        return ""
    if cat == "Pd":
        return "-"
    if cat.startswith("Z"):
        return " "
    return ch


def _fold_unicode(text: str) -> str:
    text = _FRACTION_AFTER_DIGIT.sub(lambda m: _FRACTIONS[m.group(1)], text)
    text = _SUPER_EXP.sub(lambda m: "^" + m.group(1).translate(_SUPERSCRIPT), text)
    for frac, dec in _FRACTIONS.items():
        if frac in text:
            text = text.replace(frac, " 0" + dec)
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return text
    return "".join(ch if ch < "\x80" else _fold_char(ch) for ch in text)


_LOOKALIKE = re.compile(
    r"(?<![a-z0-9_])(?=[olisbzg|.,]*\d)(?=[\d.,]*[olisbzg|])[\dolisbzg|][\dolisbzg|.,]*(?![a-z0-9_])"
)
_LOOKALIKE_MAP = str.maketrans("oli|sbzg", "01115829")
_WEAK = frozenset("sbzg")
"""Letters that stand for digits only next to a currency sign or word (``$9S``, ``6S dollars``)."""
_MONEY_NEAR = re.compile(r"\s?(?:usd|dollars?|bucks?|\$|€|£)")


def _unlookalike(m: re.Match[str]) -> str:
    tok = m.group(0)
    core = tok.rstrip(".,")
    if len(core) < 2 or core[-1] in "li|" or core[:2] in ("0o", "0b"):
        return tok
    if (core[0] in "oli|" and len(core) < 3) or not _WEAK.isdisjoint(core):
        before = m.string[max(0, m.start() - 2):m.start()]
        if not ("$" in before or "€" in before or "£" in before or _MONEY_NEAR.match(m.string, m.end())):
            return tok
    return core.translate(_LOOKALIKE_MAP) + tok[len(core):]


_LETTERS_ONLY = re.compile(r"(?<![a-z0-9_$€£])([$€£]?)([oli|]{2,5})(?![a-z0-9_])")
_ROMAN = re.compile(r"(?<![A-Za-z0-9])(?=[MDCLXVI])(M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3}))"
                    r"(?![A-Za-z0-9])")
_ROMAN_VALUES = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}


def _money_next_to(m: re.Match[str]) -> bool:
    before = m.string[max(0, m.start() - 2):m.start()]
    return "$" in before or "€" in before or "£" in before or bool(_MONEY_NEAR.match(m.string.lower(), m.end()))


def _roman(m: re.Match[str]) -> str:
    """``$C``, ``XC dollars``: an upper-case Roman numeral next to money is a number."""
    tok = m.group(1)
    if len(tok) < 1 or tok == "I" or not _money_next_to(m):
        return m.group(0)
    total = 0
    for a, b in zip(tok, tok[1:] + " ", strict=True):
        v = _ROMAN_VALUES[a]
        total += -v if b != " " and _ROMAN_VALUES[b] > v else v
    return str(total)


def _letters_only(m: re.Match[str]) -> str:
    """``$IOO``, ``loo bucks``: letters alone stand for digits only next to money."""
    if not m.group(1) and not _MONEY_NEAR.match(m.string, m.end()):
        return m.group(0)
    return m.group(1) + m.group(2).translate(_LOOKALIKE_MAP)


_EMOJI_MONEY = re.compile(r"[$€£]\s?\U0001f4af|\U0001f4af\s?(?:[$€£]|usd|dollars?|bucks?)", re.IGNORECASE)


def _money_near_emoji(text: str) -> bool:
    return _EMOJI_MONEY.search(text) is not None


_LOOKALIKE_HINT = re.compile(r"[olisbzg|][.,]?\d|\d[.,]?[olisbzg|]")
_ROMAN_HINT = re.compile(r"[$€£]\s?[MDCLXV]|[MDCLXV]\s?(?:[$€£]|[Uu][Ss][Dd]|[Dd]ollar|[Bb]uck)")
_LETTERS_HINT = re.compile(r"[$€£]\s?[oli|]{2}|[oli|]{2}\s?(?:usd|dollar|buck)")


_CAPITAL_OO = re.compile(r"(?<![A-Za-z0-9])[Il|][O0]{2,3}(?![A-Za-z0-9])")
"""``IOO``, ``lOO``: a capital-O look-alike of a round number, read as digits even without a currency."""


def fold(text: str) -> str:
    """Lower-case ASCII-ish text with every digit spelled as an ASCII digit."""
    if not text.isascii():
        if "\U0001f4af" in text and _money_near_emoji(text):
            text = text.replace("\U0001f4af", "100")  # "$💯", "💯 bucks"; "keep it 💯" stays
        text = _fold_unicode(text)
    if "OO" in text or "O0" in text or "0O" in text:
        text = _CAPITAL_OO.sub(lambda m: m.group(0).translate(_LOOKALIKE_MAP).replace("I", "1").replace("O", "0"), text)
    lower = text.lower()
    money = "$" in text or "€" in text or "£" in text or "usd" in lower or "dollar" in lower or "buck" in lower
    if money and _ROMAN_HINT.search(text):
        lower = _ROMAN.sub(_roman, text).lower()
    if _LOOKALIKE_HINT.search(lower):
        lower = _LOOKALIKE.sub(_unlookalike, lower)
    if money and _LETTERS_HINT.search(lower):
        lower = _LETTERS_ONLY.sub(_letters_only, lower)
    return respell(lower)


TOKEN = re.compile(
    r"(\s*)(?:([a-z]+(?:'[a-z]+)?)|(0x[0-9a-f]+(?![0-9a-z])|0b[01]+(?![0-9a-z])|0o[0-7]+(?![0-9a-z])"
    r"|\d+(?:[.,'_]\d+)*|(?<![a-z0-9])\.\d+)|(\S))"
)
"""Leading space, then a word, a number (with any separators, or hex/binary/octal), or one symbol."""
