"""T1 Discovery pages: the shipped catalog as the builder queries it, and what a surface script would see.

The builder uses :func:`surface` to keep a task only when the obvious pages mislead: the top hit
of each query built from the request's surface is not an accepted answer (and, when nothing
fits, the decisive near miss is not on their first pages).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

from ...catalog import Catalog, default_catalog_path
from .discovery_shortcuts import content_words
from .discovery_vocab import Kind


@cache
def catalog() -> Catalog:
    """The shipped capability-v1 catalog (opened once per process)."""
    return Catalog.open(default_catalog_path())


@cache
def _records(q_key: str) -> tuple[dict, ...]:
    cat = catalog()
    return tuple(x.model_dump(mode="json") for x in cat.get_many(cat.oracle_ids(json.loads(q_key))))


def records(q: dict) -> list[dict]:
    """Every listing matching ``q``, as records, in the query's order."""
    return list(_records(json.dumps(q, sort_keys=True)))


def base(kind: Kind) -> dict[str, Any]:
    """The item type, in stock, as a query."""
    return {"category": kind.category, "attributes": {"product_type": kind.product_type}, "in_stock": True}


def text_of(kind: Kind) -> str:
    """The item's name as search text."""
    return kind.noun.removeprefix("bag of ").replace("-", " ")


TEXT_FIELDS = ("options.", "brand", "attributes.material", "description")
"""Requirements a full-text search can approximate (words in titles, options, descriptions)."""


def texty(need: dict) -> bool:
    """Whether a full-text search can approximate the need."""
    return need["field"].startswith(TEXT_FIELDS)


def surface(kind: Kind, needs: list[dict], budget: int | None, request: str) -> Iterator[dict]:
    """Queries built from the request's surface: the category, the item type, its name, its searchable
    words, all of its words, and the first page a word-dropping keyword script would get (lazily,
    cheapest first)."""
    words = " ".join([text_of(kind), *(str(n["value"]) for n in needs if texty(n))])
    said = content_words(" ".join(n["words"] for n in needs))
    yield {}
    for cap in ([budget] if budget else []) + [None]:
        b = {"in_stock": True, **({"max_price": cap} if cap else {})}
        for q in ({**base(kind), **b}, {"category": kind.category, **b}, {"text": text_of(kind), **b},
                  {"text": words, **b}, {"text": " ".join([text_of(kind), *said]), **b}):
            yield from ({**q, "sort": s} for s in ("price_asc", "relevance", "rating_desc"))
    for cap in ([budget] if budget else []) + [None]:
        for sort in ("price_asc", "relevance"):
            yield from relaxed(content_words(request), {**({"max_price": cap} if cap else {}), "sort": sort})


def relaxed(words: list[str], extra: dict) -> list[dict]:
    """The first query, dropping the last word each time, that finds anything (as ``words_cheapest`` does)."""
    for k in range(len(words), 0, -1):
        q = {"text": " ".join(words[:k]), **extra}
        if top(q, 1):
            return [q]
    return []


def top(q: dict, n: int) -> list[str]:
    """The first ``n`` listing ids ``q`` finds (cached per process)."""
    return list(_top_cached(json.dumps({**q, "page_size": n}, sort_keys=True)))


@cache
def _top_cached(q_key: str) -> tuple[str, ...]:
    return tuple(catalog().search_ids(json.loads(q_key))[1])


def literal(kind: Kind, needs: list[dict]) -> str:
    """The first query a shopper's words suggest: the item's name and the vague phrases, verbatim."""
    return " ".join([text_of(kind), *(n["words"] for n in needs if n["vague"])])
