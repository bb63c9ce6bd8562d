"""Search semantics, checked against a brute-force oracle over every listing."""

from __future__ import annotations

import random
from typing import Any

import pytest

from acworld_env.catalog import Catalog, CatalogQueryError, Listing
from acworld_env.catalog.models import AttrRange, parse_query
from acworld_env.catalog.search import fts_expression
from acworld_env.catalog.textutil import fold, option_key


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _attr_ok(av: Any, want: Any) -> bool:
    if isinstance(want, AttrRange):
        return _num(av) and (want.min is None or av >= want.min) and (want.max is None or av <= want.max)
    if isinstance(want, bool):
        return isinstance(av, bool) and av == want
    if _num(want):
        return _num(av) and float(av) == float(want)
    return isinstance(av, str) and fold(av) == fold(want)


def brute(listings: list[Listing], query: dict[str, Any]) -> list[str]:
    """The documented matching and ordering rules, written out plainly (no text)."""
    q = parse_query(query)
    out = []
    for x in listings:
        if q.category is not None and fold(x.category) != fold(q.category):
            continue
        if q.brand is not None and fold(x.brand) != fold(q.brand):
            continue
        if q.merchant_id is not None and fold(x.merchant_id) != fold(q.merchant_id):
            continue
        if q.min_price is not None and x.price < q.min_price:
            continue
        if q.max_price is not None and x.price > q.max_price:
            continue
        if q.in_stock is not None and x.in_stock != q.in_stock:
            continue
        if q.min_rating is not None and (x.rating is None or x.rating < q.min_rating):
            continue
        if any(fold(x.options.get(option_key(k), "\0")) != fold(v) for k, v in q.options.items()):
            continue
        if not all(option_key(k) in x.attributes and _attr_ok(x.attributes[option_key(k)], v)
                   for k, v in q.attributes.items()):
            continue
        out.append(x)
    keys = {
        "relevance": lambda x: x.listing_id,
        "price_asc": lambda x: (x.price, x.listing_id),
        "price_desc": lambda x: (-x.price, x.listing_id),
        "rating_desc": lambda x: (x.rating is None, -(x.rating or 0), x.listing_id),
    }
    return [x.listing_id for x in sorted(out, key=keys[q.sort])]


def random_query(rng: random.Random, pool: list[Listing]) -> dict[str, Any]:
    x = rng.choice(pool)
    q: dict[str, Any] = {"sort": rng.choice(["relevance", "price_asc", "price_desc", "rating_desc"])}
    pick = rng.random()
    if pick < 0.6:
        q["category"] = x.category.upper() if rng.random() < 0.2 else x.category
    elif pick < 0.75:
        q["brand"] = x.brand
    elif pick < 0.85:
        q["merchant_id"] = x.merchant_id
    if rng.random() < 0.5:
        q["max_price"] = int(x.price * rng.uniform(1.0, 2.0))
    if rng.random() < 0.2:
        q["min_price"] = int(x.price * rng.uniform(0.3, 1.0))
    if rng.random() < 0.4:
        q["in_stock"] = rng.random() < 0.8
    if rng.random() < 0.2:
        q["min_rating"] = rng.choice([0, 3.5, 4.0, 4.5])
    if x.options and rng.random() < 0.35:
        k = rng.choice(sorted(x.options))
        q["options"] = {k.title() if rng.random() < 0.3 else k: x.options[k].lower()}
    if x.attributes and rng.random() < 0.4:
        k = rng.choice(sorted(x.attributes))
        v = x.attributes[k]
        q["attributes"] = {k: {"min": v * 0.9, "max": v * 1.2} if _num(v) and rng.random() < 0.6 else v}
    return q


@pytest.mark.parametrize("which", ["capability", "small"])
def test_search_and_oracle_match_brute_force(which: str, request: pytest.FixtureRequest) -> None:
    cat: Catalog = request.getfixturevalue(which)
    everything = cat.get_many(cat.oracle_ids({}))
    assert len(everything) == len(cat)
    rng = random.Random(20240917)
    nonempty = 0
    for _ in range(250):
        q = random_query(rng, everything)
        expected = brute(everything, q)
        assert cat.oracle_ids(q) == expected, q
        assert cat.count(q) == len(expected)
        page = rng.choice([1, 1, 2, 3])
        size = rng.choice([1, 5, 10, 50])
        got = cat.search({**q, "page": page, "page_size": size})
        assert got.total == len(expected), q
        assert [x.listing_id for x in got.items] == expected[(page - 1) * size:page * size], q
        nonempty += bool(expected)
    assert nonempty > 150


def test_listing_ids_sorted_and_get_roundtrip(capability: Catalog) -> None:
    ids = capability.oracle_ids({})
    assert ids == sorted(ids) and len(set(ids)) == len(ids) == 1082
    x = capability.get(ids[17])
    assert x is not None and x.listing_id == ids[17]
    assert capability.get("no-such-listing") is None
    many = capability.get_many([ids[3], "missing", ids[1], ids[3]])
    assert [m.listing_id for m in many] == [ids[3], ids[1], ids[3]]
    again = Listing.model_validate(x.model_dump())
    assert again == x
    with pytest.raises(Exception):  # noqa: B017 - frozen
        x.price = 1  # type: ignore[misc]


def test_page_past_the_end_is_empty_with_true_total(capability: Catalog) -> None:
    page = capability.search({"category": "Cosmetics", "page": 10_000, "page_size": 50})
    assert page.total == 57 and page.items == []
    with pytest.raises(CatalogQueryError) as info:
        capability.search({"category": "Cosmetics", "page": 10_001})
    assert info.value.code == "bad_page"


def test_unknown_keys_and_values_match_nothing(capability: Catalog) -> None:
    assert capability.search({"options": {"no_such_option": "x"}}).total == 0
    assert capability.search({"options": {"color": "ultraviolet"}}).total == 0
    assert capability.search({"category": "Spaceships"}).total == 0
    assert capability.search({"attributes": {"thickness_mm": "thick"}}).total == 0
    assert capability.search({"attributes": {"weight_g": {"min": 10**9}}}).total == 0


def test_text_search_is_bm25_ranked_and_safe(capability: Catalog) -> None:
    hits = capability.search({"text": "cork yoga mat", "page_size": 50})
    assert hits.total > 0
    assert all("cork" in (x.title + x.description + str(x.attributes)).lower() for x in hits.items)
    for nasty in ['"unbalanced', "mat AND (", "NEAR/3 *", "^$%&!", "a OR b NOT c", "-", "col:val", "'; DROP"]:
        capability.search({"text": nasty})
    assert capability.search({"text": "!!!"}).total == len(capability)
    prefix = capability.search({"text": "yog*"}).total
    assert prefix >= capability.search({"text": "yoga"}).total > 0
    assert capability.search({"text": "zzqxw"}).total == 0


def test_text_with_filters_and_relevance_keeps_variants_together(capability: Catalog) -> None:
    q = {"text": "running shoe", "category": "footwear"}
    ranked = capability.oracle_ids(q)
    products = [i.rsplit("-v", 1)[0] for i in ranked]
    seen: list[str] = []
    for p in products:
        if not seen or seen[-1] != p:
            assert p not in seen, "a product's variants must be contiguous in relevance order"
            seen.append(p)
    by_price = capability.oracle_ids({**q, "sort": "price_asc"})
    assert sorted(by_price) == sorted(ranked)
    prices = [x.price for x in capability.get_many(by_price)]
    assert prices == sorted(prices)


def test_fts_expression_sanitises() -> None:
    assert fts_expression('Cork "mat" (6mm) OR yoga*') == '"cork" "mat" "6mm" "yoga"*'
    assert fts_expression("the and of") == '"the" "and" "of"'
    assert fts_expression("...") is None and fts_expression(None) is None
    assert fts_expression(" ".join(f"w{i}" for i in range(40))).count('"') == 32


def test_threads_share_a_catalog(capability: Catalog) -> None:
    from concurrent.futures import ThreadPoolExecutor

    rng = random.Random(3)
    pool = capability.get_many(capability.oracle_ids({"category": "Yoga"}))
    queries = [random_query(rng, pool) for _ in range(60)]
    expected = [capability.oracle_ids(q) for q in queries]
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(capability.oracle_ids, queries))
    assert got == expected
