"""Deterministic synthetic Shopify-like source records.

Calibrated on the real storefront dumps (yoga mats, home textiles, pet care):

* listings per merchant are heavy-tailed (log-normal weights, sigma 1.35);
* prices are log-normal per department and product type (the dumps give sigma
  0.6-1.1 in log space across stores; per department we use 0.33-0.8), with the
  endings stores use: mostly ``.00``, then ``.99``/``.95``, some arbitrary cents;
  JPY in whole yen, INR in whole rupees;
* about half the products carry a compare-at price (0.61/0.64 in two dumps), a few
  equal to the price, as real stores do;
* about 85% of variants are in stock (0.85 in two dumps);
* variant counts follow the dumps' long tail (46% single-variant, median 2, a few
  above 50), built from size/colour/... option axes;
* some product types are empty or not in English, option names are spelled
  several ways (``Color``/``Colour``/``color``), several currencies are used;
* a small share of extra records have a zero or missing price or repeat a SKU, so
  the build drops them (``DEFECT_RATE``).

Records are produced merchant by merchant, each merchant from its own seeded
stream, in increasing ``listing_id`` order (``m0001-p00001-v001``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product as cartesian

import numpy as np

from ...core.money import exponent
from ..records import SourceProduct, SourceVariant
from ..textutil import slug
from .plan import DEPARTMENTS, USD_PER_UNIT, MerchantProfile, SynthConfig, plan_merchants
from .taxonomy import Axis, Department, Draw, ProductType, cumulative, default_title

GENERATOR_VERSION = 1
_VARIANT_BUCKETS = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 10), (11, 20), (21, 50), (51, 120))
_VARIANT_CUM = cumulative((0.455, 0.115, 0.083, 0.059, 0.041, 0.039, 0.071, 0.045, 0.06, 0.032))
_NOISE_TAGS = ("sale", "new", "bestseller", "gift", "limited edition", "back in stock")
_MIXED_CENTS = (0, 99, 95, 50, 49, 0, 0)


def _variant_count(d: Draw) -> int:
    lo, hi = d.weighted(_VARIANT_BUCKETS, _VARIANT_CUM)
    return lo if lo == hi else d.randint(lo, hi)


def _axis_name(axis: Axis, spelling: float) -> str:
    if spelling < 0.6 or len(axis.names) == 1:
        return axis.names[0]
    return axis.names[1 + int((spelling - 0.6) / 0.4 * (len(axis.names) - 1))]


def _mode(currency: str, ending: str) -> str:
    if exponent(currency) == 0:
        return "whole"
    if currency == "INR":
        return "inr99" if ending == "99" else "inr"
    return ending


def _minor_local(x: float, mode: str, d: Draw) -> int:
    """Minor units of a price near ``x`` (major units) written with the store's endings."""
    if mode == "00":
        return max(1, int(round(x))) * 100
    whole = max(1, int(x))
    if mode == "99":
        return whole * 100 + 99
    if mode == "95":
        return whole * 100 + 95
    if mode == "mixed":
        return whole * 100 + d.pick(_MIXED_CENTS)
    if mode == "any":
        return whole * 100 + int(d.u() * 100)
    if mode == "whole":
        return max(100, int(round(x, -1)))
    return (max(50, int(round(x / 10)) * 10) - (1 if mode == "inr99" else 0)) * 100


def price_text(minor: int, currency: str) -> str:
    """How a storefront writes ``minor`` units of ``currency`` (``"24.99"``, ``"4280"``)."""
    exp = exponent(currency)
    if exp == 0:
        return str(minor)
    whole, frac = divmod(minor, 10**exp)
    return f"{whole}.{frac:0{exp}d}"


VariantDraw = tuple[int, tuple[str, ...], int, int | None, bool, int, dict[str, object] | None]
"""``(variant number, option values, price, compare-at, in stock, quantity, variant attributes)``."""


@dataclass(slots=True)
class ProductDraw:
    """Everything drawn for one product; turned into source records or straight into rows."""

    src: SourceProduct
    pkey: str
    names: tuple[str, ...]
    variants: list[VariantDraw]
    defects: list[tuple[int, str, int | None]]
    url: str
    sku0: str

    def to_source(self) -> SourceProduct:
        """The product as a storefront export would give it (text prices, SKUs, raw options)."""
        src, cur, names = self.src, self.src.currency, self.names
        for v, combo, price, compare, in_stock, qty, extra in self.variants:
            vk = f"{v:03d}"
            src.variants.append(SourceVariant(
                f"{self.pkey}-v{vk}", price_text(price, cur), None if compare is None else price_text(compare, cur),
                in_stock, qty, f"{self.sku0}-{vk}", tuple(zip(names, combo, strict=False)), extra,
                f"{self.url}{v}"))
        for k, (v, kind, minor) in enumerate(self.defects):
            src.variants.append(SourceVariant(
                f"{self.pkey}-v{v:03d}", None if minor is None else price_text(minor, cur), None, True, 1,
                f"{self.sku0}-{1 if kind == 'dup' else v:03d}", tuple((n, f"Sample {k + 1}") for n in names[:1]),
                None, f"{self.url}{v}"))
        return src


class SyntheticCatalog:
    """Source records of a synthetic catalog described by a :class:`SynthConfig`."""

    def __init__(self, cfg: SynthConfig) -> None:
        self.cfg = cfg
        self.merchants: list[MerchantProfile] = plan_merchants(cfg)
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([cfg.seed, 2])))
        self._stock: dict[str, np.ndarray] = {}
        for t in cfg.targets:
            if t.in_stock is not None:
                flags = np.zeros(t.listings, dtype=bool)
                flags[rng.permutation(t.listings)[:t.in_stock]] = True
                self._stock[t.department] = flags
        self._cap_cache: dict[str, list[int]] = {}
        self._stock_start: dict[tuple[int, str], int] = {}
        seen: dict[str, int] = {}
        for m in self.merchants:
            for key, n in m.segments:
                self._stock_start[(m.index, key)] = seen.get(key, 0)
                seen[key] = seen.get(key, 0) + n

    def _caps(self, dept: Department) -> list[int]:
        """Most variants each product type of ``dept`` can have (product of axis sizes)."""
        caps = self._cap_cache.get(dept.key)
        if caps is None:
            caps = self._cap_cache[dept.key] = [
                math.prod(min(len(a.values), a.max_pick) for a in map(dept.axis, t.axes)) for t in dept.types]
        return caps

    def _label(self, m: MerchantProfile, dept: Department, ptype: ProductType) -> str:
        if self.cfg.category_level == "department":
            return dept.name
        mode = m.label_mode
        if mode == "empty":
            return ""
        if mode == "lower":
            return ptype.name.lower()
        if mode == "department":
            return dept.name
        if mode == "translated":
            return dict(ptype.translations).get(m.language, ptype.name)
        return ptype.name

    def products(self, merchants: range | None = None) -> Iterator[SourceProduct]:
        """Source products of all (or the given) merchants, in listing-id order.

        Each merchant's products depend only on the configuration and the merchant,
        so any range of merchants can be generated independently (in parallel).
        """
        for draw in self.draws(merchants):
            yield draw.to_source()

    def draws(self, merchants: range | None = None) -> Iterator[ProductDraw]:
        """The drawn products of all (or the given) merchants, in listing-id order."""
        for i in merchants if merchants is not None else range(len(self.merchants)):
            yield from self.merchant_draws(self.merchants[i])

    def merchant_draws(self, m: MerchantProfile) -> Iterator[ProductDraw]:
        """Drawn products of one merchant."""
        cfg = self.cfg
        d = Draw(np.random.Generator(np.random.PCG64(np.random.SeedSequence([cfg.seed, 1, m.index]))))
        plan: list[tuple[Department, ProductType, int]] = []
        stock: dict[str, list[bool]] = {}
        for key, n in m.segments:
            if key in self._stock:
                start = self._stock_start[(m.index, key)]
                stock[key] = self._stock[key][start:start + n].tolist()[::-1]
            dept = DEPARTMENTS[key]
            remaining = n
            caps = self._caps(dept)
            types = dept.types
            while remaining > 0:
                want = min(_variant_count(d), cfg.max_variants, remaining)
                fits = [i for i, c in enumerate(caps) if c >= want]
                if fits:
                    cum = []
                    total = 0.0
                    for i in fits:
                        total += types[i].weight
                        cum.append(total)
                    k = fits[d.weighted(range(len(fits)), cum)]
                else:
                    k = max(range(len(caps)), key=caps.__getitem__)
                plan.append((dept, types[k], min(want, caps[k])))
                remaining -= plan[-1][2]
        defects: dict[int, int] = {}
        for _ in range(m.defects):
            j = int(d.u() * len(plan))
            defects[j] = defects.get(j, 0) + 1
        width = max(5, len(str(len(plan))))
        for j, (dept, ptype, nv) in enumerate(plan):
            yield self._product(d, m, dept, ptype, nv, f"p{j + 1:0{width}d}", defects.get(j, 0),
                                stock.get(dept.key))

    def _product(self, d: Draw, m: MerchantProfile, dept: Department, ptype: ProductType, nv: int,
                 pkey: str, n_defects: int, stock_flags: list[bool] | None) -> ProductDraw:
        cfg = self.cfg
        brand = d.pick(m.brands[dept.key])
        material = d.pick(ptype.materials or dept.materials)
        title = (dept.title or default_title)(d, dept, ptype, brand, material)
        attrs = dept.attrs(d, ptype, material)
        if cfg.category_level == "department":
            attrs["product_type"] = ptype.name
        tags = d.sample(dept.tags, d.randint(2, 5))
        if attrs.get("vegan") is True:
            tags.append("vegan")
        if cfg.messy and d.chance(0.3):
            tags.append(d.pick(_NOISE_TAGS))
        f1, f2 = d.sample(dept.features, 2)
        desc = f"With {f1} and {f2}."
        if "material" in attrs:
            desc += f" Made from {attrs['material']}."
        rating, reviews = None, 0
        if d.chance(cfg.rated_share):
            rating = round(min(5.0, max(1.0, 4.35 + 0.45 * d.normal())), 1)
            reviews = 1 + int(math.exp(round(2.3 + 1.2 * d.normal(), 9)))
        src = SourceProduct(merchant_id=m.merchant_id, product_key=pkey, title=title, brand=brand,
                            category=self._label(m, dept, ptype), tags=tags, description=desc,
                            attributes=attrs, rating=rating, review_count=reviews, currency=m.currency)
        base = d.lognormal(dept.price_median * ptype.price_mult, dept.price_sigma) / USD_PER_UNIT[m.currency]
        mode = _mode(m.currency, m.ending)
        compare = None
        if d.chance(m.compare_rate):
            compare = 1.0 if d.chance(0.12) else d.uniform(1.1, 1.6)
        axes = [dept.axis(r) for r in ptype.axes]
        combos = self._combos(d, axes, nv)
        names = tuple(_axis_name(a, m.spelling) for a in axes)
        stock_rate = m.stock_rate
        variants: list[VariantDraw] = []
        add = variants.append
        info = [(a.index, a.steps, a.attr, a.attr_values) for a in axes]
        for v, combo in enumerate(combos, start=1):
            factor = 1.0
            extra: dict[str, object] | None = None
            for (index, steps, attr, attr_values), value in zip(info, combo, strict=False):
                i = index[value]
                if steps is not None:
                    factor *= steps[i]
                if attr_values is not None:
                    if extra is None:
                        extra = {}
                    extra[attr] = attr_values[i]  # type: ignore[index]
            price = _minor_local(base * factor, mode, d)
            cap_minor = None
            if compare is not None:
                cap_minor = price if compare == 1.0 else _minor_local(base * factor * compare, mode, d)
            in_stock = stock_flags.pop() if stock_flags is not None else d.u() < stock_rate
            qty = min(500, 1 + int(-math.log(1.0 - d.u()) * 24)) if in_stock else 0
            add((v, combo, price, cap_minor, in_stock, qty, extra))
        defects: list[tuple[int, str, int | None]] = []
        for k in range(n_defects):
            kind = d.pick(("zero", "zero", "missing", "missing", "dup"))
            minor = {"zero": 0, "missing": None}.get(kind, _minor_local(base, mode, d))
            defects.append((nv + 1 + k, kind, minor))
        return ProductDraw(src, pkey, names, variants, defects,
                           f"https://{m.slug}.example/products/{slug(title)}-{pkey}?variant=",
                           f"{m.merchant_id.upper()}-{pkey.upper()}")

    @staticmethod
    def _combos(d: Draw, axes: list[Axis], nv: int) -> list[tuple[str, ...]]:
        """``nv`` option-value combinations over ``axes`` (first axis varies slowest)."""
        if not axes:
            return [()] * nv
        if nv == 1 and d.chance(0.5):
            return [()]
        caps = [min(len(a.values), a.max_pick) for a in axes]
        counts = [1] * len(axes)
        while math.prod(counts) < nv:
            best, grow = 2.0, 0
            for i, (c, cap_) in enumerate(zip(counts, caps, strict=True)):
                if c < cap_ and c / cap_ < best:
                    best, grow = c / cap_, i
            counts[grow] += 1
        chosen = []
        for a, k in zip(axes, counts, strict=True):
            if a.ordered:
                start = d.randint(0, len(a.values) - k)
                chosen.append(a.values[start:start + k])
            else:
                chosen.append(tuple(d.sample(a.values, k)))
        return list(cartesian(*chosen))[:nv]


__all__ = ["GENERATOR_VERSION", "ProductDraw", "SyntheticCatalog", "price_text"]
