"""Building blocks of the synthetic catalog: departments, product types, option axes.

A :class:`Department` (e.g. Footwear) lists its product types, brands, product-line
names, materials, option axes (size, colour, ...) with their raw name spellings,
a log-normal price model, tags, description phrases and a function that draws the
typed attributes of one product. :class:`Draw` hands out uniform and normal
numbers from a ``numpy.random.Generator`` in blocks, so generating a listing costs
list lookups rather than one numpy call per number.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


class Draw:
    """Deterministic stream of random draws from a seeded numpy Generator."""

    def __init__(self, rng: np.random.Generator, block: int = 2048) -> None:
        self.rng = rng
        self.block = block
        self._u: list[float] = []
        self._n: list[float] = []

    def u(self) -> float:
        """Uniform in [0, 1)."""
        if not self._u:
            self._u = self.rng.random(self.block).tolist()
            self._u.reverse()
        return self._u.pop()

    def normal(self) -> float:
        """Standard normal."""
        if not self._n:
            self._n = self.rng.standard_normal(self.block).tolist()
            self._n.reverse()
        return self._n.pop()

    def pick(self, seq: Sequence[T]) -> T:
        """A uniformly chosen element."""
        return seq[int(self.u() * len(seq))]

    def chance(self, p: float) -> bool:
        """True with probability ``p``."""
        return self.u() < p

    def randint(self, lo: int, hi: int) -> int:
        """Integer in ``[lo, hi]``."""
        return lo + int(self.u() * (hi - lo + 1))

    def uniform(self, lo: float, hi: float) -> float:
        """Float in ``[lo, hi)``."""
        return lo + (hi - lo) * self.u()

    def weighted(self, items: Sequence[T], cumulative: Sequence[float]) -> T:
        """Element chosen with weights given as a cumulative list."""
        return items[min(bisect_right(cumulative, self.u() * cumulative[-1]), len(items) - 1)]

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        """``k`` distinct elements, in their original order."""
        n = len(seq)
        if k >= n:
            return list(seq)
        picked: set[int] = set()
        while len(picked) < k:
            picked.add(int(self.u() * n))
        return [seq[i] for i in sorted(picked)]

    def lognormal(self, median: float, sigma: float) -> float:
        """Log-normal with the given median; the normal is rounded to 1e-9 first so
        platform ``exp`` differences cannot change a rounded price."""
        return median * math.exp(round(sigma * self.normal(), 9))


def words(text: str) -> tuple[str, ...]:
    """Split a ``"a|b|c"`` word list (empty string -> empty tuple)."""
    return tuple(text.split("|")) if text else ()


def cumulative(weights: Sequence[float]) -> list[float]:
    """Running sums of ``weights``, for :meth:`Draw.weighted`."""
    return list(accumulate(weights))


@dataclass(frozen=True)
class Axis:
    """A variant option axis: canonical key, raw spellings, values, price steps."""

    key: str
    names: tuple[str, ...]
    values: tuple[str, ...]
    role: str = ""
    steps: tuple[float, ...] | None = None
    attr: str | None = None
    attr_values: tuple[Any, ...] | None = None
    ordered: bool = False
    max_pick: int = 99

    index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.role:
            object.__setattr__(self, "role", self.key)
        object.__setattr__(self, "index", {v: i for i, v in enumerate(self.values)})


@dataclass(frozen=True)
class ProductType:
    """A product type within a department."""

    name: str
    singular: str
    weight: float = 1.0
    price_mult: float = 1.0
    axes: tuple[str, ...] = ()
    translations: tuple[tuple[str, str], ...] = ()
    materials: tuple[str, ...] = ()


AttrFn = Callable[[Draw, ProductType, str], dict[str, Any]]


@dataclass(frozen=True)
class Department:
    """Everything the generator needs to invent products of one department."""

    key: str
    name: str
    types: tuple[ProductType, ...]
    brands: tuple[str, ...]
    lines: tuple[str, ...]
    adjectives: tuple[str, ...]
    materials: tuple[str, ...]
    price_median: float
    price_sigma: float
    axes: tuple[Axis, ...]
    tags: tuple[str, ...]
    features: tuple[str, ...]
    attrs: AttrFn
    weight: float = 1.0
    title: Callable[[Draw, Department, ProductType, str, str], str] | None = None
    type_cum: list[float] = field(default_factory=list, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "type_cum", cumulative([t.weight for t in self.types]))

    def axis(self, role: str) -> Axis:
        """The axis a product type calls ``role``."""
        for a in self.axes:
            if a.role == role:
                return a
        raise KeyError(f"{self.key}: no axis {role!r}")


def default_title(d: Draw, dept: Department, ptype: ProductType, brand: str, material: str) -> str:
    """``Brand Line [Adjective|Material] Singular``."""
    line = d.pick(dept.lines)
    r = d.u()
    if r < 0.4:
        return f"{brand} {line} {ptype.singular}"
    if r < 0.75:
        return f"{brand} {line} {d.pick(dept.adjectives)} {ptype.singular}"
    return f"{brand} {line} {cap(material)} {ptype.singular}"


def cap(text: str) -> str:
    """Capitalise each word, leaving acronyms (``TPE``) alone."""
    return " ".join(w if w.isupper() else w[:1].upper() + w[1:] for w in text.split())
