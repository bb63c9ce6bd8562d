"""Readers for the three Shopify product shapes.

* **storefront** ``/products.json``: ``{"products": [...]}``; variant ``price`` is a
  decimal string, ``available`` a bool, options in ``option1..3``, weight in ``grams``.
* **admin** (Admin API products): like storefront, but ``tags`` is one
  comma-separated string, variants carry ``inventory_quantity``,
  ``inventory_policy``/``inventory_management`` and ``weight`` + ``weight_unit``;
  products have a ``status`` (non-``active`` products are skipped and counted).
* **product_js** (``/products/<handle>.js``): prices are integers in hundredths of
  the currency unit, the product type is ``type``, the body is ``description``.

A file may hold ``{"products": [...]}``, a list of products, a single product, or
products grouped by store/brand (``{"brand": [...], ...}``; each group becomes a
merchant). The shape is detected per product.

A product without variants, and a variant that is not a JSON object, become
``problems`` of the product (dropped with their position), never an exception.
"""

from __future__ import annotations

import math
from typing import Any

from ...core.errors import AcworldError
from ..money import is_currency_code
from ..records import DropNote, SourceProduct, SourceVariant
from ..textutil import clean, html_to_text

_GRAMS = {"g": 1.0, "kg": 1000.0, "lb": 453.59237, "oz": 28.349523125}


class ShapeError(AcworldError, ValueError):
    """The JSON holds no recognisable Shopify products."""


def is_product(obj: Any) -> bool:
    """True for a dict that looks like a Shopify product (has a variants list)."""
    return isinstance(obj, dict) and isinstance(obj.get("variants"), list)


Entries = list[tuple[str, Any]]
"""``(position, entry)`` pairs: where each entry is in the file (``products[3]``) and the entry."""


def product_groups(doc: Any) -> list[tuple[str | None, Entries]]:
    """``[(group name or None, entries)]`` found in a parsed JSON document.

    In a ``{"products": [...]}`` or list document holding at least one product, every entry
    is returned, products or not, so the reader can drop a non-product with its position.
    """
    if is_product(doc):
        return [(None, [("", doc)])]
    if isinstance(doc, list) and any(is_product(p) for p in doc):
        return [(None, [(f"[{i}]", p) for i, p in enumerate(doc)])]
    if isinstance(doc, dict):
        listed = doc.get("products")
        if isinstance(listed, list) and (not listed or any(is_product(p) for p in listed)):
            return [(None, [(f"products[{i}]", p) for i, p in enumerate(listed)])]
        groups = [(str(k), [(f"{k}[{i}]", p) for i, p in enumerate(v)]) for k, v in doc.items()
                  if isinstance(v, list) and v and all(is_product(p) for p in v)]
        if groups:
            return groups
    raise ShapeError("no Shopify products found (expected {'products': [...]}, a product, a list of"
                     " products, or products grouped by brand)")


def shape_of(p: dict[str, Any]) -> str:
    """``admin``, ``product_js`` or ``storefront``."""
    variants = p.get("variants") or [{}]
    v0 = variants[0] if isinstance(variants[0], dict) else {}
    if "inventory_quantity" in v0 or "admin_graphql_api_id" in p or "status" in p:
        return "admin"
    if isinstance(p.get("price"), int) or isinstance(v0.get("price"), int) or "public_title" in v0:
        return "product_js"
    return "storefront"


def _tags(raw: Any) -> list[str]:
    if isinstance(raw, str):
        return [t.strip() for t in raw.split(",") if t.strip()]
    if isinstance(raw, list):
        return [str(t) for t in raw if t is not None]
    return []


def _option_names(p: dict[str, Any]) -> list[str]:
    names: list[str] = []
    options = p.get("options")
    for o in options if isinstance(options, list) else []:
        if isinstance(o, dict):
            names.append(str(o.get("name") or f"Option {len(names) + 1}"))
        else:
            names.append(str(o))
    return names


def _positive(x: Any) -> float | None:
    """``x`` as a positive finite float, else None."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return None
    try:
        f = float(x)
    except OverflowError:
        return None
    return f if math.isfinite(f) and f > 0 else None


def _weight_g(v: dict[str, Any], shape: str) -> float | None:
    weight = _positive(v.get("weight"))
    if shape == "admin" and weight is not None:
        factor = _GRAMS.get(str(v.get("weight_unit") or "g").lower())
        if factor is not None:
            grams = round(weight * factor, 1)
            return grams if math.isfinite(grams) else None
    return _positive(v.get("grams") if shape != "product_js" else v.get("weight"))


def currency_hint(tags: list[str]) -> str | None:
    """A currency code a store put among its tags (e.g. ``USD``), if exactly one."""
    codes = {t for t in tags if is_currency_code(t)}
    return codes.pop() if len(codes) == 1 else None


def _stock(v: dict[str, Any], shape: str) -> tuple[bool | None, int | None]:
    if shape != "admin":
        avail = v.get("available")
        return (bool(avail) if isinstance(avail, bool) else None), None
    qty = v.get("inventory_quantity")
    qty = qty if isinstance(qty, int) and not isinstance(qty, bool) else None
    if v.get("inventory_management") in (None, "") or v.get("inventory_policy") == "continue":
        return True, qty if qty and qty > 0 else None
    return (qty is not None and qty > 0), qty


def variant_origin(origin: str, index: int) -> str:
    """Where variant ``index`` of the product at ``origin`` is: ``line 3, variants[0]`` or
    ``products[2].variants[0]``."""
    if not origin:
        return f"variants[{index}]"
    return f"{origin}, variants[{index}]" if origin.startswith("line ") else f"{origin}.variants[{index}]"


def read_product(p: dict[str, Any], merchant_id: str, currency: str | None, default_currency: str,
                 base_url: str = "", origin: str = "") -> SourceProduct | None:
    """A :class:`SourceProduct` from one Shopify product; ``None`` for a non-active admin product.

    ``currency`` (an explicit choice for this source) wins over a currency code in the
    product's tags, which wins over ``default_currency``. ``origin`` is where the product
    is in its file (``line 3``, ``products[2]``); variants' origins extend it.
    """
    shape = shape_of(p)
    if shape == "admin" and str(p.get("status") or "active") != "active":
        return None
    tags = _tags(p.get("tags"))
    cur = currency or currency_hint(tags) or default_currency
    names = _option_names(p)
    handle = clean(p.get("handle"))
    key = p.get("id") if p.get("id") is not None else handle or clean(p.get("title"))
    product = SourceProduct(
        merchant_id=merchant_id, product_key=str(key), title=clean(p.get("title")),
        brand=clean(p.get("vendor")), category=clean(p.get("product_type") if shape != "product_js" else p.get("type")),
        tags=tags, description=html_to_text(p.get("body_html") if shape != "product_js" else p.get("description")),
        currency=cur, price_format="cents" if shape == "product_js" else "major", origin=origin,
    )
    raw_variants = p.get("variants") or []
    if not raw_variants:
        product.problems.append(DropNote("no_variants", origin, "the product has no variants"))
    for pos, v in enumerate(raw_variants, start=1):
        if not isinstance(v, dict):
            product.problems.append(DropNote("bad_variant", variant_origin(origin, pos - 1),
                                             f"the variant is not an object ({type(v).__name__})"))
            continue
        values = [v.get(f"option{i}") for i in (1, 2, 3)]
        if all(x is None for x in values) and isinstance(v.get("options"), list):
            values = list(v["options"])
        options = tuple((names[i] if i < len(names) else f"Option {i + 1}", str(val))
                        for i, val in enumerate(values) if val is not None)
        available, qty = _stock(v, shape)
        vid = v.get("id")
        vkey = str(vid) if vid is not None else clean(v.get("sku")) or f"{key}-{pos}"
        weight = _weight_g(v, shape)
        url = f"{base_url}/products/{handle}?variant={vid}" if handle and vid is not None else ""
        product.variants.append(SourceVariant(
            variant_key=vkey, price=v.get("price"), compare_at=v.get("compare_at_price"),
            available=available, quantity=qty, sku=v.get("sku"), options=options,
            attributes={"weight_g": weight} if weight else None, url=url, origin=variant_origin(origin, pos - 1),
        ))
    return product
