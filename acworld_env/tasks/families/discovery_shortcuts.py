"""Surface-only shortcut scripts for T1 Discovery, run by the baseline gate.

Each reads only the surface of its observation (the request's words, the budget in its
mandate, the search pages it gets back) and never maps a requirement to the catalog's
vocabulary. A suite whose tasks pay these scripts measures the shortcut, not discovery:

* ``words_cheapest``: search the request's content words (dropping the last word until
  something comes back), within the budget, sorted by price; read the top hit; answer it.
* ``first_hit``: one unfiltered search; answer its first hit.
* ``type_cheapest``: find the item type from the top hit of a words search, then search that
  category and type, in stock, within the budget, sorted by price; read and answer the top.
* ``type_top_rated``: the same, sorted by rating.
* ``search_then_abstain``: one words search, then abstain (games "nothing fits").
"""

from __future__ import annotations

import re
from typing import Any

from ..names import register_shortcut

FAMILY = "T1_discovery"
_STOP_WORDS = """a an and any are as at be but by can could do don't for from find have help i i'm if in is it
its just listing me my need no not now of on one or please ready ship should so some tell that the them
then there this to up want which with yet you your it's buy anything fits nothing fit several looking
bag"""
_STOP = frozenset(_STOP_WORDS.split())
MAX_WORDS = 6


def content_words(request: str) -> list[str]:
    """The request's first sentence, minus stop words (what a keyword script would search for)."""
    first = re.split(r"[.!?]", request, maxsplit=1)[0]
    words = [w for w in re.findall(r"[a-z0-9][a-z0-9'-]*", first.lower()) if w not in _STOP]
    return words[:MAX_WORDS]


class _Script:
    """Base: remembers the words left to try, the last page and what it read."""

    sort = "price_asc"

    def __init__(self) -> None:
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.words: list[str] | None = None
        self.stage = "search"
        self.pick: str | None = None

    def _budget(self, obs: dict[str, Any]) -> dict[str, Any]:
        budget = (obs.get("mandate") or {}).get("budget")
        return {"max_price": budget} if isinstance(budget, int) else {}

    def _items(self, obs: dict[str, Any]) -> list[dict[str, Any]]:
        last = obs.get("last_result") or {}
        result = last.get("result") if last.get("accepted") else None
        return list(result.get("items", [])) if isinstance(result, dict) else []

    def _words_search(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """The next words search (one word fewer each time), or None when no words are left."""
        if self.words is None:
            self.words = content_words(obs.get("request", ""))
        if not self.words:
            return None
        q = {"kind": "search_listings", "text": " ".join(self.words), **self._budget(obs), "sort": self.sort}
        self.words = self.words[:-1]
        return q

    def _answer(self, listing_id: str | None) -> dict[str, Any]:
        self.stage = "done"
        if listing_id is None:
            return {"kind": "abstain", "reason": "I found nothing."}
        return {"kind": "submit_answer", "answer": {"listing_id": listing_id}, "evidence": [listing_id]}


@register_shortcut(FAMILY, "words_cheapest")
class WordsCheapest(_Script):
    """Search the request's words within the budget by price (relaxing), read the top hit, answer it."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """One step."""
        if self.stage == "search":
            items = self._items(obs) if self.words is not None else []
            if items:
                self.pick, self.stage = items[0]["listing_id"], "read"
                return {"kind": "get_listing", "listing_id": self.pick}
            return self._words_search(obs) or self._answer(None)
        if self.stage == "read":
            return self._answer(self.pick)
        return {"kind": "finish"}


@register_shortcut(FAMILY, "first_hit")
class FirstHit(_Script):
    """One unfiltered search; answer its first hit."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """One step."""
        if self.stage == "search":
            self.stage = "answer"
            return {"kind": "search_listings"}
        if self.stage == "answer":
            items = self._items(obs)
            return self._answer(items[0]["listing_id"] if items else None)
        return {"kind": "finish"}


@register_shortcut(FAMILY, "type_cheapest")
class TypeCheapest(_Script):
    """Find the item type from a words search, then take the cheapest (by ``sort``) of that type in budget."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """One step."""
        if self.stage == "search":
            items = self._items(obs) if self.words is not None else []
            if items:
                top = items[0]
                self.stage = "typed"
                ptype = (top.get("attributes") or {}).get("product_type")
                return {"kind": "search_listings", "category": top.get("category"), "in_stock": True,
                        **({"attributes": {"product_type": ptype}} if ptype else {}), **self._budget(obs),
                        "sort": self.sort}
            return self._words_search(obs) or self._answer(None)
        if self.stage == "typed":
            items = self._items(obs)
            if not items:
                return self._answer(None)
            self.pick, self.stage = items[0]["listing_id"], "read"
            return {"kind": "get_listing", "listing_id": self.pick}
        if self.stage == "read":
            return self._answer(self.pick)
        return {"kind": "finish"}


@register_shortcut(FAMILY, "type_top_rated")
class TypeTopRated(TypeCheapest):
    """:class:`TypeCheapest` sorted by rating instead of price."""

    sort = "rating_desc"


@register_shortcut(FAMILY, "search_then_abstain")
class SearchThenAbstain(_Script):
    """Search the request's words once, then say nothing fits."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """One step."""
        if self.stage == "search":
            self.stage = "abstain"
            return self._words_search(obs) or self._answer(None)
        if self.stage == "abstain":
            return self._answer(None)
        return {"kind": "finish"}
