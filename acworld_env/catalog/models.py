"""Wire models of the catalog: a listing, a search query and a page of results.

Money is integer minor units (cents for USD). A :class:`SearchQuery` is validated
strictly (``extra="forbid"``); :func:`parse_query` turns any validation failure into a
:class:`~acworld_env.catalog.errors.CatalogQueryError` with a stable code.

Matching rules, shared by :meth:`Catalog.search` and :meth:`Catalog.oracle_ids`:

* ``category``, ``brand`` and ``merchant_id`` match case-insensitively after trimming.
* ``options`` and ``attributes`` keys are canonicalised like ingested option names
  (``Colour`` -> ``color``, ``Pack Size`` -> ``pack_size``). String values match
  case-insensitively; a bool matches only bool attributes; a number matches only
  numeric attributes; ``{"min": a, "max": b}`` is an inclusive numeric range.
  A key no listing has matches nothing (it is not an error).
* ``text`` is reduced to its words (punctuation never raises), every word must occur
  in the product's title, brand, category, option values, tags or description
  (porter stemming, diacritics folded); a trailing ``*`` makes a word a prefix.
  Text with no words is ignored.
* ``sort``: ``relevance`` is BM25 over the text (products ranked, variants of one
  product kept together in listing-id order), or listing-id order without text;
  ``price_asc``/``price_desc`` order by price; ``rating_desc`` puts unrated listings
  last. Every order breaks ties by ascending ``listing_id``.
* Paging: ``page`` 1..10,000, ``page_size`` 1..50. A page past the last one returns
  no items and the true ``total``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import CatalogQueryError

MAX_PAGE = 10_000
MAX_PAGE_SIZE = 50
MAX_TEXT_CHARS = 500

Sort = Literal["relevance", "price_asc", "price_desc", "rating_desc"]
AttrScalar = bool | int | float | str


class Listing(BaseModel):
    """One transactable listing: a variant of a product sold by one merchant."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    listing_id: str = Field(description="Stable id, e.g. 'm001-p00012-v002'.")
    merchant_id: str = Field(description="Merchant selling the listing, e.g. 'm001'.")
    product_id: str = Field(description="Product the listing is a variant of.")
    title: str = Field(description="Product title, with the variant's option values.")
    brand: str = Field(description="Brand (Shopify vendor); may be empty.")
    category: str = Field(description="Category (Shopify product type); may be empty.")
    price: int = Field(description="Price in integer minor units of `currency`.")
    currency: str = Field(description="ISO 4217 code.")
    compare_at_price: int | None = Field(None, description="Reference price in minor units.")
    in_stock: bool = Field(description="Whether the listing can be bought now.")
    quantity: int = Field(description="Units available (0 when out of stock).")
    options: dict[str, str] = Field(default_factory=dict, description="Variant options, canonical keys.")
    attributes: dict[str, AttrScalar] = Field(default_factory=dict, description="Typed attributes.")
    tags: list[str] = Field(default_factory=list, description="Merchant tags.")
    rating: float | None = Field(None, description="Average rating 1..5, None if unrated.")
    review_count: int = Field(0, description="Number of reviews behind the rating.")
    description: str = Field("", description="Plain-text description.")
    url: str = Field("", description="Product page of the variant.")


class AttrRange(BaseModel):
    """An inclusive numeric range filter on an attribute."""

    model_config = ConfigDict(extra="forbid")

    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _check(self) -> AttrRange:
        if self.min is None and self.max is None:
            raise ValueError("range needs 'min', 'max' or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"range min {self.min} is greater than max {self.max}")
        return self


class SearchQuery(BaseModel):
    """A bounded catalog search. See the module docstring for matching rules."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str | None = Field(None, max_length=MAX_TEXT_CHARS, description="Free text (FTS5, BM25).")
    category: str | None = Field(None, description="Category, case-insensitive.")
    brand: str | None = Field(None, description="Brand, case-insensitive.")
    merchant_id: str | None = Field(None, description="Merchant id.")
    min_price: int | None = Field(None, ge=0, description="Lowest price, minor units, inclusive.")
    max_price: int | None = Field(None, ge=0, description="Highest price, minor units, inclusive.")
    in_stock: bool | None = Field(None, description="True: in stock only; False: out of stock only.")
    options: dict[str, str] = Field(default_factory=dict, description="Option equality filters.")
    attributes: dict[str, AttrScalar | AttrRange] = Field(
        default_factory=dict, description="Attribute equality or {'min','max'} range filters."
    )
    min_rating: float | None = Field(None, ge=0, le=5, description="Minimum rating.")
    sort: Sort = Field("relevance", description="Result order; ties by listing_id.")
    page: int = Field(1, ge=1, le=MAX_PAGE, description="Page number from 1.")
    page_size: int = Field(10, ge=1, le=MAX_PAGE_SIZE, description="Items per page, 1..50.")

    @model_validator(mode="after")
    def _check_price_range(self) -> SearchQuery:
        if self.min_price is not None and self.max_price is not None and self.min_price > self.max_price:
            raise ValueError(f"min_price {self.min_price} is greater than max_price {self.max_price}")
        return self


class SearchPage(BaseModel):
    """One page of results and the total number of matches."""

    model_config = ConfigDict(frozen=True)

    total: int = Field(description="Number of listings matching the filters.")
    page: int = Field(description="The page returned, from 1.")
    page_size: int = Field(description="The page size asked for.")
    items: list[Listing] = Field(default_factory=list, description="Listings on this page.")

    @property
    def pages(self) -> int:
        """Number of non-empty pages."""
        return -(-self.total // self.page_size)


_FIELD_CODES = {"page": "bad_page", "page_size": "bad_page_size", "sort": "bad_sort", "text": "bad_text"}
_RANGE_TYPES = {"greater_than_equal", "less_than_equal", "greater_than", "less_than"}


def _error_code(err: dict[str, Any]) -> str:
    loc = err.get("loc") or ()
    field = str(loc[0]) if loc else ""
    if err.get("type") == "extra_forbidden":
        return "unknown_field"
    if field in _FIELD_CODES:
        return _FIELD_CODES[field]
    if err.get("type") in _RANGE_TYPES or "greater than" in str(err.get("msg", "")):
        return "bad_range"
    return "bad_value"


def parse_query(q: SearchQuery | dict[str, Any]) -> SearchQuery:
    """Validate ``q`` into a :class:`SearchQuery`, or raise :class:`CatalogQueryError`."""
    if isinstance(q, SearchQuery):
        return q
    if not isinstance(q, dict):
        raise CatalogQueryError("bad_value", f"a query must be an object, not {type(q).__name__}")
    try:
        return SearchQuery.model_validate(q)
    except ValidationError as exc:
        errors = exc.errors()
        parts = []
        for err in errors:
            where = ".".join(str(p) for p in err.get("loc", ())) or "query"
            if err.get("type") == "extra_forbidden":
                allowed = ", ".join(SearchQuery.model_fields)
                parts.append(f"unknown field '{where}' (allowed: {allowed})")
            else:
                parts.append(f"{where}: {err.get('msg')} (got {err.get('input')!r})")
        raise CatalogQueryError(_error_code(errors[0]), "; ".join(parts)) from None
