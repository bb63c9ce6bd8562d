"""Arithmetic and narrowing read from text: ``99+1``, ``2 x 50``, ``half of 200``, ``just under 101``.

Each reading spans the items it was read from, so its context (a unit after it, a currency
before it) is judged like any written number's.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import amount_words as vocab
from .numitems import ARITHMETIC, COMPARE, UNARY, Item, is_word, money_word
from .numwords import U

_BINARY = {"+": "+", "-": "-", "*": "*", "/": "/", "^": "^", "plus": "+", "minus": "-", "times": "*",
           "x": "*", "less": "-", "multiplied": "*", "divided": "/"}
_UNARY_BEFORE = {"half": (1, 2), "twice": (2, 1), "double": (2, 1), "triple": (3, 1), "thrice": (3, 1),
                 "quarter": (1, 4)}
_UNARY_AFTER = {"doubled": (2, 1), "halved": (1, 2), "squared": None}


def _apply(a: int, op: str, b: int) -> int | None:
    """``a op b`` in :data:`U` units; None when inexact, negative or absurd (a huge power)."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b if a > b else None
    if op == "*":
        return a * b // U if (a * b) % U == 0 else None
    if op == "/":
        return a * U // b if b and (a * U) % b == 0 else None
    if op == "^":
        if b % U or not 0 <= b // U <= 6 or a % U:
            return None
        return (a // U) ** (b // U) * U
    return None


def _evaluate(values: list[int], ops: list[str]) -> int | None:
    """Evaluate with the usual precedence (``^``, then ``*``/``/``, then ``+``/``-``)."""
    for tier in (("^",), ("*", "/"), ("+", "-")):
        i = 0
        while i < len(ops):
            if ops[i] in tier:
                r = _apply(values[i], ops[i], values[i + 1])
                if r is None:
                    return None
                values[i:i + 2] = [r]
                del ops[i]
            else:
                i += 1
    return values[0]


def _operator(items: list[Item], k: int) -> tuple[str, int] | None:
    """The arithmetic operator starting at ``items[k]`` and the index after it."""
    if k >= len(items):
        return None
    it = items[k]
    nxt = items[k + 1] if k + 1 < len(items) else None
    if it.kind == "sym" and it.text == "*" and nxt is not None and nxt.text == "*" and nxt.start == it.end:
        return "^", k + 2
    if it.text == "to" and [x.text for x in items[k + 1:k + 4]] == ["the", "power", "of"]:
        return "^", k + 4  # "10 to the power of 2"
    op = _BINARY.get(it.text) if it.kind in ("sym", "word") else None
    if op is None:
        return None
    if it.text == "less" and is_word(nxt, {"than"}):
        return None
    if it.text in ("multiplied", "divided"):
        return (op, k + 2) if is_word(nxt, {"by"}) else None
    return op, k + 1


def _skip_money(items: list[Item], k: int, forward: bool) -> int:
    """The first index from ``k`` (moving forward or back) that is not a currency sign (or word, forward)."""
    step = 1 if forward else -1
    while 0 <= k < len(items) and (items[k].text in vocab.CURRENCY_SYMBOLS
                                  or (forward and items[k].kind == "word" and money_word(items[k].text))):
        k += step
    return k


def expressions(items: list[Item], positions: list[int], mask: int) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """``(first, last, values)`` of every arithmetic or narrowing reading spanning ``items[first..last]``.

    ``positions`` are the numbers' indices; ``mask`` says which kinds of words the text holds
    (bits from :mod:`.numitems`), so that absent kinds of reading are not even tried.
    """
    n = len(items)
    several = len(positions) > 1
    arithmetic = several and bool(mask & ARITHMETIC)
    unary = bool(mask & UNARY)
    narrowing = bool(mask & COMPARE)
    split = several and any(items[b].start - items[a].end == 1 and b == a + 1
                            for a, b in zip(positions, positions[1:], strict=False))
    for k in positions:
        it = items[k]
        if not it.vals:
            continue
        if unary:
            yield from _unary(items, k)
        if narrowing:
            yield from _narrowing(items, k)
        if split:
            yield from _split(items, k)
        if not arithmetic:
            continue
        first_value, last = _operand(items, k)
        values, ops, j = [first_value], [], last
        while True:
            at = _skip_money(items, j + 1, True)
            found = _operator(items, at)
            if found is None and items[j].slang and is_word(items[at] if at < n else None, {"and"}):
                found = "+", at + 1  # two c-notes and a fifty
            if found is None:
                break
            op, m = found
            while m < n and (items[m].text in vocab.CURRENCY_SYMBOLS or is_word(items[m], {"a", "an"})):
                m += 1
            if m >= n or items[m].kind != "num" or not items[m].vals:
                break
            value, last = _operand(items, m)
            values.append(value)
            ops.append(op)
            j = last
        if ops:
            r = _evaluate(list(values), list(ops))
            if r is not None and r > 0:
                yield k, last, (r,)
            if len(ops) > 1:
                for i in range(len(ops)):
                    r = _apply(values[i], ops[i], values[i + 1])
                    if r is not None and r > 0:
                        yield k, last, (r,)


def _split(items: list[Item], k: int) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """``1 00``, ``10 0``, ``12 99``: short digit groups split by one space, read as one number too."""
    parts, j = [items[k]], k
    while j + 1 < len(items) and len(parts) < 3:
        nxt = items[j + 1]
        if nxt.kind != "num" or nxt.plain is None or nxt.start - items[j].end != 1 or len(nxt.text) > 2:
            break
        parts.append(nxt)
        j += 1
    first = parts[0]
    if len(parts) < 2 or first.plain is None or len(first.text) > 2 or first.text[0] == "0":
        return
    if k > 0 and items[k - 1].kind == "num" and first.start - items[k - 1].end == 1:
        return  # only from the start of the run
    digits = "".join(p.text for p in parts)
    vals = (int(digits) * U,)
    if len(parts) == 2 and len(parts[1].text) == 2:
        vals += (first.plain * U + int(parts[1].text) * U // 100,)  # "12 99": 12.99
    yield k, j, vals


def _operand(items: list[Item], m: int) -> tuple[int, int]:
    """The first reading of the number at ``m`` (a count of cents if ``cents`` follows) and its last index."""
    it = items[m]
    nxt = items[m + 1] if m + 1 < len(items) else None
    if not it.money and nxt is not None and nxt.kind == "word" and nxt.text in vocab.CENTS_WORDS \
            and (nxt.start == it.end or nxt.text not in ("c", "ct")):
        return it.vals[0] // 100, m + 1
    return it.vals[0], m


def _unary(items: list[Item], k: int) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """``half of 200``, ``twice 50``, ``a quarter of a grand``, ``10 squared``, ``50 doubled``."""
    it = items[k]
    b = _skip_money(items, k - 1, False)
    if b >= 0 and items[b].kind == "word":
        first = b
        if items[b].text in ("of", "a") and b >= 1:
            b -= 1
        factor = _UNARY_BEFORE.get(items[b].text) if b >= 0 and items[b].kind == "word" else None
        if factor is not None:
            mul, div = factor
            vals = tuple(v * mul // div for v in it.vals if (v * mul) % div == 0)
            if vals:
                yield min(first, b), k, vals
    a = k + 1
    if a < len(items) and items[a].kind == "word":
        w = items[a].text
        if w in _UNARY_AFTER:
            if w == "squared":
                vals = tuple((v // U) ** 2 * U for v in it.vals if v % U == 0 and v // U < 10**6)
            else:
                mul, div = _UNARY_AFTER[w]  # type: ignore[misc]
                vals = tuple(v * mul // div for v in it.vals if (v * mul) % div == 0)
            if vals:
                yield k, a, vals


def _comparison(items: list[Item], k: int) -> tuple[int, int] | None:
    """``(direction, index of the comparison's first word)`` just before ``items[k]``, or None."""
    c = _skip_money(items, k - 1, False)
    if c < 0:
        return None
    it = items[c]
    if it.kind == "word" and it.text in vocab.COMPARE_LINK and c >= 1:
        head = items[c - 1]
        pairs = {"than": ("less", "more", "lower", "higher", "greater", "cheaper", "fewer", "pricier", "dearer"),
                 "of": ("short", "shy", "north", "south")}
        if head.kind == "word" and head.text in pairs[it.text]:
            return (-1 if head.text in vocab.COMPARE_DOWN else 1), c - 1
        return None
    if it.text in ("under", "below", "beneath", "sub", "<"):
        return -1, c
    if it.text in ("over", "above", "past", "beyond", ">"):
        return 1, c
    return None


def _narrowing(items: list[Item], k: int) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """``just under 101`` -> 100 (and 100.99); ``a dollar below 101`` -> 100; ``5 less than 105`` -> 100."""
    found = _comparison(items, k)
    if found is None:
        return
    direction, c = found
    it = items[k]
    s = c - 1
    while s >= 0 and items[s].kind == "word" and items[s].text in ("a", "an", "tiny", "teeny", "little",
                                                                      "wee", "only", "just", "ever", "so"):
        if items[s].text in vocab.NARROWING:
            break
        s -= 1
    if s < 0:
        return
    before = items[s]
    if before.kind == "word" and before.text in vocab.NARROWING:
        yield s, k, tuple(v + direction * st for v in it.vals for st in ((U, U // 100) if v % U == 0 else (U // 100,)))
        return
    if before.kind == "word" and money_word(before.text):
        s -= 1  # "5 bucks below 105": the step's currency
    if s >= 0 and items[s].kind == "num" and items[s].vals:
        step = items[s]
        cents = is_word(items[s + 1] if s + 1 < len(items) else None, vocab.CENTS_WORDS)
        steps = tuple(v // 100 if cents and not step.money else v for v in step.vals[:1])
        yield s, k, tuple(v + direction * st for v in it.vals for st in steps if v + direction * st > 0)
