"""The large track's scripted agent (reference and mutations) and its surface shortcut scripts.

The reference of a large-track task is its plan: the searches and record reads that establish
the answer, then the answer. The plan is built from the full-space oracle, so the reference
needs no judgement; mutations replay it with one wrong decision (see :mod:`.draft`).
"""

from __future__ import annotations

from typing import Any

from ..families.discovery_shortcuts import content_words
from ..names import register_policy, register_shortcut

FAMILIES = ("L1_discovery", "L2_grounding", "L3_preference", "L5_multi_item")
"""The large track's families (task ``family`` values)."""


@register_policy("large_catalog_agent")
class LargeCatalogAgent:
    """Takes the actions of ``plan`` in order (a rejected one does not stop it), then finishes."""

    def __init__(self, *, plan: list[dict[str, Any]]) -> None:
        self.plan = [dict(a) for a in plan]
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Start the plan again."""
        self.at = 0

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        """The next planned action (``finish`` once the plan is done)."""
        if self.at >= len(self.plan):
            return {"kind": "finish"}
        self.at += 1
        return dict(self.plan[self.at - 1])


class TopHit:
    """Surface shortcut: searches the request's first words (dropping words until something is found,
    sorted ``sort``), then answers the top hit in every listing field a request might ask for."""

    FIELDS = ("listing_id", "first", "second", "cheaper", "more_reviews")

    def __init__(self, sort: str = "relevance") -> None:
        self.sort = sort
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.words: list[str] | None = None
        self.done = False

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        """Search, relax the words, answer the top hit."""
        if self.done:
            return {"kind": "finish"}
        if self.words is None:
            self.words = content_words(str(obs.get("request", "")))
        else:
            last = obs.get("last_result") or {}
            items = ((last.get("result") or {}).get("items") or []) if last.get("accepted") else []
            if items or len(self.words) <= 1:
                self.done = True
                if not items:
                    return {"kind": "abstain", "reason": "nothing found"}
                top = items[0]["listing_id"]
                return {"kind": "submit_answer", "answer": dict.fromkeys(self.FIELDS, top), "evidence": [top]}
            self.words = self.words[:-1]
        return {"kind": "search_listings", "text": " ".join(self.words), "sort": self.sort, "in_stock": True}


for _family in FAMILIES:
    register_shortcut(_family, "top_hit")(TopHit)
    register_shortcut(_family, "cheapest_hit")(lambda: TopHit("price_asc"))
