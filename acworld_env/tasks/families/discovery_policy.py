"""The T1 discovery buyer: searches with the request's hard constraints, reads the pick, answers.

Parameters let mutations make exactly one wrong decision: answer a fixed (wrong) listing,
drop a constraint from its queries, pick a worse item, or give up after a failed search.
"""

from __future__ import annotations

from typing import Any

from ...policies.registry import register_policy


@register_policy("discovery_buyer")
class DiscoveryBuyer:
    """Reference discovery policy; it reads only its mandate and search results."""

    def __init__(self, *, constraints: dict, objective: str | None = None, phrase: str | None = None,
                 drop: str | None = None, answer: str | None = None, give_up: bool = False,
                 pick: str = "first") -> None:
        self.constraints = {k: v for k, v in constraints.items() if k != drop}
        group, _, key = (drop or "").partition(".")
        if key:
            self.constraints[group] = {k: v for k, v in constraints[group].items() if k != key}
        self.objective, self.phrase = objective, phrase
        self.answer, self.give_up, self.pick = answer, give_up, pick
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.stage = "phrase" if self.phrase else "search"
        self.choice: str | None = None

    def _search(self, **extra: Any) -> dict:
        sort = "price_asc" if self.objective == "cheapest" else "relevance"
        return {"kind": "search_listings", **self.constraints, **extra, "sort": sort, "page_size": 50}

    def act(self, obs: dict[str, Any]) -> dict | None:
        """One step of search -> read -> answer."""
        last = (obs.get("last_result") or {}).get("result") or {}
        if self.stage == "phrase":
            self.stage = "after_phrase"
            return self._search(text=self.phrase)
        if self.stage == "after_phrase":
            if last.get("total"):
                self.stage = "pick"
            elif self.give_up:
                return {"kind": "abstain", "reason": "I could not find anything like that."}
            else:
                self.stage = "pick"
                return self._search()
        if self.stage == "search":
            self.stage = "pick"
            return self._search()
        if self.stage == "pick":
            items = last.get("items", [])
            if self.answer is None and not items:
                return {"kind": "abstain", "reason": "Nothing in the catalog meets every requirement."}
            self.choice = self.answer or (items[-1] if self.pick == "last" else items[0])["listing_id"]
            self.stage = "read"
            return {"kind": "get_listing", "listing_id": self.choice}
        if self.stage == "read":
            self.stage = "done"
            return {"kind": "submit_answer", "answer": {"listing_id": self.choice}, "evidence": [self.choice],
                    "rationale": "Meets every requirement" + (" and is the cheapest." if self.objective else ".")}
        return {"kind": "finish"}
