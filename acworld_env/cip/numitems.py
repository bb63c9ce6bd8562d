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
    """A number item spanning ``start..end`` of the folded text."""
    it = Item("num", text, start, end)
    it.vals = vals
    if plain is not None:
        it.plain = plain
    return it


def decimal_value(whole: str, frac: str) -> int:
    """``whole.frac`` in :data:`U` units (digits beyond the fourth decimal are dropped)."""
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
SPELL_START = SPELLING | frozenset({"a", "an"})
"""Words that can begin a spelled-out number or a counted slang amount."""
BEFORE, AFTER = 5, 4
"""How far (in tokens) the guard reads around a number: enough for ``a tiny bit under $101``."""
WINDOWED = 24
"""Texts with more tokens than this are cut to the windows around their numbers."""

SPELLED, ARITHMETIC, UNARY, COMPARE, START = 1, 2, 4, 8, 16
"""Bits of the mask :func:`raw_items` returns: which kinds of words the text holds."""
_FLAGS: dict[str, int] = {}
for _words, _bit in ((vocab.ARITHMETIC_TRIGGERS, ARITHMETIC), (vocab.UNARY_TRIGGERS, UNARY),
                     (vocab.COMPARE_TRIGGERS, COMPARE), (SPELLING, SPELLED), (SPELL_START, START)):
    for _w in _words:
        _FLAGS[_w] = _FLAGS.get(_w, 0) | _bit


def raw_items(folded: str) -> tuple[list[Item], int, int, list[int]]:
    """Items for the tokens of ``folded``, cut to the windows around numbers when the text is long.

    Returns the items, a mask of the word kinds present (:data:`SPELLED`, :data:`ARITHMETIC`,
    :data:`UNARY`, :data:`COMPARE`), how many numbers are written in digits, and where the
    words that may start a spelled-out number are. Separate windows are divided by a barrier
    symbol so that nothing reads across the gap. No items at all when nothing can be a number.
    """
    items: list[Item] = []
    add = items.append
    flags = _FLAGS.get
    starts: list[int] = []
    mask = pos = nums = 0
    for space, word, num, sym in TOKEN.findall(folded):
        start = pos + len(space)
        if num:
            pos = start + len(num)
            nums += 1
            if num[:2] in ("0x", "0b", "0o"):
                add(num_item(num, start, pos, (int(num, 0) * U,)))
            else:
                add(_digit_item(num, start, pos))
            continue
        if word:
            pos = start + len(word)
            tok = Item("word", word, start, pos)
        else:
            pos = start + 1
            tok = Item("sym", sym, start, pos)
            word = sym
        flag = flags(word)
        if flag:
            mask |= flag
            if flag & START:
                starts.append(len(items))
        add(tok)
    if not nums and not mask & SPELLED:
        return [], 0, 0, []
    if len(items) <= WINDOWED:
        return items, mask, nums, starts
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
    starts = [k for k, it in enumerate(out) if it.kind == "word" and it.text in SPELL_START]
    return out, mask, nums, starts


def is_word(it: Item | None, words: frozenset[str] | set[str] | dict) -> bool:
    return it is not None and it.kind == "word" and it.text in words


def money_word(w: str) -> bool:
    return w in vocab.CURRENCY_WORDS or w.startswith(vocab.MONEY_MORPHEMES)
