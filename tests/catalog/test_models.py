"""Query validation: every bad query becomes a CatalogQueryError with a stable code."""

from __future__ import annotations

import pytest

from acworld_env.catalog import (
    QUERY_ERROR_CODES,
    CatalogQueryError,
    SearchPage,
    SearchQuery,
    parse_query,
)
from acworld_env.catalog.models import AttrRange


@pytest.mark.parametrize(("query", "code"), [
    ({"colour": "red"}, "unknown_field"),
    ({"text": "mat", "limit": 5}, "unknown_field"),
    ({"page_size": 0}, "bad_page_size"),
    ({"page_size": -3}, "bad_page_size"),
    ({"page_size": 51}, "bad_page_size"),
    ({"page": 0}, "bad_page"),
    ({"page": 10_001}, "bad_page"),
    ({"page": "two"}, "bad_page"),
    ({"sort": "cheapest"}, "bad_sort"),
    ({"min_price": 500, "max_price": 100}, "bad_range"),
    ({"max_price": -1}, "bad_range"),
    ({"min_rating": 7}, "bad_range"),
    ({"attributes": {"weight_g": {"min": 9, "max": 1}}}, "bad_value"),
    ({"attributes": {"weight_g": {}}}, "bad_value"),
    ({"in_stock": "maybe"}, "bad_value"),
    ({"options": {"size": 10}}, "bad_value"),
    ({"text": "x" * 501}, "bad_text"),
])
def test_bad_queries_get_stable_codes(query: dict, code: str) -> None:
    with pytest.raises(CatalogQueryError) as info:
        parse_query(query)
    assert info.value.code == code
    assert info.value.code in QUERY_ERROR_CODES
    assert info.value.message
    assert info.value.to_dict() == {"code": code, "message": info.value.message}


def test_unknown_field_message_names_the_field_and_allowed_fields() -> None:
    with pytest.raises(CatalogQueryError) as info:
        parse_query({"colour": "red"})
    assert "colour" in info.value.message and "category" in info.value.message


def test_non_dict_query_is_rejected() -> None:
    with pytest.raises(CatalogQueryError) as info:
        parse_query(["text", "mat"])  # type: ignore[arg-type]
    assert info.value.code == "bad_value"


def test_valid_query_defaults_and_ranges() -> None:
    q = parse_query({"attributes": {"weight_g": {"min": 100}, "vegan": True, "material": "cork"}})
    assert (q.page, q.page_size, q.sort) == (1, 10, "relevance")
    assert q.attributes["weight_g"] == AttrRange(min=100)
    assert q.attributes["vegan"] is True and q.attributes["material"] == "cork"
    assert parse_query(q) is q
    with pytest.raises(Exception):  # noqa: B017 - frozen model
        q.page = 2  # type: ignore[misc]


def test_search_page_counts_pages() -> None:
    assert SearchPage(total=21, page=1, page_size=10).pages == 3
    assert SearchPage(total=0, page=1, page_size=10).pages == 0
    assert SearchQuery(page_size=50).page_size == 50
