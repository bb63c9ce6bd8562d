"""Joining tokens into numbers: spelled-out runs, money slang, split digits, scales, dollars and cents.

``a hundred and five``, ``two C-notes``, ``1 0 0``, ``0.1k``, ``1e2``, ``33 dollars and 50
cents``, ``33 and a half``: each becomes one number item (or gains a reading).
"""

from __future__ import annotations

import contextlib

from . import amount_words as vocab
from .numitems import Item, decimal_value, is_word, money_word, num_item
from .numwords import (
    COUNT_SPOILERS,
    DIGIT_WORDS,
    FREE_SLANG,
    SCALES,
    SLANG,
    SLANG_SPOILERS,
    U,
    is_number_word,
    spelled_values,
)


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
        return is_word(nxt, SCALES)
    if not run:
        return False
    if w == "and":
        return nxt is not None and nxt.kind == "word" and (is_number_word(nxt.text) or nxt.text in ("a", "an"))
    if w in ("a", "an") and run[-1] == "and":
        return is_word(nxt, {"half", "quarter"})
    if w in ("half", "quarter"):
        return len(run) >= 2 and run[-1] in ("a", "an") and run[-2] == "and"
    if w in ("oh", "o", "nought", "naught"):
        return is_word(nxt, DIGIT_WORDS) or (run[-1] in DIGIT_WORDS and _hyphenated(items, k))
    if w == "point":
        return is_word(nxt, DIGIT_WORDS)
    if w in DIGIT_WORDS:
        return all(x in DIGIT_WORDS or x in ("point",) for x in run)
    return False


def _hyphenated(items: list[Item], k: int) -> bool:
    """``items[k]`` is joined to the word before it by a hyphen (``one-oh-oh``)."""
    return k >= 2 and items[k - 1].text == "-" and items[k - 1].end == items[k].start \
        and items[k - 2].end == items[k - 1].start


def spelled(items: list[Item], starts: list[int]) -> list[Item]:
    """Replace runs of number words (and money slang), beginning at ``starts``, by number items."""
    if not starts:
        return items
    out: list[Item] = []
    n, done = len(items), 0
    for k in starts:
        if k < done:
            continue  # inside a run already read
        out.extend(items[done:k])
        done = k + 1
        it = items[k]
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
                num = num_item(" ".join(run), it.start, items[j - 1].end, tuple(spelled_values(run)))
                num.money = "grand" in run
                out.append(num)
                done = j
                continue
        if it.text in SLANG or it.text == "c":
            slang = _slang(items, k, out)
            if slang is not None:
                num, done = slang
                out.append(num)
                continue
        out.append(it)
    out.extend(items[done:])
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
        if not counted or is_word(nxt, SLANG_SPOILERS):
            return None
        before = out[-2] if len(out) >= 2 else None
        if is_word(before, COUNT_SPOILERS):
            return None
        if w in ("ton", "yard", "bill", "stack", "rack", "score", "century") and prev.kind == "num":
            return None
        if w in ("dollar", "dollars", "buck", "bucks", "cent", "cents", "penny", "pennies") and prev.kind == "num":
            return None
    num = num_item(w, it.start, items[end_k - 1].end, (int(round(SLANG[w] * U)),))
    num.money = num.slang = True
    return num, end_k


def _gap(text: str, a: Item, b: Item) -> str:
    return text[a.end:b.start]


def join_digits(items: list[Item], folded: str) -> list[Item]:
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
                    value = decimal_value(whole, "".join(parts[point:])) if point >= 0 else int(whole) * U
                    merged = num_item("".join(parts), it.start, items[j].end, (value,),
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


_BASES = {"binary": 2, "bin": 2, "octal": 8, "oct": 8, "hex": 16, "hexadecimal": 16}


def combine(items: list[Item]) -> list[int]:
    """Scales (``0.1k``), exponents (``1e2``), halves, counted slang, and dollars-and-cents.

    Works in place: a number that joins what follows it is replaced by the joined number (which
    may join again). Returns where the numbers are, once joined.
    """
    found: list[int] = []
    start = 0
    for target in [it for it in items if it.kind == "num"]:
        try:
            k = items.index(target, start)
        except ValueError:
            continue  # joined into the number before it
        while _join_next(items, k):
            pass
        found.append(k)
        start = k + 1
    return found


def _join_next(items: list[Item], k: int) -> bool:
    """Join the number at ``k`` with what follows it; True if ``items[k]`` was replaced (try again)."""
    it = items[k]
    n = len(items)
    if k + 1 == n:
        return False
    nxt = items[k + 1]
    nxt2 = items[k + 2] if k + 2 < n else None
    kind = nxt.kind
    if kind == "sym" and nxt.text == "-" and nxt.start == it.end and nxt2 is not None \
            and nxt2.start == nxt.end and nxt2.kind == "word" and nxt2.text in SCALES:
        del items[k + 1]  # "1-hundred": the hyphen joins a number to its scale
        return True
    if kind == "word":
        if _word_after(it, items, k):
            return True
    elif kind == "num" and nxt.start - it.end <= 1:
        if nxt.plain is not None and nxt2 is not None and nxt2.start == nxt.end \
                and nxt2.text in ("s", "'s") and nxt.start - it.end == 1 \
                and it.vals and it.vals[0] % U == 0 and 0 < it.vals[0] <= 20 * U:  # "four 20s"
            nxt = num_item(nxt.text + "s", nxt.start, nxt2.end, nxt.vals)
            nxt.slang = True
            items[k + 1] = nxt
            del items[k + 2]
            n -= 1
        if nxt.slang and not it.money:  # "two C-notes"
            counted = num_item(it.text + " " + nxt.text, it.start, nxt.end,
                               tuple(a * b // U for a in it.vals for b in nxt.vals))
            counted.money = counted.slang = True
            items[k + 1] = counted
            del items[k]
            return True
        if k + 4 < n and nxt2 is not None and nxt2.text == "-" and money_word(items[k + 3].text) \
                and items[k + 4].text in ("bill", "bills", "note", "notes") and it.vals and nxt.vals:
            it.vals = it.vals + (it.vals[0] * nxt.vals[0] // U,)  # "10 ten-dollar bills"
        if nxt.plain is not None and k + 3 < n and nxt2 is not None and nxt2.text == "/" \
                and items[k + 3].kind == "num" and items[k + 3].plain and nxt.plain < items[k + 3].plain <= 8 \
                and it.vals:
            it.vals = it.vals + (it.vals[0] + nxt.plain * U // items[k + 3].plain,)  # 33 1/2
    if (kind == "word" and money_word(nxt.text)) or (k > 0 and items[k - 1].text in vocab.CURRENCY_SYMBOLS):
        _dollars_and_cents(it, items, k)
    return False


def _word_after(it: Item, items: list[Item], k: int) -> bool:
    """Join ``it`` with the word after it (scales, exponents, bases, halves); True if ``it`` was replaced."""
    nxt = items[k + 1]
    n = len(items)
    nxt2 = items[k + 2] if k + 2 < n else None
    w = nxt.text
    attached = nxt.start == it.end
    if attached or nxt.start - it.end == 1:
        scale = vocab.SCALE_SUFFIXES.get(w)
        if scale and (w != "k" or attached or nxt2 is None or nxt2.kind != "word"
                      or nxt2.text not in vocab.UNIT_WORDS):
            scaled = num_item(it.text + w, it.start, nxt.end, tuple(v * scale for v in it.vals))
            scaled.money = it.money or w == "grand"
            items[k + 1] = scaled
            del items[k]
            return True
        if w == "e" and attached and nxt2 is not None and nxt2.start == nxt.end:
            sign, x = 1, k + 2
            if nxt2.kind == "sym" and nxt2.text in "+-" and k + 3 < n:
                sign, x = (-1 if nxt2.text == "-" else 1), k + 3
            exp_item = items[x]
            if exp_item.kind == "num" and exp_item.plain is not None and exp_item.plain <= 12:
                e = sign * exp_item.plain
                vals = tuple(v * 10**e if e >= 0 else v // 10 ** -e for v in it.vals)
                items[x] = num_item(it.text + "e", it.start, exp_item.end, vals)
                del items[k:x]
                return True
    if w == "in" and nxt2 is not None and nxt2.text in _BASES and it.text.isdigit():
        with contextlib.suppress(ValueError):  # "1100100 in binary", "64 in hex"
            it.vals = it.vals + (int(it.text, _BASES[nxt2.text]) * U,)
    elif w == "and" and nxt2 is not None and nxt2.text == "a" and k + 3 < n:
        part = {"half": U // 2, "quarter": U // 4}.get(items[k + 3].text)
        if part:
            it.vals = tuple(v + part for v in it.vals) + it.vals
    return False


def _dollars_and_cents(it: Item, items: list[Item], k: int) -> None:
    """``33 dollars and 50 cents``, ``$33 and 50c``, ``33 bucks 50``: add the joined reading to ``it``."""
    j = k + 1
    n = len(items)
    if j < n and items[j].kind == "word" and money_word(items[j].text):
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
