"""Tokens as items, and numbers written in digits read in every format their separators allow.

An :class:`Item` is a word, a symbol or a number (with every value it could be read as, in
:data:`~.numwords.U` units). :func:`raw_items` keeps only the tokens near something that can
name a number, so that long texts cost little more than short ones.
"""

from __future__ import annotations

import re

from . import amount_words as vocab
from .numtext import TOKEN
from .numwords import SCALES, SLANG, SMALL, TENS, U

_SEP = re.compile(r"[.,'_]")


class Item:
    """A token, or a number read from one or more tokens.

    The number-only attributes are class-level defaults, so that the many word and symbol
    items cost four stores each (this runs on every field of every action).
    """

    vals: tuple[int, ...] = ()
    """Every value (in :data:`U`) the number could be read as; empty for words and symbols."""
    plain: int | None = None
    """The integer, when written as a plain integer (it may then also be a count of cents)."""
    money = False
    """The number itself says it is money (``a dollar``, ``a C-note``, ``1.3 grand``)."""
    ident = False
    """Written like an identifier (leading zero, a version or date)."""
    slang = False
    """Money slang (``C-note``), which a count before it multiplies."""

    def __init__(self, kind: str, text: str, start: int, end: int) -> None:
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Item({self.kind}, {self.text!r}, {[v / U for v in self.vals]})"


def num_item(text: str, start: int, end: int, vals: tuple[int, ...], plain: int | None = None) -> Item:
    it = Item("num", text, start, end)
    it.vals = vals
    if plain is not None:
        it.plain = plain
    return it


def decimal_value(whole: str, frac: str) -> int:
    frac = frac[:4]
    return int(whole or 0) * U + int(frac or 0) * U // 10 ** len(frac) if frac else int(whole or 0) * U


def _digit_item(text: str, start: int, end: int) -> Item:
    """A written number in every reading its separators allow."""
    if text[0] == ".":
        return num_item(text, start, end, (decimal_value("0", text[1:]),))
    if text.isdigit():
        it = num_item(text, start, end, (int(text) * U,), int(text))
        it.ident = len(text) > 1 and text[0] == "0"
        return it
    groups = _SEP.split(text)
    seps = _SEP.findall(text)
    vals: list[int] = []
    plain = None
    tail_thousands = all(len(g) == 3 for g in groups[1:])
    if len(set(seps)) == 1:
        sep = seps[0]
        if tail_thousands and len(groups[0]) <= 3 and (sep != "." or len(groups) >= 2):
            plain = int("".join(groups))
            vals.append(plain * U)
        if len(groups) == 2 and (sep == "." or (sep == "," and len(groups[1]) != 3)):
            vals.append(decimal_value(groups[0], groups[1]))  # "1,299" is thousands; "1.299" may be either
    elif len(seps) >= 2 and seps[-1] in ".," and seps[-1] not in seps[:-1]:
        head, frac = groups[:-1], groups[-1]
        if all(len(g) == 3 for g in head[1:]) and len(head[0]) <= 3:
            vals.append(decimal_value("".join(head), frac))
    it = num_item(text, start, end, tuple(vals), plain)
    it.ident = not vals
    return it


SPELLING = frozenset(SMALL) | frozenset(TENS) | frozenset(SCALES) | frozenset(SLANG) | frozenset(
    {"c", "half", "twice", "double", "triple", "thrice", "quarter", "dozen"})
"""Words that can name a number by themselves (or with their neighbours)."""
EXPRESSION = frozenset({"+", "-", "*", "/", "^", "x", "plus", "minus", "times", "less", "multiplied", "divided", "power",
                         "half", "twice", "double", "triple", "thrice", "quarter", "doubled", "halved",
                         "squared", "under", "below", "beneath", "sub", "<", ">", "over", "above", "past",
                         "beyond", "than", "of", "and"})
"""Words and signs that can start arithmetic or a narrowing comparison."""
SPELL_START = SPELLING | frozenset({"a", "an"})
"""Words that can begin a spelled-out number or a counted slang amount."""
BEFORE, AFTER = 5, 4
"""How far (in tokens) the guard reads around a number: enough for ``a tiny bit under $101``."""


_WORD_FLAGS = {**dict.fromkeys(EXPRESSION, 2), **dict.fromkeys(SPELLING, 1)}
"""1 for a word that can name a number, 2 for one that can start arithmetic or a comparison."""


def raw_items(folded: str) -> tuple[list[Item], bool, int, bool]:
    """Items for the tokens near anything number-like (far words cannot change a reading).

    Returns the items, whether any is a spelled-out number or slang word, how many are
    numbers, and whether any can start arithmetic or a comparison. Separate windows are
    divided by a barrier symbol so that nothing reads across the gap.
    """
    items: list[Item] = []
    add = items.append
    flags = _WORD_FLAGS.get
    spelled = expression = False
    pos = nums = 0
    for space, word, num, sym in TOKEN.findall(folded):
        start = pos + len(space)
        if word:
            pos = start + len(word)
            flag = flags(word)
            if flag == 1:
                spelled = True
            elif flag == 2:
                expression = True
            add(Item("word", word, start, pos))
        elif num:
            pos = start + len(num)
            nums += 1
            if num[:2] in ("0x", "0b", "0o"):
                add(num_item(num, start, pos, (int(num, 0) * U,)))
            else:
                add(_digit_item(num, start, pos))
        else:
            pos = start + 1
            if sym in EXPRESSION:
                expression = True
            add(Item("sym", sym, start, pos))
    if not nums and not spelled:
        return [], False, 0, False
    if len(items) <= BEFORE + AFTER + 4:
        return items, spelled, nums, expression
    hot = [i for i, it in enumerate(items) if it.kind == "num" or (it.kind == "word" and it.text in SPELLING)]
    out: list[Item] = []
    last = -1
    for h in hot:
        lo, hi = max(h - BEFORE, last + 1), min(h + AFTER, len(items) - 1)
        if lo > hi:
            continue
        if lo > last + 1 and out:
            out.append(Item("sym", "\u00a6", out[-1].end + 2, out[-1].end + 3))
        out.extend(items[lo:hi + 1])
        last = hi
    return out, spelled, nums, expression


def is_word(it: Item | None, words: frozenset[str] | set[str] | dict) -> bool:
    return it is not None and it.kind == "word" and it.text in words


def money_word(w: str) -> bool:
    return w in vocab.CURRENCY_WORDS or w.startswith(vocab.MONEY_MORPHEMES)
