"""The context of a number: money, a count of cents, or bound to something that is not money.

A number is money next to a currency; it is a count of cents before ``cents``; it is not
money when bound to a unit (``100 units``, ``90-day``), an identifier (``SKU 100-A``,
``L-0095``), a percentage, a duration, a rank or a measure (``thread count is 3350``).
Anything else standing alone may be money.
"""

from __future__ import annotations

from . import amount_words as vocab
from .numitems import Item, money_word
from .numwords import U


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
                if money_word(w):
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
    if money_word(w):
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
        and w2[-1] == "s" and (w2 in vocab.UNIT_WORDS or _is_count(w2)) and not money_word(w2)


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
                if money_word(l2.text):
                    money[0] = True
                    return False
                return t not in ":=" or l2.text in vocab.ID_WORDS  # L-0095, ord-0095, path/100; not price=100
            return t in ":/"  # 10:00, 100/100
        # "item - 100", "No. 100"
        return t in "-." and l2 is not None and l2.kind == "word" and (l2.text in vocab.ID_WORDS or l2.text == "no") \
            and (t == "-" or (l2.end == left.start and first.text[:1].isdigit()))
    if left.kind != "word":
        return False
    w = left.text
    if money_word(w) or w in ("rs", "us"):
        if w not in ("money", "cash", "big", "bills", "us") or attached:
            money[0] = True
        return False
    if attached:
        return True  # a100, sku100, v2
    if w in vocab.ID_WORDS or w in vocab.QUANTITY_VERBS:
        return not (l2 is not None and l2.text in ("per", "each", "a", "an") and w in ("item", "unit", "piece"))
    if w in vocab.PRICE_ABBREVIATIONS:
        money[0] = True  # "MSRP 100"
        return False
    if _is_unit_like(w):
        return True  # "SPF 100", "HDMI 2", "PO 90": a code before the number names it
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


def readings(items: list[Item], i: int, j: int, vals: tuple[int, ...], plain: int | None,
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
