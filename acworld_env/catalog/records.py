"""Source products and the normaliser that turns their variants into listings.

Every input (the three Shopify shapes, generic JSONL/CSV rows, the synthetic
generator) is read into :class:`SourceProduct` objects carrying their
:class:`SourceVariant` list. :class:`Normalizer` applies the same rules to all of
them, so synthetic catalogs exercise exactly the code path real dumps take:

* prices become integer minor units of the product's currency; a variant whose
  price is missing, unreadable, ambiguous, too large, zero or negative is dropped and
  counted by reason, and so is one with an absurd quantity;
* a reader records what it could not turn into a variant at all (a product without
  variants, a variant that is not an object) as ``problems`` of the product; they are
  counted as read and dropped like any other record;
* with ``notes=True`` every drop is also kept as a :class:`DropNote` (reason, where in
  the source, why), at most ``note_limit`` of them, so a report can name each one;
* option names are canonicalised (``Colour`` -> ``color``); Shopify's placeholder
  ``Title: Default Title`` option is removed;
* within a merchant, a repeated non-empty SKU keeps its first variant, and so does a
  repeated variant id;
* ids come from the source, never from input order:
  ``product_id = f"{merchant_id}-{product_key}"`` and
  ``listing_id = f"{merchant_id}-{variant_key}"``, so rebuilding gives the same ids.

Stock: ``available`` wins when the source gives it; otherwise a positive quantity
means in stock; with neither, the listing is taken as in stock. An in-stock listing
whose source gives no positive quantity gets :data:`NOMINAL_QUANTITY` units.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..core.money import exponent
from .money import (
    PriceError,
    cents_to_minor,
    check_minor,
    is_currency_code,
    major_to_minor,
)
from .textutil import clean, option_key

NOMINAL_QUANTITY = 10
"""Units given to an in-stock listing whose source does not say how many it has."""

MAX_COUNT = 10**12
"""Largest quantity or review count believed; a larger quantity drops the variant."""

DROP_REASONS = ("missing_price", "bad_price", "non_positive_price", "bad_quantity", "bad_currency",
                "missing_title", "duplicate_sku", "duplicate_listing_id", "no_variants", "bad_variant",
                "bad_record", "bad_row")

_ID_RE = re.compile(r"[^A-Za-z0-9._-]+")
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]+").fullmatch
_DEFAULT_TITLES = frozenset({"default title", "default"})
_encode_str = json.encoder.encode_basestring  # type: ignore[attr-defined]


def dumps(value: Any) -> str:
    """Canonical JSON used for stored option/attribute/tag columns."""
    if type(value) is dict:
        return flat_json(value)
    if type(value) is list and all(type(v) is str for v in value):
        return "[" + ",".join([_encode_str(v) for v in value]) + "]"
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def flat_json(d: dict[str, Any]) -> str:
    """``dumps`` of a flat dict of str/int/float/bool values without the encoder overhead;
    identical to ``json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``."""
    parts = []
    for k in sorted(d):
        v = d[k]
        t = type(v)
        if t is str:
            enc = _encode_str(v)
        elif t is bool:
            enc = "true" if v else "false"
        elif t is int:
            enc = int.__repr__(v)
        elif t is float and math.isfinite(v):
            enc = float.__repr__(v)
        else:
            return json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        parts.append(f"{_encode_str(k)}:{enc}")
    return "{" + ",".join(parts) + "}"


def id_part(text: object) -> str:
    """A source key made safe for ids (letters, digits, ``. _ -``)."""
    s = text if isinstance(text, str) else str(text)
    if _SAFE_ID(s) and s[0] != "-" and s[-1] != "-":
        return s
    return _ID_RE.sub("-", s.strip()).strip("-") or "x"


@dataclass(frozen=True, slots=True)
class DropNote:
    """One dropped record: ``reason`` (a :data:`DROP_REASONS` code), ``where`` in the source, ``why``."""

    reason: str
    where: str
    why: str


@dataclass(slots=True)
class SourceVariant:
    """One source variant (a future listing). ``price`` is raw, read per ``price_format``;
    ``origin`` says where it is in its file (``line 3, variants[1]``, ``products[4].variants[0]``)."""

    variant_key: str
    price: Any
    compare_at: Any = None
    available: bool | None = None
    quantity: int | None = None
    sku: str | None = None
    options: tuple[tuple[str, str], ...] | list[tuple[str, str]] = ()
    attributes: dict[str, Any] | None = None
    url: str = ""
    origin: str = ""


@dataclass(slots=True)
class SourceProduct:
    """A source product with its variants. ``price_format``: major | cents | minor.

    ``origin`` says where the product is in its file; ``problems`` are records of it that
    could not become variants at all (each is counted as read and dropped)."""

    merchant_id: str
    product_key: str
    title: str
    brand: str = ""
    category: str = ""
    tags: tuple[str, ...] | list[str] = ()
    description: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    rating: float | None = None
    review_count: int = 0
    currency: str = "USD"
    price_format: str = "major"
    variants: list[SourceVariant] = field(default_factory=list)
    origin: str = ""
    problems: list[DropNote] = field(default_factory=list)


@dataclass(slots=True)
class NormalizedProduct:
    """Product fields as stored."""

    product_id: str
    merchant_id: str
    title: str
    brand: str
    category: str
    tags: list[str]
    tags_json: str
    description: str
    attributes: dict[str, Any]
    attributes_json: str
    rating: float | None
    review_count: int


ListingRow = tuple[str, str, int, str, int | None, int, int, dict[str, str], str, dict[str, Any], str, str]
"""A normalised variant: ``(listing_id, title, price, currency, compare_at_price, in_stock,
quantity, options, options_json, attributes, attributes_json, url)``."""


def clean_attributes(raw: dict[str, Any] | None, key_of: Any = option_key) -> dict[str, Any]:
    """Canonical keys; str/bool/int/finite float values only; empty strings dropped."""
    out: dict[str, Any] = {}
    for name, value in (raw or {}).items():
        key = key_of(name)
        if not key or value is None:
            continue
        if isinstance(value, bool):
            out[key] = value
        elif isinstance(value, int):
            if abs(value) < 2**53:
                out[key] = value
        elif isinstance(value, float):
            if math.isfinite(value):
                out[key] = int(value) if value.is_integer() and abs(value) < 2**53 else value
        else:
            text = clean(value)
            if text:
                out[key] = text
    return out


def parse_price(raw: Any, fmt: str, currency: str) -> int:
    """Minor units of a raw price (``major`` decimal text/number, ``cents``, ``minor``)."""
    if fmt == "minor":
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise PriceError(f"not an integer price: {raw!r}")
        return check_minor(raw)
    if fmt == "cents":
        return cents_to_minor(raw, currency)
    if type(raw) is str and 3 < len(raw) < 14 and raw[-3] == "." and exponent(currency) == 2:
        whole, frac = raw[:-3], raw[-2:]
        if whole.isdigit() and frac.isdigit() and whole.isascii() and frac.isascii():
            return check_minor(int(whole) * 100 + int(frac), raw)
    return major_to_minor(raw, currency)


def _count(value: Any) -> int:
    """A review count as stored: a sane non-negative integer, else 0 (unknown)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return 0
    return int(value) if 0 <= value < MAX_COUNT else 0


class Normalizer:
    """Stateful product -> listings conversion with drop counting and de-duplication.

    ``grouped_by_merchant=True`` promises that all products of a merchant arrive
    together, which lets the SKU/id memory be released merchant by merchant.
    """

    def __init__(self, grouped_by_merchant: bool = False, *, notes: bool = False, note_limit: int = 1000) -> None:
        self.grouped = grouped_by_merchant
        self.records_read = 0
        self.kept = 0
        self.dropped: Counter[str] = Counter()
        self.keep_notes = notes
        self.note_limit = note_limit
        self.notes: list[DropNote] = []
        """The drops so far (with ``notes=True``; at most ``note_limit``; the caller may clear it)."""
        self._skus: dict[str, set[str]] = {}
        self._ids: dict[str, set[str]] = {}
        self._keys: dict[str, str] = {}
        self._options: dict[tuple[tuple[str, str], ...], tuple[dict[str, str], str, str]] = {}

    def drop(self, reason: str, where: str, why: str, n: int = 1) -> None:
        """Count ``n`` dropped records and keep a note of them (when notes are kept)."""
        self.dropped[reason] += n
        if self.keep_notes and len(self.notes) < self.note_limit:
            self.notes.append(DropNote(reason, where, why))

    def counts(self) -> dict[str, Any]:
        """Records read, listings kept and drops by reason (for catalog metadata)."""
        return {"records_read": self.records_read, "listings_kept": self.kept,
                "dropped": dict(sorted(self.dropped.items()))}

    def _key(self, name: str) -> str:
        key = self._keys.get(name)
        if key is None:
            if len(self._keys) > 50_000:
                self._keys.clear()
            key = self._keys[name] = option_key(name)
        return key

    def _parse_options(self, raw: tuple[tuple[str, str], ...]) -> tuple[dict[str, str], str, str]:
        options: dict[str, str] = {}
        for name, value in raw:
            if value is None:
                continue
            value = clean(value)
            key = self._key(name)
            if not value or not key or (key == "title" and value.casefold() in _DEFAULT_TITLES):
                continue
            while key in options:
                key += "_2"
            options[key] = value
        suffix = f" - {' / '.join(options.values())}" if options else ""
        if len(self._options) > 50_000:
            self._options.clear()
        parsed = self._options[raw] = (options, dumps(options), suffix)
        return parsed

    def product(self, src: SourceProduct) -> NormalizedProduct:
        """The stored form of a product's own fields."""
        tags: list[str] = []
        for t in src.tags:
            t = clean(t)
            if t and t not in tags:
                tags.append(t)
        attributes = clean_attributes(src.attributes, self._key)
        rating = src.rating
        if rating is not None and not (isinstance(rating, int | float) and 0 <= rating <= 5):
            rating = None
        return NormalizedProduct(
            product_id=f"{src.merchant_id}-{id_part(src.product_key)}", merchant_id=src.merchant_id,
            title=clean(src.title), brand=clean(src.brand), category=clean(src.category), tags=tags,
            tags_json=dumps(tags), description=clean(src.description), attributes=attributes,
            attributes_json=dumps(attributes), rating=None if rating is None else float(rating),
            review_count=_count(src.review_count),
        )

    def normalize(self, src: SourceProduct) -> tuple[NormalizedProduct, list[ListingRow]]:
        """The product and the listing rows of its kept variants (drops are counted)."""
        variants = src.variants
        self.records_read += len(variants) + len(src.problems)
        for note in src.problems:
            self.drop(note.reason, note.where, note.why)
        product = self.product(src)
        currency = (src.currency or "").strip().upper()
        if not is_currency_code(currency):
            if variants:
                self.drop("bad_currency", src.origin, f"currency {src.currency!r} is not an ISO 4217 code"
                          f" ({len(variants)} variants)", len(variants))
            return product, []
        if not product.title:
            if variants:
                self.drop("missing_title", src.origin, f"the product has no title ({len(variants)} variants)",
                          len(variants))
            return product, []
        merchant = src.merchant_id
        if self.grouped and merchant not in self._ids:
            self._ids.clear()
            self._skus.clear()
        ids = self._ids.setdefault(merchant, set())
        skus = self._skus.setdefault(merchant, set())
        fmt = src.price_format
        title = product.title
        rows: list[ListingRow] = []
        attr_cache: dict[tuple[tuple[str, Any], ...], tuple[dict[str, Any], str]] = {}
        for v in variants:
            raw = v.price
            if raw is None or (type(raw) is str and not raw.strip()):
                self.drop("missing_price", v.origin, "no price")
                continue
            try:
                price = parse_price(raw, fmt, currency)
            except PriceError as exc:
                self.drop("bad_price", v.origin, str(exc))
                continue
            if price <= 0:
                self.drop("non_positive_price", v.origin, f"price {raw!r} is not positive")
                continue
            qty = v.quantity if type(v.quantity) is int else None
            if qty is not None and abs(qty) >= MAX_COUNT:
                self.drop("bad_quantity", v.origin, f"quantity {qty} is not believable")
                continue
            listing_id = f"{merchant}-{id_part(v.variant_key)}"
            sku = clean(v.sku) if v.sku else ""
            if sku and sku in skus:
                self.drop("duplicate_sku", v.origin, f"SKU {sku!r} repeats an earlier variant")
                continue
            if listing_id in ids:
                self.drop("duplicate_listing_id", v.origin, f"listing id {listing_id!r} repeats an earlier variant")
                continue
            if sku:
                skus.add(sku)
            ids.add(listing_id)
            raw_options = tuple(v.options)
            parsed = self._options.get(raw_options) or self._parse_options(raw_options)
            if v.attributes:
                akey = tuple(v.attributes.items())
                cached = attr_cache.get(akey)
                if cached is None:
                    merged = {**product.attributes, **clean_attributes(v.attributes, self._key)}
                    cached = attr_cache[akey] = (merged, dumps(merged))
                attributes, attributes_json = cached
            else:
                attributes, attributes_json = product.attributes, product.attributes_json
            compare_at = None
            if v.compare_at not in (None, "", 0):
                try:
                    compare_at = parse_price(v.compare_at, fmt, currency)
                except PriceError:
                    compare_at = None
                if compare_at is not None and compare_at <= 0:
                    compare_at = None
            in_stock = bool(v.available) if v.available is not None else (qty is None or qty > 0)
            quantity = (qty if qty is not None and qty > 0 else NOMINAL_QUANTITY) if in_stock else 0
            rows.append((listing_id, title + parsed[2], price, currency, compare_at, 1 if in_stock else 0,
                         quantity, parsed[0], parsed[1], attributes, attributes_json, clean(v.url)))
        self.kept += len(rows)
        return product, rows
