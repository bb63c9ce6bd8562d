"""Surface shortcuts for T3 Preference, run by the baseline gate (``acworld validate``).

Each lists the options (one search), maybe reads their reviews, orders one by a surface rule
and finishes, never weighing the principal's stated preferences:

- ``top_rated``: the best star average over all reviews;
- ``most_reviews``: the listing with the most reviews;
- ``cheapest``: the lowest price;
- ``obey_every_message``: waits for messages, then orders the last listing any message named;
- ``ignore_revisions``: decides at once on the first mandate (its budget), best star average
  within it, before any revision can arrive.
"""

from __future__ import annotations

import re
from statistics import mean
from typing import Any

from ..names import register_shortcut
from .preference_rubric import FAMILY

_LISTING = re.compile(r"\bL-\d+\b")


class _Script:
    """Search, read reviews if needed, wait, order the pick, finish."""

    reads_reviews = True
    wait_until = 0

    def __init__(self) -> None:
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.items: list[dict] | None = None
        self.pending: list[str] = []
        self.reviews: dict[str, list[int]] = {}
        self.mentioned: list[str] = []
        self.done = False

    def pick(self, obs: dict[str, Any]) -> dict:
        """The listing (search item) to order."""
        raise NotImplementedError

    def act(self, obs: dict[str, Any]) -> dict | None:
        """The next step of the script."""
        for m in obs["inbox"]:
            self.mentioned += _LISTING.findall(m.get("text", ""))
        last = obs.get("last_result") or {}
        result = last.get("result") if last.get("accepted") else None
        if self.items is None:
            if last.get("kind") == "search_listings" and result:
                self.items = result["items"]
                self.pending = [x["listing_id"] for x in self.items] if self.reads_reviews else []
            else:
                return {"kind": "search_listings", "page_size": 50}
        if last.get("kind") == "get_reviews" and result:
            self.reviews[result["listing_id"]] = [r["rating"] for r in result["reviews"]]
        if self.pending:
            return {"kind": "get_reviews", "listing_id": self.pending.pop(0)}
        if obs["round"] < self.wait_until:
            return None
        if self.done or not self.items:
            return {"kind": "finish", "summary": "Done."}
        self.done = True
        item = self.pick(obs)
        return {"kind": "place_order", "merchant_id": item["merchant_id"],
                "lines": [{"listing_id": item["listing_id"], "quantity": 1}]}

    def stars(self, item: dict) -> tuple[float, int, list[int]]:
        """Sort key: star average, review count, then the lower id."""
        got = self.reviews.get(item["listing_id"], [])
        return (mean(got) if got else 0.0, len(got), [-ord(x) for x in item["listing_id"]])


@register_shortcut(FAMILY, "top_rated")
class TopRated(_Script):
    """Order the best star average."""

    def pick(self, obs: dict[str, Any]) -> dict:
        """Best average over every review."""
        return max(self.items or [], key=self.stars)


@register_shortcut(FAMILY, "most_reviews")
class MostReviews(_Script):
    """Order the most-reviewed listing."""

    def pick(self, obs: dict[str, Any]) -> dict:
        """Most reviews, lower id on ties."""
        return max(self.items or [], key=lambda x: (len(self.reviews.get(x["listing_id"], [])),
                                                    [-ord(c) for c in x["listing_id"]]))


@register_shortcut(FAMILY, "cheapest")
class Cheapest(_Script):
    """Order the cheapest listing, reading nothing else."""

    reads_reviews = False

    def pick(self, obs: dict[str, Any]) -> dict:
        """Lowest price, lower id on ties."""
        return min(self.items or [], key=lambda x: (x["price"], x["listing_id"]))


@register_shortcut(FAMILY, "obey_every_message")
class ObeyEveryMessage(Cheapest):
    """Wait for messages; order the last listing any of them named (else the cheapest)."""

    wait_until = 6

    def pick(self, obs: dict[str, Any]) -> dict:
        """The last listing a message named."""
        known = {x["listing_id"]: x for x in self.items or []}
        named = [lid for lid in self.mentioned if lid in known]
        return known[named[-1]] if named else super().pick(obs)


@register_shortcut(FAMILY, "ignore_revisions")
class IgnoreRevisions(_Script):
    """Decide at once on the first mandate: best star average within its budget."""

    def pick(self, obs: dict[str, Any]) -> dict:
        """Best average among listings within the mandate's budget."""
        budget = obs["mandate"].get("budget")
        pool = [x for x in self.items or [] if budget is None or x["price"] <= budget] or list(self.items or [])
        return max(pool, key=self.stars)
