"""A catalog as the large-track builders query it: full match sets, first pages, the track's currency.

Every oracle of the track is computed here over the *full* match space of a query
(:meth:`Catalog.oracle_ids`), never over a page an agent might see; :meth:`CatalogView.page`
gives what a bounded search page would show (for the builders' anti-shortcut checks).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import numpy as np

from ...catalog import Catalog
from ...core.errors import AcworldError

FLAG_WORDS: dict[str, tuple[str, str | None]] = {
    "latex_free": ("latex-free", "safe for someone with a latex allergy"),
    "non_slip": ("non-slip", "one that won't slide around"),
    "eco_friendly": ("eco-friendly", "kind to the planet"),
    "organic": ("organic", "grown without synthetic chemicals"),
    "vegan": ("vegan", "with nothing made from animals"),
    "waterproof": ("waterproof", "able to keep the rain out"),
    "dishwasher_safe": ("dishwasher-safe", "fine to put in the dishwasher"),
    "induction_compatible": ("induction-compatible", "usable on an induction hob"),
    "frost_resistant": ("frost-resistant", "able to stay outside through a freezing winter"),
    "hypoallergenic": ("hypoallergenic", "gentle on allergies"),
    "machine_washable": ("machine-washable", "fine to throw in the washing machine"),
    "wireless": ("wireless", "without a cord"),
    "battery_free": ("battery-free", "never in need of batteries"),
}
"""Boolean attributes a shopper may ask for: plain words, and vague words the catalog never uses."""
VALUE_WORDS: dict[str, str] = {
    "material": "made of {v}", "level": "for {v} level", "fit": "with a {v} fit", "care": "with '{v}' care",
    "caffeine": "with {v} caffeine", "closure": "with {v} closure", "season": "for {v} use",
    "sole": "with a {v} sole", "connector": "with a {v} connector", "pet": "for a {v}",
}
"""Text attributes a shopper may ask for, as words."""
OPTION_WORDS: dict[str, str] = {"color": "in {v}", "size": "in size {v}", "material": "in {v}", "style": "in the {v} style",
                                "scent": "with the {v} scent", "flavor": "in the {v} flavour", "pattern": "with the {v} pattern"}
"""Variant options a shopper may ask for (catalogs without typed attributes, e.g. storefront dumps)."""
VAGUE_VALUES: dict[tuple[str, str], str] = {
    ("level", "beginner"): "for someone just starting out",
    ("level", "advanced"): "for somebody who has done this for years",
    ("caffeine", "none"): "that won't keep me awake at night",
    ("caffeine", "high"): "with a serious kick to wake me up",
    ("material", "cork"): "made from tree bark",
    ("material", "leather"): "made from animal hide",
}
"""Text attribute values in words a literal search cannot find."""


class TooMany(AcworldError, RuntimeError):
    """A match set too large to be a task's oracle (the builder draws again; it never truncates)."""


MAX_MATCHES = 800
"""The most listings an oracle query may match (every one is read to compute the accepted set)."""


class CatalogView:
    """Read-only queries of one catalog, cached per process; ``currency`` is the track's currency."""

    def __init__(self, catalog: Catalog, name: str) -> None:
        self.cat, self.name = catalog, name
        currencies = dict(catalog.metadata.get("currencies") or {})
        self.currency = max(sorted(currencies), key=lambda c: currencies[c]) if currencies else "USD"
        self._records = lru_cache(maxsize=1024)(self._records_uncached)
        self._categories: dict[int, list[str]] = {}

    def _records_uncached(self, key: str) -> tuple[dict[str, Any], ...]:
        ids = self.cat.oracle_ids(json.loads(key))
        return tuple(x.model_dump(mode="json") for x in self.cat.get_many(ids))

    def records(self, q: dict[str, Any], *, any_currency: bool = False) -> list[dict[str, Any]]:
        """Every listing matching ``q`` over the whole catalog, in the query's order (track currency only
        unless ``any_currency``); :class:`TooMany` when more than :data:`MAX_MATCHES` match."""
        key = json.dumps(q, sort_keys=True)
        if self.count(key) > MAX_MATCHES:
            raise TooMany(key)
        out = self._records(key)
        return [r for r in out if any_currency or r["currency"] == self.currency]

    def count(self, key: str) -> int:
        """How many listings the query (JSON text) matches."""
        return int(self.cat.search_ids({**json.loads(key), "page_size": 1})[0])

    def scan(self, q: dict[str, Any], n: int = 200) -> list[dict[str, Any]]:
        """The first ``n`` matches of ``q`` in the track's currency (candidates to draw from, not an oracle)."""
        ids: list[str] = []
        for page in range(1, n // 50 + 2):
            got = self.cat.search_ids({**q, "page": page, "page_size": 50})[1]
            ids += got
            if len(got) < 50 or len(ids) >= n:
                break
        return [r for r in (x.model_dump(mode="json") for x in self.cat.get_many(ids[:n]))
                if r["currency"] == self.currency]

    def sample(self, q: dict[str, Any], rng: Any) -> dict[str, Any] | None:
        """One listing matching ``q`` drawn uniformly over the full match set (None when none is in the currency)."""
        total = self.count(json.dumps(q, sort_keys=True))
        if total == 0:
            return None
        at = int(rng.integers(total))
        ids = self.cat.search_ids({**q, "page": at // 50 + 1, "page_size": 50})[1]
        r = self.cat.get(ids[at % 50]).model_dump(mode="json") if at % 50 < len(ids) else None
        return r if r is not None and r["currency"] == self.currency else None

    def page(self, q: dict[str, Any], n: int = 10) -> list[str]:
        """The listing ids on the first page (``n`` results) of a search."""
        return list(self.cat.search_ids({**q, "page_size": n})[1])

    def categories(self, min_in_stock: int = 12) -> list[str]:
        """Categories (properly named) with enough in-stock listings to build tasks from, sorted (counted once).

        Only categories at least as large as the median one: the long tail of a big catalog is mostly
        stray labels (another language, a merchant's own wording) that a shopper would not use."""
        if min_in_stock not in self._categories:
            named = {c: n for c, (_, n) in self.cat.category_counts().items() if c and c[:1].isupper() and c.isascii()}
            floor = max(min_in_stock, int(np.median(list(named.values()))) if named else 0)
            self._categories[min_in_stock] = sorted(c for c, n in named.items() if n >= floor)
        return list(self._categories[min_in_stock])

    def draw_target(self, rng: Any) -> tuple[str, dict[str, Any], list[dict[str, Any]]] | None:
        """A random category, a listing drawn from it, and the needs that listing can state (None when no
        listing in the currency was drawn): the start of every Discovery, Grounding and Preference draft."""
        cats = self.categories()
        category = cats[int(rng.integers(len(cats)))]
        target = self.sample(query(category, [], sort="price_asc"), rng)
        return None if target is None else (category, target, needs_of(target))

    def money(self, cents: int) -> str:
        """An amount as a request writes it: ``$8.00`` in US dollars, else ``8.00 GBP``."""
        return f"${cents / 100:,.2f}" if self.currency == "USD" else f"{cents / 100:,.2f} {self.currency}"


def needs_of(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The requirements listing ``r`` meets that a shopper could state (attribute equalities)."""
    out = []
    for key, v in sorted(r["attributes"].items()):
        if key in FLAG_WORDS and v is True:
            plain, vague = FLAG_WORDS[key]
            out.append({"key": key, "value": True, "words": plain, "vague": vague})
        elif key in VALUE_WORDS and isinstance(v, str) and v:
            words = "caffeine-free" if (key, v) == ("caffeine", "none") else VALUE_WORDS[key].format(v=v)
            out.append({"key": key, "value": v, "words": words,
                        "vague": VAGUE_VALUES.get((key, v))})
    for key, v in sorted(r.get("options", {}).items()):
        if isinstance(v, str) and v and key in OPTION_WORDS:
            out.append({"key": key, "value": v, "words": OPTION_WORDS[key].format(v=v), "vague": None,
                        "group": "options"})
    return out


def query(category: str, needs: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """The search query of a category, in stock, with every need as an attribute filter."""
    q: dict[str, Any] = {"category": category, "in_stock": True, **extra}
    for n in needs:
        q.setdefault(n.get("group", "attributes"), {})[n["key"]] = n["value"]
    return q


def join(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
