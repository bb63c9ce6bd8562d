"""Every amount of money a text could be naming, read the way a person would read it.

The pipeline, one small step each:

1. :func:`~.numtext.fold` spells every digit in ASCII, undoes look-alikes (``1OO``, ``l00``,
   full-width and other Unicode digits, ``0ne hundr3d``, ``o n e h u n d r e d``);
2. :mod:`.numitems` splits numbers, words and symbols and reads each number in every format
   it could be in (``1.299`` is 1299 in Europe and 1.299 elsewhere);
3. :mod:`.numjoin` reads spelled-out runs (``a hundred and five``) and money slang
   (``a C-note``), and joins what belongs together (``1 0 0``, ``0.1k``, ``1e2``,
   ``33 dollars and 50 cents``, ``two C-notes``);
4. :mod:`.numexpr` evaluates simple arithmetic (``99+1``, ``2 x 50``, ``half of 200``)
   and narrowing comparisons (``just under 101``, ``a dollar below 101``);
5. :mod:`.numcontext` decides, from the words around each reading, whether it is money, a count
   of cents, or bound to something that is not money: a unit (``100 units``, ``90-day``), an
   identifier (``SKU 100-A``, ``L-0095``), a percentage or a rank.

:func:`amounts` returns the money readings: every value a reader could take as an amount.
"""

from __future__ import annotations

from collections.abc import Iterator

from .numcontext import readings
from .numexpr import expressions
from .numitems import ARITHMETIC, COMPARE, SPELLED, UNARY, Item, raw_items
from .numjoin import combine, join_digits, spelled
from .numtext import fold
from .numwords import U

Candidate = tuple[list[Item], int, int, tuple[int, ...], "int | None", bool]
"""``(items, first, last, values, plain integer, says money itself)``: one way to read part of a text."""


def _candidates(text: str) -> Iterator[Candidate]:
    """Every number in ``text`` and every arithmetic or narrowing reading, before their context is read."""
    if not text:
        return
    folded = fold(text)
    items, mask, nums, starts = raw_items(folded)
    if not items:
        return
    if mask & SPELLED:
        items = spelled(items, starts)
    if nums > 1:
        items = join_digits(items, folded)
    positions = combine(items)
    for k in positions:
        it = items[k]
        if it.vals:
            yield items, k, k, it.vals, it.plain, it.money
    if len(positions) > 1 or mask & (ARITHMETIC | UNARY | COMPARE):
        for i, j, vals in expressions(items, positions, mask):
            yield items, i, j, vals, None, items[i].money or items[j].money


def amounts(text: str) -> list[int]:
    """Every amount, in :data:`U` units, that ``text`` could be read as naming as money."""
    found: list[int] = []
    for items, i, j, vals, plain, money in _candidates(text):
        found.extend(readings(items, i, j, vals, plain, money))
    return found


def names(text: str, targets: tuple[int, ...], within: int) -> int | None:
    """The first of ``targets`` (in :data:`U`) that ``text`` names as money to within ``within``, or None.

    Reads exactly as :func:`amounts` does, but only reads the context of a number whose value
    could be a target (in dollars, or as a count of cents): most numbers are skipped cheaply.
    """
    for items, i, j, vals, plain, money in _candidates(text):
        near = [t for t in targets if any(abs(v - t) < within or abs(v // 100 - t) < within for v in vals)
                or (plain is not None and abs(plain * U // 100 - t) < within)]
        if not near:
            continue
        for v in readings(items, i, j, vals, plain, money):
            for t in near:
                if abs(v - t) < within:
                    return t
    return None
