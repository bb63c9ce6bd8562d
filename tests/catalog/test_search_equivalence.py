"""The search path gives the same answers as before its speed work (issue 19).

:func:`results_digest` runs a seeded mix of filter+sort+page and text queries (every sort, pages
1-6, page sizes 1-50, options, attribute equalities and ranges, ratings, stock) through
``Catalog.search``, ``Catalog.search_ids``, ``Catalog.count`` and ``Catalog.oracle_ids`` and hashes
every answer: totals, page items as full records (``model_dump``), ids and full orders.
``data/search_digests.json`` holds the digests the search path gave before that work (commit
54699f4); the tests compare the current path with them. The full-size ``large-v1`` check is slow.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from acworld_env.catalog import Catalog, Listing
from acworld_env.catalog.schema import LISTING_SELECT
from acworld_env.catalog.store import _listing
from acworld_env.catalog.synth import SynthConfig, synthesize

DIGESTS = json.loads((Path(__file__).parent / "data" / "search_digests.json").read_text())
LARGE_CI = SynthConfig(name="large-ci", listings=4000, merchants=40, seed=20240601)
"""The large track's CI catalog (``tests/large/conftest.py``): the large-v1 generator, 4,000 listings."""


def _query(rng: random.Random, pool: list[Any], words: list[str]) -> dict[str, Any]:
    x = rng.choice(pool)
    q: dict[str, Any] = {}
    pick = rng.random()
    if pick < 0.55 and x.category:
        q["category"] = x.category.upper() if rng.random() < 0.1 else x.category
    elif pick < 0.65:
        q["brand"] = x.brand
    elif pick < 0.72:
        q["merchant_id"] = x.merchant_id
    if rng.random() < 0.15:
        q["text"] = " ".join(rng.sample(words, rng.choice([1, 1, 2])))
    if rng.random() < 0.6:
        q["max_price"] = int(x.price * rng.uniform(1.0, 2.0))
    if rng.random() < 0.2:
        q["min_price"] = int(x.price * rng.uniform(0.3, 1.0))
    if rng.random() < 0.5:
        q["in_stock"] = rng.random() < 0.85
    if rng.random() < 0.2:
        q["min_rating"] = rng.choice([0, 3.5, 4.0, 4.5])
    if x.options and rng.random() < 0.35:
        k = rng.choice(sorted(x.options))
        q["options"] = {k.title() if rng.random() < 0.3 else k: x.options[k]}
    if x.attributes and rng.random() < 0.35:
        k = rng.choice(sorted(x.attributes))
        v = x.attributes[k]
        numeric = isinstance(v, int | float) and not isinstance(v, bool)
        roll = rng.random()
        if numeric and roll < 0.4:
            q["attributes"] = {k: {"min": v * 0.8, "max": v * 1.5}}
        elif numeric and roll < 0.55:
            q["attributes"] = {k: {"min": v}} if rng.random() < 0.5 else {k: {"max": v}}
        else:
            q["attributes"] = {k: v}
    q["sort"] = rng.choice(["relevance", "price_asc", "price_desc", "rating_desc"])
    q["page"] = rng.choice([1, 1, 1, 2, 3, 6])
    q["page_size"] = rng.choice([1, 10, 10, 20, 50])
    return q


def queries(cat: Catalog, n: int, seed: int = 19) -> list[dict[str, Any]]:
    """``n`` seeded queries built around the catalog's own listings."""
    rng = random.Random(seed)
    ids = cat.oracle_ids({})
    pool = cat.get_many(sorted(rng.sample(ids, min(len(ids), 2000))))
    words = sorted({w.lower() for x in pool[:300] for w in x.title.split() if w.isalpha() and len(w) > 3})
    return [_query(rng, pool, words) for _ in range(n)]


def results_digest(cat: Catalog, n: int, seed: int = 19, *, full_orders: bool = True) -> str:
    """SHA-256 over every answer to :func:`queries` (see the module docstring)."""
    h = hashlib.sha256()
    for q in queries(cat, n, seed):
        page = cat.search(q)
        total, ids = cat.search_ids(q)
        assert total == page.total and ids == [x.listing_id for x in page.items], q
        answer: dict[str, Any] = {"q": q, "total": page.total, "items": [x.model_dump() for x in page.items]}
        if full_orders:
            answer["count"] = cat.count(q)
            answer["order"] = cat.oracle_ids(q)
        h.update(json.dumps(answer, sort_keys=True, separators=(",", ":")).encode())
    return h.hexdigest()


def _check(name: str, cat: Catalog) -> None:
    pinned = DIGESTS[name]
    assert cat.content_hash == pinned["content_hash"]
    assert results_digest(cat, pinned["queries"], full_orders=pinned["full_orders"]) == pinned["digest"]


@pytest.mark.parametrize("which", ["capability", "small"])
def test_results_are_those_of_the_pre_speedup_path(which: str, request: pytest.FixtureRequest) -> None:
    _check(which, request.getfixturevalue(which))


def test_results_on_the_large_generator_are_those_of_the_pre_speedup_path(tmp_path: Path) -> None:
    path = tmp_path / "large-ci.sqlite"
    synthesize(LARGE_CI, path)
    _check("large-ci", Catalog.open(path))


@pytest.mark.slow
def test_results_on_large_v1_are_those_of_the_pre_speedup_path() -> None:
    from acworld_env.catalog.synth.presets import ensure_preset

    _check("large-v1", Catalog.open(ensure_preset("large-v1")))


def test_stored_rows_become_the_listings_validation_would_give(small: Catalog) -> None:
    """``_listing`` (no validation) builds what ``Listing.model_validate`` builds from a stored row."""
    conn = small._store.conn()
    rows = conn.execute(LISTING_SELECT + " WHERE l.lrow % 7 = 1").fetchall()
    assert len(rows) > 500
    for row in rows:
        fast = _listing(row)
        fields = dict(zip(Listing.model_fields, row[:-1], strict=True))
        for key in ("options", "attributes", "tags"):
            fields[key] = json.loads(fields[key])
        slow = Listing.model_validate(fields)
        assert fast == slow and fast.__dict__ == slow.__dict__
        assert [type(v) for v in fast.__dict__.values()] == [type(v) for v in slow.__dict__.values()]
        assert fast.model_fields_set == slow.model_fields_set and fast.model_dump() == slow.model_dump()
        assert fast.model_copy(update={"price": 1}).price == 1


def test_numeric_facet_codes_order_like_the_values(small: Catalog) -> None:
    """A numeric attribute range tested on per-row codes keeps exactly the rows whose value is in range."""
    cols = small._store.engine.cols
    rng = random.Random(5)
    numeric = [f for f in cols.facets.values() if f.vtype == "n"]
    assert numeric
    for facet in numeric:
        rows, vals = cols.array(f"f{facet.fid}.rows"), cols.array(f"f{facet.fid}.vals")
        numbers, codes = cols.facet_numbers(facet), cols.dense(facet)
        assert codes.dtype.itemsize <= 2 and (codes >= 0).sum() == rows.size
        assert np.array_equal(numbers[codes[rows]], vals)
        for _ in range(20):
            lo, hi = sorted(rng.choice(list(vals)) * rng.uniform(0.7, 1.3) for _ in range(2))
            a, b = np.searchsorted(numbers, lo, "left"), np.searchsorted(numbers, hi, "right")
            by_code = set(np.flatnonzero((codes >= a) & (codes < b)).tolist())
            assert by_code == set(rows[(vals >= lo) & (vals <= hi)].tolist())


def test_price_and_rating_ranges_are_rank_ranges(small: Catalog) -> None:
    """Rows whose price is in [lo, hi] are those ranked i..j-1 by price, and rows rated at least
    m the first j by rating (the search tests these ranks instead of the values)."""
    cols = small._store.engine.cols
    price, rating = cols.array("price"), cols.array("rating")
    by_price, by_rating = cols.array("rank.price_asc"), cols.array("rank.rating_desc")
    values, neg = cols.array("sorted.price.values"), cols.array("sorted.rating.values")
    rng = random.Random(9)
    for _ in range(200):
        lo, hi = sorted(int(rng.choice(list(price)) * rng.uniform(0.8, 1.2)) for _ in range(2))
        i, j = np.searchsorted(values, lo, "left"), np.searchsorted(values, hi, "right")
        assert np.array_equal((by_price >= i) & (by_price < j), (price >= lo) & (price <= hi))
        m = rng.choice([0, 1, 2.5, 3.5, 4.0, 4.2, 4.5, 5.0])
        k = np.searchsorted(neg, -m, "right")
        assert np.array_equal(by_rating < k, rating >= m)


def test_distinct_numbers_are_what_np_unique_gives() -> None:
    """A numeric facet's distinct values come from a sort and a neighbour test, not ``np.unique`` (whose
    first use imports ``numpy.ma``): the same bytes, for ties, signed zeros and empty facets too."""
    from acworld_env.catalog.colstore import _distinct

    rng = np.random.default_rng(7)
    pool = np.array([0.0, -0.0, 1.5, 2.0, 3.25, 1e9, -7.0, 1e-300])
    for size in (0, 1, 2, 3, 17, 400):
        for _ in range(20):
            values = rng.choice(pool, size=size) if size else np.array([], dtype=float)
            assert _distinct(values).tobytes() == np.unique(values).tobytes()
