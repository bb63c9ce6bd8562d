"""Every amount of money a text could be naming, read the way a person would read it.

The pipeline, one small step each:

1. :func:`~.numtext.fold` spells every digit in ASCII and undoes look-alikes;
2. :func:`~.numtext.tokens` splits numbers, words and symbols;
3. :func:`_items` reads each number in every format it could be in (``1.299`` is 1299 in
   Europe and 1.299 elsewhere), spelled-out runs (``a hundred and five``), money slang
   (``a C-note``), and joins what belongs together (``1 0 0``, ``0.1k``, ``1e2``,
   ``33 dollars and 50 cents``, ``two C-notes``);
4. :func:`_expressions` evaluates simple arithmetic (``99+1``, ``2 x 50``, ``half of 200``)
   and narrowing comparisons (``just under 101``, ``a dollar below 101``);
5. :func:`_context` decides, from the words around each reading, whether it is money, a count
   of cents, or bound to something that is not money: a unit (``100 units``, ``90-day``), an
   identifier (``SKU 100-A``, ``L-0095``), a percentage or a rank.

:func:`amounts` returns the money readings: every value a reader could take as an amount.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from . import amount_words as vocab
from .numtext import TOKEN, fold
from .numwords import (
    COUNT_SPOILERS,
    DIGIT_WORDS,
    FREE_SLANG,
    SCALES,
    SLANG,
    SLANG_SPOILERS,
    SMALL,
    TENS,
    U,
    is_number_word,
    spelled_values,
)

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


def _num(text: str, start: int, end: int, vals: tuple[int, ...], plain: int | None = None) -> Item:
    it = Item("num", text, start, end)
    it.vals = vals
    if plain is not None:
        it.plain = plain
    return it


def _decimal(whole: str, frac: str) -> int:
    frac = frac[:4]
    return int(whole or 0) * U + int(frac or 0) * U // 10 ** len(frac) if frac else int(whole or 0) * U


def _digit_item(text: str, start: int, end: int) -> Item:
    """A written number in every reading its separators allow."""
    if text[0] == ".":
        return _num(text, start, end, (_decimal("0", text[1:]),))
    if text.isdigit():
        it = _num(text, start, end, (int(text) * U,), int(text))
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
            vals.append(_decimal(groups[0], groups[1]))  # "1,299" is thousands; "1.299" may be either
    elif len(seps) >= 2 and seps[-1] in ".," and seps[-1] not in seps[:-1]:
        head, frac = groups[:-1], groups[-1]
        if all(len(g) == 3 for g in head[1:]) and len(head[0]) <= 3:
            vals.append(_decimal("".join(head), frac))
    it = _num(text, start, end, tuple(vals), plain)
    it.ident = not vals
    return it


_SPELLING = frozenset(SMALL) | frozenset(TENS) | frozenset(SCALES) | frozenset(SLANG) | frozenset(
    {"c", "half", "twice", "double", "triple", "thrice", "quarter", "dozen"})
"""Words that can name a number by themselves (or with their neighbours)."""
_EXPRESSION = frozenset({"+", "-", "*", "/", "^", "x", "plus", "minus", "times", "less", "multiplied", "divided",
                         "half", "twice", "double", "triple", "thrice", "quarter", "doubled", "halved",
                         "squared", "under", "below", "beneath", "sub", "<", ">", "over", "above", "past",
                         "beyond", "than", "of", "and"})
"""Words and signs that can start arithmetic or a narrowing comparison."""
_SPELL_START = _SPELLING | frozenset({"a", "an"})
"""Words that can begin a spelled-out number or a counted slang amount."""
_BEFORE, _AFTER = 5, 4
"""How far (in tokens) the guard reads around a number: enough for ``a tiny bit under $101``."""


def _raw_items(folded: str) -> tuple[list[Item], bool, int, bool]:
    """Items for the tokens near anything number-like (far words cannot change a reading).

    Returns the items, whether any is a spelled-out number or slang word, how many are
    numbers, and whether any can start arithmetic or a comparison. Separate windows are
    divided by a barrier symbol so that nothing reads across the gap.
    """
    items: list[Item] = []
    hot: list[int] = []
    spelled = expression = False
    pos = nums = 0
    for space, word, num, sym in TOKEN.findall(folded):
        start = pos + len(space)
        if word:
            pos = start + len(word)
            if word in _SPELLING:
                spelled = True
                hot.append(len(items))
            elif word in _EXPRESSION:
                expression = True
            items.append(Item("word", word, start, pos))
        elif num:
            pos = start + len(num)
            hot.append(len(items))
            nums += 1
            if num[:2] in ("0x", "0b", "0o"):
                items.append(_num(num, start, pos, (int(num, 0) * U,)))
            else:
                items.append(_digit_item(num, start, pos))
        else:
            pos = start + 1
            if sym in _EXPRESSION:
                expression = True
            items.append(Item("sym", sym, start, pos))
    if not hot:
        return [], False, 0, False
    if len(items) <= _BEFORE + _AFTER + 4:
        return items, spelled, nums, expression
    out: list[Item] = []
    last = -1
    for h in hot:
        lo, hi = max(h - _BEFORE, last + 1), min(h + _AFTER, len(items) - 1)
        if lo > hi:
            continue
        if lo > last + 1 and out:
            out.append(Item("sym", "\u00a6", out[-1].end + 2, out[-1].end + 3))
        out.extend(items[lo:hi + 1])
        last = hi
    return out, spelled, nums, expression


def _is_word(it: Item | None, words: frozenset[str] | set[str] | dict) -> bool:
    return it is not None and it.kind == "word" and it.text in words


def _run_word(items: list[Item], k: int, run: list[str]) -> bool:
    """Whether ``items[k]`` continues a spelled-out number whose words so far are ``run``."""
    it = items[k]
    if it.kind != "word":
        return False
    w = it.text
    if is_number_word(w):
        return True
    nxt = items[k + 1] if k + 1 < len(items) else None
    if w in ("a", "an") and not run:
        return _is_word(nxt, SCALES)
    if not run:
        return False
    if w == "and":
        return nxt is not None and nxt.kind == "word" and (is_number_word(nxt.text) or nxt.text in ("a", "an"))
    if w in ("a", "an") and run[-1] == "and":
        return _is_word(nxt, {"half", "quarter"})
    if w in ("half", "quarter"):
        return len(run) >= 2 and run[-1] in ("a", "an") and run[-2] == "and"
    if w in ("oh", "o", "nought", "naught"):
        return _is_word(nxt, DIGIT_WORDS) or (run[-1] in DIGIT_WORDS and _hyphenated(items, k))
    if w == "point":
        return _is_word(nxt, DIGIT_WORDS)
    if w in DIGIT_WORDS:
        return all(x in DIGIT_WORDS or x in ("point",) for x in run)
    return False


def _hyphenated(items: list[Item], k: int) -> bool:
    """``items[k]`` is joined to the word before it by a hyphen (``one-oh-oh``)."""
    return k >= 2 and items[k - 1].text == "-" and items[k - 1].end == items[k].start \
        and items[k - 2].end == items[k - 1].start


def _spelled(items: list[Item]) -> list[Item]:
    """Replace runs of number words (and money slang) by number items."""
    out: list[Item] = []
    n, k = len(items), 0
    while k < n:
        it = items[k]
        if it.kind != "word" or it.text not in _SPELL_START:
            out.append(it)
            k += 1
            continue
        after_number = bool(out) and out[-1].kind == "num" and it.start - out[-1].end <= 1 or (
            len(out) >= 2 and out[-1].text == "-" and out[-1].end == it.start and out[-2].kind == "num")
        if not (after_number and it.text in SCALES) and _run_word(items, k, []):
            run, j, last = [it.text], k + 1, it
            while j < n:
                nxt = items[j]
                if nxt.kind == "sym" and nxt.text == "-" and nxt.start == last.end and j + 1 < n \
                        and items[j + 1].start == nxt.end and _run_word(items, j + 1, run):
                    j += 1
                    continue
                if nxt.text == "," and run[-1] in SCALES and j + 1 < n and _run_word(items, j + 1, run):
                    j += 1  # "one thousand, two hundred"
                    continue
                if nxt.start - last.end > 2 or not _run_word(items, j, run):
                    break
                run.append(nxt.text)
                last = nxt
                j += 1
            while run and (run[-1] in ("and", "a", "an", "point")
                           or (run[-1] in ("oh", "o") and not _hyphenated(items, j - 1))):
                run.pop()
                j -= 1
                while items[j - 1].kind == "sym":
                    j -= 1
            if run and run != ["a"]:
                num = _num(" ".join(run), it.start, items[j - 1].end, tuple(spelled_values(run)))
                num.money = "grand" in run
                out.append(num)
                k = j
                continue
        if it.text in SLANG or it.text == "c":
            slang = _slang(items, k, out)
            if slang is not None:
                num, k = slang
                out.append(num)
                continue
        out.append(it)
        k += 1
    return out


def _slang(items: list[Item], k: int, out: list[Item]) -> tuple[Item, int] | None:
    """``a C-note``, ``two benjamins``, ``a ton``: a money item and the next index, or None."""
    it = items[k]
    w, end_k = it.text, k + 1
    if w == "c" and k + 1 < len(items):
        j = k + 1
        if items[j].text == "-" and j + 1 < len(items):
            j += 1
        if items[j].kind == "word" and items[j].text in ("note", "notes", "spot", "spots"):
            w, end_k = "cnote", j + 1
    if w not in SLANG:
        return None
    prev = out[-1] if out else None
    counted = prev is not None and (prev.kind == "num" or (prev.kind == "word" and prev.text in ("a", "an")))
    nxt = items[end_k] if end_k < len(items) else None
    if w not in FREE_SLANG:
        if not counted or _is_word(nxt, SLANG_SPOILERS):
            return None
        before = out[-2] if len(out) >= 2 else None
        if _is_word(before, COUNT_SPOILERS):
            return None
        if w in ("ton", "yard", "bill", "stack", "rack", "score", "century") and prev.kind == "num":
            return None
        if w in ("dollar", "dollars", "buck", "bucks", "cent", "cents", "penny", "pennies") and prev.kind == "num":
            return None
    num = _num(w, it.start, items[end_k - 1].end, (int(round(SLANG[w] * U)),))
    num.money = num.slang = True
    return num, end_k


def _gap(text: str, a: Item, b: Item) -> str:
    return text[a.end:b.start]


def _join_digits(items: list[Item], folded: str) -> list[Item]:
    """``1 0 0``, ``1-0-0``, ``1 299``, ``4 7 . 2 5``: digits split by spaces or one repeated mark."""
    out: list[Item] = []
    n, k = len(items), 0
    while k < n:
        it = items[k]
        if it.kind == "num" and it.plain is not None and not it.money:
            j, parts, sep, point = k, [it.text], None, -1
            while True:
                nj = j + 1
                if nj < n and items[nj].kind == "sym" and items[nj].text in "-._*/|,":
                    nj += 1
                if nj >= n or items[nj].kind != "num" or items[nj].plain is None:
                    break
                gap = _gap(folded, items[j], items[nj])
                mark = gap.strip()
                if len(gap) > 3 or not (gap.isspace() or (len(mark) == 1 and mark in "-._*/|,")):
                    break
                if mark == "." and sep == "" and point < 0 and gap != mark:  # "4 7 . 2 5"
                    point = len(parts)
                elif sep is None:
                    sep = mark
                elif mark != sep:
                    break
                parts.append(items[nj].text)
                j = nj
            if j > k:
                single = all(len(p) == 1 for p in parts)
                thousands = sep == "" and point < 0 and len(parts[0]) <= 3 and all(len(p) == 3 for p in parts[1:])
                chain = sep in ("-", "/", ".") and len(parts) >= 3
                if (single and (sep == "" or len(parts) >= 3)) or thousands:
                    whole = "".join(parts if point < 0 else parts[:point])
                    value = _decimal(whole, "".join(parts[point:])) if point >= 0 else int(whole) * U
                    merged = _num("".join(parts), it.start, items[j].end, (value,),
                                  int(whole) if point < 0 else None)
                    out.append(merged)
                    k = j + 1
                    continue
                if chain:  # a date, a phone number or a version: none of its parts is money
                    for m in items[k:j + 1]:
                        m.ident = True
        out.append(it)
        k += 1
    return out


def _combine(items: list[Item], folded: str) -> list[Item]:
    """Scales (``0.1k``), exponents (``1e2``), halves, counted slang, and dollars-and-cents."""
    out: list[Item] = []
    n, k = len(items), 0
    while k < n:
        it = items[k]
        if it.kind != "num":
            out.append(it)
            k += 1
            continue
        nxt = items[k + 1] if k + 1 < n else None
        nxt2 = items[k + 2] if k + 2 < n else None
        if nxt is not None and nxt.text == "-" and nxt.start == it.end and nxt2 is not None \
                and nxt2.start == nxt.end and nxt2.kind == "word" and nxt2.text in SCALES:
            del items[k + 1]  # "1-hundred": the hyphen joins a number to its scale
            n -= 1
            nxt, nxt2 = items[k + 1], items[k + 2] if k + 2 < n else None
        attached = nxt is not None and nxt.start == it.end
        if nxt is not None and nxt.kind == "word" and (attached or nxt.start - it.end == 1):
            scale = vocab.SCALE_SUFFIXES.get(nxt.text)
            if scale and (nxt.text != "k" or attached or nxt2 is None or nxt2.kind != "word"
                          or nxt2.text not in vocab.UNIT_WORDS):
                scaled = _num(it.text + nxt.text, it.start, nxt.end, tuple(v * scale for v in it.vals))
                scaled.money = it.money or nxt.text == "grand"
                items[k + 1] = scaled
                k += 1
                continue
            if nxt.text == "e" and attached and nxt2 is not None and nxt2.start == nxt.end:
                sign, x = 1, k + 2
                if nxt2.kind == "sym" and nxt2.text in "+-" and k + 3 < n:
                    sign, x = (-1 if nxt2.text == "-" else 1), k + 3
                exp_item = items[x]
                if exp_item.kind == "num" and exp_item.plain is not None and exp_item.plain <= 12:
                    e = sign * exp_item.plain
                    vals = tuple(v * 10**e if e >= 0 else v // 10 ** -e for v in it.vals)
                    items[x] = _num(it.text + "e", it.start, exp_item.end, vals)
                    k = x
                    continue
        if nxt is not None and nxt.kind == "num" and nxt.plain is not None and nxt2 is not None \
                and nxt2.start == nxt.end and nxt2.text in ("s", "'s") and nxt.start - it.end == 1 \
                and it.vals and it.vals[0] % U == 0 and 0 < it.vals[0] <= 20 * U:  # "four 20s"
            nxt = _num(nxt.text + "s", nxt.start, nxt2.end, nxt.vals)
            nxt.slang = True
            items[k + 1] = nxt
            del items[k + 2]
            n -= 1
        if nxt is not None and nxt.kind == "num" and nxt.slang and nxt.start - it.end <= 1 and not it.money:
            counted = _num(it.text + " " + nxt.text, it.start, nxt.end,
                           tuple(a * b // U for a in it.vals for b in nxt.vals))
            counted.money = counted.slang = True
            items[k + 1] = counted
            k += 1
            continue
        if _is_word(nxt, {"and"}) and _is_word(nxt2, {"a"}) and k + 3 < n:
            part = {"half": U // 2, "quarter": U // 4}.get(items[k + 3].text)
            if part:
                it.vals = tuple(v + part for v in it.vals) + it.vals
        if nxt is not None and nxt.kind == "num" and nxt.plain is not None and nxt.start - it.end == 1 \
                and k + 3 < n and items[k + 2].text == "/" and items[k + 3].kind == "num" \
                and items[k + 3].plain and nxt.plain < items[k + 3].plain <= 8 and it.vals:
            it.vals = it.vals + (it.vals[0] + nxt.plain * U // items[k + 3].plain,)  # 33 1/2
        _dollars_and_cents(it, items, k)
        out.append(it)
        k += 1
    return out


def _dollars_and_cents(it: Item, items: list[Item], k: int) -> None:
    """``33 dollars and 50 cents``, ``$33 and 50c``, ``33 bucks 50``: add the joined reading to ``it``."""
    j = k + 1
    n = len(items)
    if j < n and items[j].kind == "word" and _money_word(items[j].text):
        j += 1
    elif not (k > 0 and items[k - 1].text in vocab.CURRENCY_SYMBOLS):
        return
    if j < n and items[j].text in ("and", ",", "&"):
        j += 1
    if j < n and items[j].kind == "num" and items[j].vals and not items[j].money:
        cents = items[j].vals[0]
        if cents % U or not 0 < cents < 100 * U:
            return
        tail = items[j + 1] if j + 1 < n else None
        if j == k + 1 and not (tail is not None and tail.text in vocab.CENTS_WORDS):
            return
        it.vals = it.vals + tuple(v + cents // 100 for v in it.vals[:1])


def _money_word(w: str) -> bool:
    return w in vocab.CURRENCY_WORDS or w.startswith(vocab.MONEY_MORPHEMES)


# -- arithmetic and narrowing ----------------------------------------------------------

_BINARY = {"+": "+", "-": "-", "*": "*", "/": "/", "^": "^", "plus": "+", "minus": "-", "times": "*",
           "x": "*", "less": "-", "multiplied": "*", "divided": "/"}
_UNARY_BEFORE = {"half": (1, 2), "twice": (2, 1), "double": (2, 1), "triple": (3, 1), "thrice": (3, 1),
                 "quarter": (1, 4)}
_UNARY_AFTER = {"doubled": (2, 1), "halved": (1, 2), "squared": None}
_OPERATORS = frozenset(_BINARY) | {"and"}
_UNARY_WORDS = frozenset(_UNARY_BEFORE) | frozenset(_UNARY_AFTER)
_COMPARE_WORDS = frozenset({"under", "below", "beneath", "sub", "<", ">", "over", "above", "past", "beyond",
                            "less", "more", "lower", "higher", "greater", "cheaper", "fewer", "pricier",
                            "dearer", "short", "shy", "north", "south"})


def _apply(a: int, op: str, b: int) -> int | None:
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
    op = _BINARY.get(it.text) if it.kind in ("sym", "word") else None
    if op is None:
        return None
    if it.text == "less" and _is_word(nxt, {"than"}):
        return None
    if it.text in ("multiplied", "divided"):
        return (op, k + 2) if _is_word(nxt, {"by"}) else None
    return op, k + 1


def _skip_money(items: list[Item], k: int, forward: bool) -> int:
    step = 1 if forward else -1
    while 0 <= k < len(items) and (items[k].text in vocab.CURRENCY_SYMBOLS
                                  or (forward and items[k].kind == "word" and _money_word(items[k].text))):
        k += step
    return k


def _expressions(items: list[Item], nums: int) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """``(first, last, values)`` of every arithmetic or narrowing reading spanning ``items[first..last]``."""
    n = len(items)
    present = {it.text for it in items if it.kind != "num"}
    arithmetic = nums > 1 and not present.isdisjoint(_OPERATORS)
    unary = not present.isdisjoint(_UNARY_WORDS)
    narrowing = not present.isdisjoint(_COMPARE_WORDS)
    split = nums > 1 and any(a.kind == "num" and b.kind == "num" and b.start - a.end == 1
                             for a, b in zip(items, items[1:], strict=False))
    for k, it in enumerate(items):
        if it.kind != "num" or not it.vals:
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
            if found is None and items[j].slang and _is_word(items[at] if at < n else None, {"and"}):
                found = "+", at + 1  # two c-notes and a fifty
            if found is None:
                break
            op, m = found
            while m < n and (items[m].text in vocab.CURRENCY_SYMBOLS or _is_word(items[m], {"a", "an"})):
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
    s = _skip_money(items, s, False) if before.kind == "word" and _money_word(before.text) else s
    if before.kind == "word" and _money_word(before.text):
        s -= 1
    if s >= 0 and items[s].kind == "num" and items[s].vals:
        step = items[s]
        cents = _is_word(items[s + 1] if s + 1 < len(items) else None, vocab.CENTS_WORDS)
        steps = tuple(v // 100 if cents and not step.money else v for v in step.vals[:1])
        yield s, k, tuple(v + direction * st for v in it.vals for st in steps if v + direction * st > 0)


# -- context -----------------------------------------------------------------------------

def _bound_after(items: list[Item], j: int, money: list[bool], cents: list[bool]) -> bool:
    """Whether the words after ``items[j]`` bind it to a unit, a percentage or a rank."""
    n = len(items)
    if j + 1 >= n:
        return False
    last, r = items[j], items[j + 1]
    r2 = items[j + 2] if j + 2 < n else None
    attached = r.start == last.end
    if r.kind == "sym":
        t = r.text
        if t in vocab.CURRENCY_SYMBOLS:
            money[0] = True
            return False
        if t == "¢":
            cents[0] = True
            return False
        if t == "%" or t in vocab.UNIT_WORDS:  # 100%, 90°
            return True
        if t == '"':  # 12" (inches), unless the number is quoted: "100"
            return not (j > 0 and items[j - 1].text == '"')
        if r2 is None or r2.start - r.end > 1:
            return False
        if t == "-" and attached and r2.start == r.end:
            if r2.kind == "word":
                w = r2.text
                if _money_word(w):
                    money[0] = True
                    return False
                if w in vocab.CENTS_WORDS:
                    cents[0] = True
                    return False
                return w not in vocab.APPROX_WORDS
            if r2.kind == "num":  # a range: bound as its other end is
                return _bound_after(items, j + 2, [False], [False])
        if t in ("/", ":") and attached and r2.kind == "num" and r2.start == r.end:
            return True
        if t == "+" and r2.kind == "word":
            return r2.text in vocab.UNIT_WORDS or _is_count(r2.text)
        return False
    if r.kind != "word":
        return False
    w = r.text
    if _money_word(w):
        money[0] = True
        return False
    if w in vocab.CENTS_WORDS and (attached or w not in ("c", "ct")):
        cents[0] = True
        return False
    if attached:
        return w not in vocab.APPROX_WORDS
    if r2 is not None and r2.text == "/" and r2.start == r.end:
        return False  # "100 w/ shipping"
    if w in vocab.UNIT_WORDS or w in vocab.DURATION_WORDS or w in vocab.PERCENT_WORDS or w in vocab.RANK_AFTER:
        return True
    if w in vocab.RELATIVE_AFTER or _is_unit_like(w):
        return True
    if r2 is None:
        return _is_count(w)
    w2 = r2.text
    if w == "per" and w2 in ("cent", "centum"):
        return True
    if w == "of" and w2 in vocab.OF_COUNTED:
        return True
    if (w == "out" and w2 == "of") or (w == "in" and w2 in ("stock", "inventory", "store")):
        return True
    if w in ("to", "or", "and", "through", "thru") and r2.kind == "num":
        return _bound_after(items, j + 2, [False], [False])
    if w2 in vocab.STREET_WORDS:
        return True  # "100 Main Street"
    if _is_count(w):
        return True
    # one describing word between the number and its unit: "12 AA batteries", "100 red apples"
    return r2.kind == "word" and w not in vocab.PRICE_FOLLOWERS and "'" not in w and r2.start - r.end == 1 \
        and w2[-1] == "s" and (w2 in vocab.UNIT_WORDS or _is_count(w2)) and not _money_word(w2)


def _is_count(w: str) -> bool:
    """A plural noun after a number makes it a count (``100 subscribers``, ``100 widgets``), verbs aside."""
    if w in vocab.VERBISH or w in vocab.NOT_UNITS:
        return False
    if w.endswith(vocab.COUNT_SUFFIXES):
        return True
    return len(w) >= 4 and w[-1] == "s" and not w.endswith(("ss", "us", "is", "'s"))


_VOWELS = frozenset("aeiouy")


def _is_unit_like(w: str) -> bool:
    """A short vowel-less abbreviation after a number is a unit (``mpg``, ``cfm``), chat slang aside."""
    return 2 <= len(w) <= 4 and w not in vocab.NOT_UNITS and _VOWELS.isdisjoint(w)


def _bound_before(items: list[Item], i: int, money: list[bool]) -> bool:
    """Whether the words before ``items[i]`` make it money, or an identifier, size, rank or count."""
    if i == 0:
        return False
    first, left = items[i], items[i - 1]
    l2 = items[i - 2] if i >= 2 else None
    attached = left.end == first.start
    if left.kind == "sym":
        t = left.text
        if t in vocab.CURRENCY_SYMBOLS:
            money[0] = True
            return False
        if t in "#№":
            return True
        if attached and l2 is not None and l2.end == left.start and t in "-/_:.=":
            if l2.kind == "word":
                if _money_word(l2.text):
                    money[0] = True
                    return False
                return t not in ":=" or l2.text in vocab.ID_WORDS  # L-0095, ord-0095, path/100; not price=100
            return t in ":/"  # 10:00, 100/100
        # "item - 100", "No. 100"
        return t in "-." and l2 is not None and l2.kind == "word" and (l2.text in vocab.ID_WORDS or l2.text == "no") \
            and (t == "-" or l2.end == left.start)
    if left.kind != "word":
        return False
    w = left.text
    if _money_word(w) or w in ("rs", "us"):
        if w not in ("money", "cash", "big", "bills", "us") or attached:
            money[0] = True
        return False
    if attached:
        return True  # a100, sku100, v2
    if w in vocab.ID_WORDS or w in vocab.QUANTITY_VERBS:
        return not (l2 is not None and l2.text in ("per", "each", "a", "an") and w in ("item", "unit", "piece"))
    if w == "of" and l2 is not None and (l2.kind == "num" or (l2.kind == "word" and (
            l2.text in vocab.CONTAINER_WORDS or l2.text in vocab.SCORE_BEFORE))):
        return True  # "a pack of 100", "out of 100", "3 of 100"
    if w in vocab.YEAR_BEFORE and first.plain is not None and 1800 <= first.plain <= 2099 and len(first.text) == 4:
        return True
    return _measured(items, i)


def _measured(items: list[Item], i: int) -> bool:
    """``thread count is 3350``, ``weight: 9000``: a measure noun shortly before the number."""
    k = i - 1
    while k >= 0 and i - k <= 3 and items[k].text in ("is", "was", "of", "=", ":", "about", "around", "approx",
                                                       "approximately", "roughly", "~", "its", "it's", "just",
                                                       "up", "to", "at"):
        k -= 1
    return k >= 0 and items[k].kind == "word" and items[k].text in vocab.MEASURE_NOUNS


def _readings(items: list[Item], i: int, j: int, vals: tuple[int, ...], plain: int | None,
              own_money: bool) -> tuple[int, ...]:
    """The money values of ``items[i..j]`` read as ``vals``: empty when the context binds it."""
    money, cents = [own_money], [False]
    before = _bound_before(items, i, money)
    after = _bound_after(items, j, money, cents)
    if not money[0] and (before or after or items[i].ident):
        return ()
    if cents[0] and not own_money:
        return tuple(v // 100 for v in vals)
    if plain is not None and plain >= 100 and not money[0]:
        return vals + (plain * U // 100,)
    return vals


Candidate = tuple[list[Item], int, int, tuple[int, ...], "int | None", bool]
"""``(items, first, last, values, plain integer, says money itself)``: one way to read part of a text."""


def _candidates(text: str) -> Iterator[Candidate]:
    """Every number in ``text`` and every arithmetic or narrowing reading, before their context is read."""
    if not text:
        return
    folded = fold(text)
    items, spelled, nums, expression = _raw_items(folded)
    if not items:
        return
    if spelled:
        items = _spelled(items)
    if nums > 1:
        items = _join_digits(items, folded)
    items = _combine(items, folded)
    for k, it in enumerate(items):
        if it.vals:
            yield items, k, k, it.vals, it.plain, it.money
    if spelled:
        nums = sum(1 for it in items if it.kind == "num")
    if nums > 1 or expression or spelled:
        for i, j, vals in _expressions(items, nums):
            yield items, i, j, vals, None, items[i].money or items[j].money


def amounts(text: str) -> list[int]:
    """Every amount, in :data:`U` units, that ``text`` could be read as naming as money."""
    found: list[int] = []
    for items, i, j, vals, plain, money in _candidates(text):
        found.extend(_readings(items, i, j, vals, plain, money))
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
        for v in _readings(items, i, j, vals, plain, money):
            for t in near:
                if abs(v - t) < within:
                    return t
    return None
