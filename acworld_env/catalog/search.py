"""Query evaluation over the column arrays (and FTS5 for text).

A :class:`SearchQuery` becomes a list of filters. Each filter can *test* a set of
candidate rows with one vectorised gather (``np.take``, several times faster than
fancy indexing with int32 row arrays), and most can also *produce* the rows that
satisfy it (a category's member list, a price range in price order, an option
value's postings, the listings of the products FTS5 matched), with an exact size
known in advance. The smallest producer seeds the candidates, the other filters
test them, and the survivors are the exact match set: its size is the total, and a
precomputed rank per sort order picks the requested page with a partial sort.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .colstore import ColumnStore
from .models import AttrRange, SearchQuery
from .textutil import fold, option_key

MAX_TEXT_TERMS = 16
STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "i", "in", "is", "it", "me", "my", "of", "on", "or", "please", "some", "the", "to", "with"]
)
_WORD_RE = re.compile(r"[^\W_]+(\*?)")

FtsLookup = Callable[[str, bool], np.ndarray]
"""``(expression, ranked) -> product indices`` (best first when ranked)."""


def fts_expression(text: str | None) -> str | None:
    """An FTS5 expression for free ``text``: its words, quoted, all required.

    Punctuation, quotes and FTS5 operators in user text never reach FTS5 as syntax.
    Common English stop words are dropped unless nothing else is left; a word
    followed by ``*`` is a prefix. Returns ``None`` when the text has no words.
    """
    if not text:
        return None
    terms = [(m.group(0).rstrip("*").lower(), bool(m.group(1))) for m in _WORD_RE.finditer(text)]
    if not terms:
        return None
    content = [t for t in terms if t[0] not in STOPWORDS] or terms
    seen: list[tuple[str, bool]] = []
    for t in content:
        if t not in seen:
            seen.append(t)
    return " ".join(f'"{w}"' + ("*" if prefix else "") for w, prefix in seen[:MAX_TEXT_TERMS])


@dataclass
class _Filter:
    size: int | None
    source: Callable[[], np.ndarray] | None
    test: Callable[[np.ndarray], np.ndarray]


class _Empty(Exception):
    """A filter no listing can satisfy."""


def _compact(rows: np.ndarray, keep: np.ndarray, kept: int) -> np.ndarray:
    """``rows[keep]`` (``kept`` of them). Boolean indexing branches on every element and is slow
    on a mixed mask (up to 7 ns a row at half true); indexing by the positions is not."""
    if kept * 16 >= rows.size * 15:
        return rows[keep]
    return rows.take(np.flatnonzero(keep))


class SearchEngine:
    """Evaluates queries against one catalog's :class:`ColumnStore`."""

    def __init__(self, cols: ColumnStore, fts: FtsLookup) -> None:
        self.cols = cols
        self.fts = fts

    # -- filters ---------------------------------------------------------------------------
    def _group(self, field: str, value: str) -> _Filter:
        cols = self.cols
        codes = cols.group_codes(field, value)
        if not codes:
            raise _Empty
        column = cols.array(f"{field}.codes")
        if len(codes) == 1:
            code = codes[0]
            test = lambda c: column.take(c) == code  # noqa: E731
        else:  # several spellings of one name ("T-Shirts", "t-shirts"): a lookup table by code
            wanted = np.zeros(len(cols.group_names[field]), dtype=bool)
            wanted[codes] = True
            test = lambda c: wanted.take(column.take(c))  # noqa: E731
        return _Filter(cols.group_size(field, codes), lambda: cols.group_rows(field, codes), test)

    def _price(self, lo: int | None, hi: int | None) -> _Filter:
        cols = self.cols
        values = cols.array("sorted.price.values")
        i = 0 if lo is None else int(np.searchsorted(values, lo, "left"))
        j = values.size if hi is None else int(np.searchsorted(values, hi, "right"))
        if j <= i:
            raise _Empty
        rank = cols.array("rank.price_asc")  # rows i..j-1 in price order are those in range

        def test(c: np.ndarray) -> np.ndarray:
            r = rank.take(c)
            if i == 0:
                return r < j
            return r >= i if j == values.size else (r >= i) & (r < j)
        return _Filter(j - i, lambda: cols.array("sorted.price.rows")[i:j], test)

    def _rating(self, minimum: float) -> _Filter:
        cols = self.cols
        neg = cols.array("sorted.rating.values")
        j = int(np.searchsorted(neg, -minimum, "right"))
        if j == 0:
            raise _Empty
        rank = cols.array("rank.rating_desc")  # the first j rows in rating order are those rated >= minimum
        return _Filter(j, lambda: cols.array("sorted.rating.rows")[:j], lambda c: rank.take(c) < j)

    def _facet(self, kind: str, key: str, value: object) -> _Filter:
        cols = self.cols
        if isinstance(value, AttrRange):
            vtype = "n"
        elif isinstance(value, bool):
            vtype = "b"
        elif isinstance(value, int | float):
            vtype = "n"
        else:
            vtype = "s"
        facet = cols.facets.get((kind, option_key(key), vtype))
        if facet is None:
            raise _Empty
        if vtype == "n":
            if isinstance(value, AttrRange):
                lo, hi = value.min, value.max
            else:
                lo = hi = float(value)  # type: ignore[arg-type]
            sv = cols.array(f"f{facet.fid}.sorted.values")
            i = 0 if lo is None else int(np.searchsorted(sv, lo, "left"))
            j = sv.size if hi is None else int(np.searchsorted(sv, hi, "right"))
            if j <= i:
                raise _Empty
            # As codes: the distinct values in [lo, hi] are numbers[a:b] (a NaN bound matches nothing).
            numbers = cols.facet_numbers(facet)
            a = 0 if lo is None else int(np.searchsorted(numbers, lo, "left"))
            b = numbers.size if hi is None else int(np.searchsorted(numbers, hi, "right"))
            if (lo is not None and np.isnan(lo)) or (hi is not None and np.isnan(hi)):
                a = b = 0

            def check(v: np.ndarray) -> np.ndarray:
                return (v >= a) & (v < b)
            source = lambda: cols.array(f"f{facet.fid}.sorted.rows")[i:j]  # noqa: E731
            size = j - i
        else:
            code = int(value) if vtype == "b" else facet.values.get(fold(value))
            if code is None:
                raise _Empty
            offsets = cols.array(f"f{facet.fid}.offsets")
            a, b = int(offsets[code]), int(offsets[code + 1])
            if b <= a:
                raise _Empty
            posting = cols.array(f"f{facet.fid}.postings")[a:b]
            check = lambda v: v == code  # noqa: E731
            source = lambda: posting  # noqa: E731
            size = b - a
        return _Filter(size, source, lambda c: check(cols.dense(facet).take(c)))

    def _text(self, prods: np.ndarray) -> _Filter:
        cols = self.cols
        if prods.size == 0:
            raise _Empty
        prod = cols.array("prod")
        mask = np.zeros(cols.n_products, dtype=bool)
        mask[prods] = True
        return _Filter(cols.product_sizes(prods), lambda: cols.product_rows(prods),
                       lambda c: mask.take(prod.take(c)))

    def _filters(self, q: SearchQuery, prods: np.ndarray | None) -> list[_Filter]:
        out: list[_Filter] = []
        if prods is not None:
            out.append(self._text(prods))
        if q.category is not None:
            out.append(self._group("category", q.category))
        if q.brand is not None:
            out.append(self._group("brand", q.brand))
        if q.merchant_id is not None:
            out.append(self._group("merchant", q.merchant_id))
        if q.min_price is not None or q.max_price is not None:
            out.append(self._price(q.min_price, q.max_price))
        if q.min_rating is not None:
            out.append(self._rating(q.min_rating))
        if q.in_stock is not None:
            stock = self.cols.array("in_stock")
            want = 1 if q.in_stock else 0
            out.append(_Filter(None, None, lambda c: stock.take(c) == want))
        for k, v in q.options.items():
            out.append(self._facet("o", k, v))
        for k, v in q.attributes.items():
            out.append(self._facet("a", k, v))
        return out

    # -- evaluation ------------------------------------------------------------------------
    def matches(self, q: SearchQuery) -> tuple[np.ndarray, np.ndarray]:
        """All matching rows and their sort keys (unique, ascending = result order)."""
        expr = fts_expression(q.text)
        ranked = expr is not None and q.sort == "relevance"
        prods = self.fts(expr, ranked) if expr is not None else None
        empty = np.empty(0, dtype=np.int64)
        try:
            filters = self._filters(q, prods)
        except _Empty:
            return empty, empty
        seeded = [f for f in filters if f.source is not None]
        if seeded:
            base = min(seeded, key=lambda f: f.size or 0)
            cand = base.source()  # type: ignore[misc]
            rest = sorted((f for f in filters if f is not base), key=lambda f: f.size or self.cols.n)
        else:
            cand = np.arange(self.cols.n, dtype=np.int32)
            rest = filters
        # The tests' masks are combined, and the candidates compacted only once fewer than half
        # of them are left: compacting costs about as much as two more tests over all of them.
        keep: np.ndarray | None = None
        for f in rest:
            keep = f.test(cand) if keep is None else keep & f.test(cand)
            kept = int(np.count_nonzero(keep))
            if kept * 2 < cand.size:
                cand, keep = _compact(cand, keep, kept), None
                if kept == 0:
                    break
        if keep is not None:
            cand = _compact(cand, keep, kept)
        return cand, self._keys(q, cand, prods if ranked else None)

    def _keys(self, q: SearchQuery, cand: np.ndarray, ranked: np.ndarray | None) -> np.ndarray:
        cols = self.cols
        if q.sort == "relevance":
            if ranked is None:
                return cand
            pos = np.full(cols.n_products, cols.n_products, dtype=np.int64)
            pos[ranked] = np.arange(ranked.size, dtype=np.int64)
            return pos.take(cols.array("prod").take(cand)) * cols.n + cand
        return cols.array(f"rank.{q.sort}").take(cand)

    def page(self, q: SearchQuery) -> tuple[int, list[int]]:
        """``(total, rows of the requested page in order)``."""
        cand, keys = self.matches(q)
        total = int(cand.size)
        start = (q.page - 1) * q.page_size
        if start >= total:
            return total, []
        stop = min(start + q.page_size, total)
        if total <= 256 or stop * 4 >= total:
            order = np.argsort(keys)[start:stop]
        else:  # the stop-th smallest key bounds the first `stop` rows (keys are unique)
            kth = np.partition(keys, stop - 1)[stop - 1]
            part = np.flatnonzero(keys <= kth)
            order = part[np.argsort(keys[part])][start:stop]
        return total, cand[order].tolist()

    def ordered(self, q: SearchQuery) -> list[int]:
        """Every matching row, in result order (no paging)."""
        cand, keys = self.matches(q)
        return cand[np.argsort(keys)].tolist()
