"""Configuration of a synthetic catalog and the merchant-level plan derived from it.

:class:`SynthConfig` says how many listings, merchants and source records, which
departments, and optionally an exact per-department plan (listings and in-stock
counts). :func:`plan_merchants` turns it, deterministically, into merchant profiles:
id, name, currency, pricing and stock habits, label and spelling quirks, brands,
and how many listings of which department each merchant sells.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ..textutil import slug
from .departments import CORE
from .departments_more import MORE
from .taxonomy import Department, Draw, cumulative, words

DEPARTMENTS: dict[str, Department] = {d.key: d for d in CORE + MORE}

DEFECT_RATE = 6409 / 785022
"""Share of extra source records that the build drops (zero/missing price, repeated
SKU), per kept listing: the paper's 791,431 records -> 785,022 listings."""

DEFAULT_CURRENCIES = (("USD", 0.62), ("GBP", 0.12), ("EUR", 0.10), ("CAD", 0.05), ("AUD", 0.05),
                      ("INR", 0.04), ("JPY", 0.02))
USD_PER_UNIT = {"USD": 1.0, "GBP": 1 / 0.79, "EUR": 1 / 0.92, "CAD": 1 / 1.36, "AUD": 1 / 1.52,
                "INR": 1 / 83.0, "JPY": 1 / 150.0}

_NAME_A = words("Blue|Golden|Little|Wild|Urban|North|Old|Bright|Silver|Green|Red|Happy|Quiet|Royal|"
                "Honest|Simple|Modern|Coastal|Summit|Hidden")
_NAME_B = words("Fox|Oak|River|Harbor|Meadow|Lantern|Willow|Pine|Anchor|Sparrow|Stone|Maple|Birch|"
                "Cedar|Otter|Heron")
_NAME_C = words("Supply|Goods|Co|Market|Store|Trading|House|Outfitters|Collective|Shop|Emporium|Studio")
_BRAND_A = words("Nor|Vel|Ash|Bright|Cedar|Copper|Elm|Fox|Glen|Hale|Iron|Juniper|Kite|Lark|Moss|Oak|"
                 "Pine|Quill|Rowan|Sage|Tall|Wren")
_BRAND_B = words("wood|field|line|craft|works|ford|mere|stone|brook|ridge")
ENDINGS = words("00|99|95|mixed|any")
_ENDING_CUM = cumulative((0.45, 0.22, 0.13, 0.1, 0.1))
_LABEL_MODES = words("clean|empty|lower|translated|department")
_LABEL_CUM = cumulative((0.72, 0.11, 0.05, 0.07, 0.05))


@dataclass(frozen=True)
class CategoryTarget:
    """Exact plan for one department: listings and (optionally) how many are in stock."""

    department: str
    listings: int
    in_stock: int | None = None


@dataclass(frozen=True)
class SynthConfig:
    """Everything that determines a synthetic catalog (same config -> same content hash)."""

    listings: int
    merchants: int
    seed: int = 0
    records: int | None = None
    departments: tuple[str, ...] = tuple(DEPARTMENTS)
    targets: tuple[CategoryTarget, ...] = ()
    currencies: tuple[tuple[str, float], ...] = DEFAULT_CURRENCIES
    messy: bool = True
    category_level: Literal["type", "department"] = "type"
    max_variants: int = 120
    rated_share: float = 0.85
    name: str = "synthetic"

    @property
    def n_records(self) -> int:
        """Source records including the ones the build will drop."""
        return self.records if self.records is not None else self.listings + round(self.listings * DEFECT_RATE)

    def validate(self) -> None:
        """Raise ``ValueError`` for an impossible configuration."""
        if self.listings < 1 or self.merchants < 1:
            raise ValueError("listings and merchants must be at least 1")
        if self.merchants > self.listings:
            raise ValueError(f"{self.merchants} merchants cannot share {self.listings} listings")
        if self.n_records < self.listings:
            raise ValueError("records must be at least listings")
        for key in self.departments:
            if key not in DEPARTMENTS:
                raise ValueError(f"unknown department {key!r} (known: {', '.join(DEPARTMENTS)})")
        if self.targets:
            if sum(t.listings for t in self.targets) != self.listings:
                raise ValueError("category targets must add up to listings")
            for t in self.targets:
                if t.department not in DEPARTMENTS:
                    raise ValueError(f"unknown department {t.department!r}")
                if t.in_stock is not None and not 0 <= t.in_stock <= t.listings:
                    raise ValueError(f"{t.department}: in_stock must be within 0..listings")


@dataclass
class MerchantProfile:
    """One synthetic merchant and its habits."""

    index: int
    merchant_id: str
    name: str
    slug: str
    currency: str
    ending: str
    compare_rate: float
    stock_rate: float
    label_mode: str
    language: str
    spelling: float
    segments: list[tuple[str, int]] = field(default_factory=list)
    defects: int = 0
    brands: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Listings this merchant will have."""
        return sum(n for _, n in self.segments)


def allocate(total: int, weights: np.ndarray, minimum: int = 0) -> list[int]:
    """Split ``total`` into integers proportional to ``weights`` (largest remainder),
    each at least ``minimum``; deterministic, ties broken by position."""
    n = len(weights)
    base = minimum * n
    if base > total:
        raise ValueError("total too small for the minimum")
    share = weights / weights.sum() * (total - base)
    floor = np.floor(share).astype(np.int64)
    rest = int(total - base - floor.sum())
    order = np.lexsort((np.arange(n), -(share - floor)))
    floor[order[:rest]] += 1
    return [int(x) + minimum for x in floor]


def _brand_pool(dept: Department, extra: int) -> tuple[str, ...]:
    """Department brands plus ``extra`` generated ones (stable per department)."""
    h = sum(ord(c) for c in dept.key)
    made = [f"{_BRAND_A[(h + i * 7) % len(_BRAND_A)]}{_BRAND_B[(h * 3 + i) % len(_BRAND_B)]}"
            for i in range(extra)]
    return dept.brands + tuple(dict.fromkeys(made))


def plan_merchants(cfg: SynthConfig) -> list[MerchantProfile]:
    """Deterministic merchant profiles with their department segments and defect counts."""
    cfg.validate()
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([cfg.seed, 0])))
    d = Draw(rng)
    width = max(3, len(str(cfg.merchants)))
    codes = [c for c, _ in cfg.currencies]
    cur_cum = cumulative([w for _, w in cfg.currencies])
    merchants: list[MerchantProfile] = []
    for i in range(cfg.merchants):
        mid = f"m{i + 1:0{width}d}"
        name = f"{d.pick(_NAME_A)} {d.pick(_NAME_B)} {d.pick(_NAME_C)}"
        merchants.append(MerchantProfile(
            index=i, merchant_id=mid, name=name, slug=f"{slug(name)}-{mid}",
            currency=d.weighted(codes, cur_cum), ending=d.weighted(ENDINGS, _ENDING_CUM),
            compare_rate=d.pick((0.1, 0.35, 0.65, 0.9)), stock_rate=min(0.99, max(0.4, 0.86 + 0.1 * d.normal())),
            label_mode=d.weighted(_LABEL_MODES, _LABEL_CUM) if cfg.messy else "clean",
            language=d.pick(("de", "es", "fr")), spelling=d.u(),
        ))
    if cfg.targets:
        _plan_targets(cfg, merchants, d, rng)
    else:
        _plan_weighted(cfg, merchants, d, rng)
    defects = cfg.n_records - cfg.listings
    if defects:
        sizes = np.array([m.size for m in merchants], dtype=np.float64)
        for m, k in zip(merchants, allocate(defects, sizes), strict=True):
            m.defects = k
    extra = 30 if cfg.merchants > 100 else 0
    pools = {key: _brand_pool(DEPARTMENTS[key], extra) for key in DEPARTMENTS}
    for m in merchants:
        for key, _ in m.segments:
            pool = pools[key]
            lo = 1 if cfg.messy else min(3, len(pool))
            chosen = d.sample(pool, d.randint(lo, min(5, len(pool))))
            if cfg.messy and d.chance(0.25):
                chosen.append(m.name)
            m.brands[key] = tuple(chosen)
    return merchants


def _plan_targets(cfg: SynthConfig, merchants: list[MerchantProfile], d: Draw,
                  rng: np.random.Generator) -> None:
    """Exact department plan: every department gets at least two merchants."""
    keys = [t.department for t in cfg.targets]
    members: dict[str, list[int]] = {k: [] for k in keys}
    shares = np.array([t.listings for t in cfg.targets], dtype=np.float64)
    primary_counts = allocate(len(merchants), shares, minimum=min(2, len(merchants) // len(keys)))
    i = 0
    for key, count in zip(keys, primary_counts, strict=True):
        for _ in range(count):
            members[key].append(i)
            i += 1
    for m in merchants:
        if d.chance(0.3):
            other = d.pick(keys)
            if m.index not in members[other]:
                members[other].append(m.index)
    for t in cfg.targets:
        idx = sorted(members[t.department])
        weights = np.exp(0.8 * rng.standard_normal(len(idx)))
        for mi, n in zip(idx, allocate(t.listings, weights, minimum=1), strict=True):
            merchants[mi].segments.append((t.department, n))
    for m in merchants:
        m.segments.sort(key=lambda s: keys.index(s[0]))


def _plan_weighted(cfg: SynthConfig, merchants: list[MerchantProfile], d: Draw,
                   rng: np.random.Generator) -> None:
    """Heavy-tailed merchant sizes; one to three departments per merchant."""
    sizes = allocate(cfg.listings, np.exp(1.35 * rng.standard_normal(len(merchants))), minimum=1)
    keys = list(cfg.departments)
    dept_cum = cumulative([DEPARTMENTS[k].weight for k in keys])
    for m, size in zip(merchants, sizes, strict=True):
        depts = [d.weighted(keys, dept_cum)]
        for p in (0.3, 0.08):
            if d.chance(p):
                other = d.weighted(keys, dept_cum)
                if other not in depts:
                    depts.append(other)
        if len(depts) == 1 or size < len(depts):
            m.segments = [(depts[0], size)]
            continue
        weights = np.array([d.uniform(2.0, 5.0)] + [d.uniform(0.3, 1.5) for _ in depts[1:]])
        m.segments = [(k, n) for k, n in zip(depts, allocate(size, weights, minimum=1), strict=True)]
