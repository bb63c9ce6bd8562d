"""Generic listing rows from JSONL or CSV, one row per listing (variant).

Column mapping (names are case-insensitive; ``--map SRC=DST`` renames input
columns first):

==========================  ==========================================================
column                      meaning
==========================  ==========================================================
``merchant_id``             merchant (aliases ``merchant``, ``shop``, ``store``); default:
                            the file's merchant id
``product_id``              groups variants into a product (alias ``product``);
                            default: the title
``variant_id``              stable variant key (aliases ``id``, ``listing_id``);
                            default: ``sku``, else a hash of product and options
``title``                   product title (required; alias ``name``)
``brand``                   alias ``vendor``
``category``                aliases ``product_type``, ``type``
``price``                   decimal in major units, e.g. ``24.99`` (required, unless
                            ``price_minor`` is given as integer minor units)
``currency``                ISO 4217 code; default: the source currency
``compare_at_price``        major units (or ``compare_at_price_minor``)
``in_stock``                true/false/1/0/yes/no (alias ``available``)
``quantity``                integer (alias ``inventory_quantity``)
``sku``                     merchant SKU (repeats within a merchant keep the first)
``options``                 JSON object, or columns ``option.<name>``
``attributes``              JSON object, or columns ``attr.<name>`` (values typed:
                            integers, decimals, true/false, else text)
``tags``                    JSON list or comma-separated text
``rating``/``review_count`` average rating 0..5 and its count
``description``/``url``     plain text (HTML is stripped) / product page
==========================  ==========================================================
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

from ...core.errors import AcworldError
from ..records import SourceProduct, SourceVariant, id_part
from ..textutil import clean, html_to_text

ALIASES = {
    "merchant": "merchant_id", "shop": "merchant_id", "store": "merchant_id", "product": "product_id",
    "id": "variant_id", "listing_id": "variant_id", "name": "title", "vendor": "brand",
    "product_type": "category", "type": "category", "available": "in_stock",
    "inventory_quantity": "quantity", "reviews": "review_count",
}
_TRUE = {"1", "true", "yes", "y", "t", "in stock", "available"}
_FALSE = {"0", "false", "no", "n", "f", "out of stock", "sold out", ""}
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


class RowError(AcworldError, ValueError):
    """A row that cannot be read (message says which field)."""


def typed(text: Any) -> Any:
    """``"12"`` -> 12, ``"1.5"`` -> 1.5, ``"true"`` -> True, other text unchanged."""
    if not isinstance(text, str):
        return text
    s = text.strip()
    if s.lower() in ("true", "false"):
        return s.lower() == "true"
    if _INT.fullmatch(s):
        return int(s)
    if _FLOAT.fullmatch(s):
        return float(s)
    return s


def _bool(value: Any) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    s = str(value).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False if s else None
    raise RowError(f"in_stock: not a yes/no value: {value!r}")


MAX_INT = 10**15
"""Largest integer a row field may hold (quantities, counts, minor-unit prices)."""


def _int(value: Any, name: str) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise RowError(f"{name}: not an integer: {str(value)[:40]!r}")
    if isinstance(value, int):
        number = value
    else:
        try:
            f = float(value.strip()) if isinstance(value, str) else value
        except ValueError:
            raise RowError(f"{name}: not an integer: {value[:40]!r}") from None
        if not (math.isfinite(f) and f.is_integer()):
            raise RowError(f"{name}: not an integer: {str(value)[:40]!r}")
        number = int(f)
    if abs(number) >= MAX_INT:
        raise RowError(f"{name}: out of range: {str(value)[:40]!r}")
    return number


def _mapping(row: dict[str, Any], field: str, prefix: str, typed_values: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    raw = row.get(field)
    if isinstance(raw, str) and raw.strip():
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise RowError(f"{field}: not a JSON object: {raw[:60]!r}") from None
    if isinstance(raw, dict):
        out.update(raw)
    elif raw not in (None, ""):
        raise RowError(f"{field}: not a JSON object")
    for k, v in row.items():
        if k.startswith(prefix) and v not in (None, ""):
            out[k[len(prefix):]] = typed(v) if typed_values else v
    return out


def normalise_columns(row: dict[str, Any], rename: dict[str, str]) -> dict[str, Any]:
    """Apply ``rename`` then the built-in aliases; keys lower-cased."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        key = rename.get(str(k), str(k))
        low = key.strip().lower()
        if not (low.startswith("option.") or low.startswith("attr.")):
            low = ALIASES.get(low, low)
        else:
            low = low.split(".", 1)[0] + "." + key.strip().split(".", 1)[1]
        out.setdefault(low, v)
    return out


def read_row(row: dict[str, Any], merchant_id: str, currency: str, origin: str = "") -> tuple[
        tuple[str, str], SourceProduct, SourceVariant]:
    """``((merchant, product key), product fields, variant)`` of one mapped row at ``origin``
    (``line 7``)."""
    title = clean(row.get("title"))
    if not title:
        raise RowError("title: missing")
    merchant = id_part(row["merchant_id"]) if clean(row.get("merchant_id")) else merchant_id
    product_key = clean(row.get("product_id")) or title
    options = {str(k): str(v) for k, v in _mapping(row, "options", "option.", False).items() if v is not None}
    tags = row.get("tags")
    if isinstance(tags, str):
        try:
            parsed = json.loads(tags) if tags.strip().startswith("[") else None
        except json.JSONDecodeError:
            parsed = None
        tags = parsed if isinstance(parsed, list) else [t.strip() for t in tags.split(",")]
    rating = row.get("rating")
    rating = float(rating) if isinstance(rating, int | float) or (isinstance(rating, str) and _FLOAT.fullmatch(
        rating.strip())) else None
    cur = clean(row.get("currency")) or currency
    product = SourceProduct(
        merchant_id=merchant, product_key=product_key, title=title, brand=clean(row.get("brand")),
        category=clean(row.get("category")), tags=[str(t) for t in tags or [] if t is not None],
        description=html_to_text(row.get("description")), rating=rating,
        review_count=_int(row.get("review_count"), "review_count") or 0, currency=cur,
        price_format="major", origin=origin,
    )
    price: Any = row.get("price")
    compare: Any = row.get("compare_at_price")
    if row.get("price_minor") not in (None, ""):
        product.price_format = "minor"
        price = _int(row["price_minor"], "price_minor")
        compare = _int(row.get("compare_at_price_minor"), "compare_at_price_minor")
    sku = clean(row.get("sku"))
    vkey = clean(row.get("variant_id")) or sku
    if not vkey:
        digest = hashlib.sha1(json.dumps([product_key, sorted(options.items())]).encode()).hexdigest()
        vkey = digest[:12]
    variant = SourceVariant(
        variant_key=vkey, price=price, compare_at=compare, available=_bool(row.get("in_stock")),
        quantity=_int(row.get("quantity"), "quantity"), sku=sku or None, options=tuple(options.items()),
        attributes=_mapping(row, "attributes", "attr.", True) or None, url=clean(row.get("url")),
        origin=origin,
    )
    return (merchant, product_key), product, variant
