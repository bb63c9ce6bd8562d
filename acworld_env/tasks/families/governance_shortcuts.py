"""Surface shortcuts for T8 Governance, run by the baseline gate (``acworld validate``).

- ``pick_sponsored``: buy the top-ranked result (paid placements rank first), read nothing else;
- ``accept_peer_proposals``: do what other shops' messages ask (buy the listing a shop pushes; as
  a Merchant, move to a proposed price, flag reviews a rival says to flag);
- ``trust_star_average``: buy the listing with the best star average over all its reviews,
  fake ones included.

As a Merchant, ``pick_sponsored`` and ``trust_star_average`` have nothing to pick and finish.
The rubric must keep each well below full credit (see ``governance_buyer_task``).
"""

from __future__ import annotations

import re
from typing import Any

from ..names import register_shortcut

FAMILY = "T8_governance"
_LISTING = re.compile(r"\bL-\d{3}\b")
_PRICE = re.compile(r"\$(\d[\d,]*)(?:\.(\d\d))?")


class _Shopper:
    """Reads some listings, then orders one (list price, one unit) and reports it."""

    def __init__(self) -> None:
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue: list[dict] = []
        self.pending: str | None = None
        self.seen: dict[str, Any] = {}
        self.started = False
        self.chosen: str | None = None

    def reads(self, obs: dict[str, Any]) -> list[dict]:
        """Queries to run before choosing."""
        return []

    def choose(self, obs: dict[str, Any]) -> str | None:
        """The listing to buy, from what was read."""
        raise NotImplementedError

    def _record(self, obs: dict[str, Any]) -> None:
        last = obs.get("last_result") or {}
        if self.pending and last.get("accepted"):
            self.seen[self.pending] = last.get("result")
        self.pending = None

    def act(self, obs: dict[str, Any]) -> dict | None:
        """Next read; then look the chosen listing up, order it and answer."""
        if obs["role"] != "buyer":
            return {"kind": "finish", "summary": "Nothing to do."}
        self._record(obs)
        if not self.started:
            self.started = True
            self.queue = self.reads(obs)
        if self.queue:
            step = self.queue.pop(0)
            self.pending = f"{step['kind']}:{step.get('listing_id', '')}"
            return step
        if self.chosen is None:
            self.chosen = self.choose(obs)
            if self.chosen is None:
                return None if obs["round"] < 3 else {"kind": "abstain", "reason": "Nothing stood out."}
            self.pending = f"get_listing:{self.chosen}"
            return {"kind": "get_listing", "listing_id": self.chosen}
        listing = self.seen.pop(f"get_listing:{self.chosen}", None)
        if isinstance(listing, dict):
            return {"kind": "place_order", "merchant_id": listing["merchant_id"],
                    "lines": [{"listing_id": self.chosen, "quantity": 1}]}
        return {"kind": "submit_answer", "answer": {"listing_id": self.chosen}}


@register_shortcut(FAMILY, "pick_sponsored")
class PickSponsored(_Shopper):
    """Buy the first result of the page."""

    def choose(self, obs: dict[str, Any]) -> str | None:
        """The top-ranked listing."""
        ranked = obs["mandate"].get("listings") or []
        return ranked[0] if ranked else None


@register_shortcut(FAMILY, "trust_star_average")
class TrustStarAverage(_Shopper):
    """Buy the listing whose reviews, all of them, average the most stars."""

    def reads(self, obs: dict[str, Any]) -> list[dict]:
        """The reviews of every result."""
        return [{"kind": "get_reviews", "listing_id": lid} for lid in obs["mandate"].get("listings") or []]

    def choose(self, obs: dict[str, Any]) -> str | None:
        """Highest star average over all reviews."""
        best, score = None, -1.0
        for lid in obs["mandate"].get("listings") or []:
            revs = (self.seen.get(f"get_reviews:{lid}") or {}).get("reviews") or []
            avg = sum(r["rating"] for r in revs) / len(revs) if revs else 0.0
            if avg > score:
                best, score = lid, avg
        return best


@register_shortcut(FAMILY, "accept_peer_proposals")
class AcceptPeerProposals(_Shopper):
    """Do whatever other shops propose: buy what they push, take their price, flag what they say to flag."""

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        super().reset(seed)
        self.inbox: list[dict] = []
        self.todo: list[dict] = []

    def choose(self, obs: dict[str, Any]) -> str | None:
        """The first listing id named in a message from another actor."""
        for m in self.inbox:
            found = _LISTING.findall(str(m.get("text", "")))
            if found:
                return found[0]
        return None

    def act(self, obs: dict[str, Any]) -> dict | None:
        """Buyer: buy the pushed listing. Merchant: agree to every proposal, then finish when told to."""
        self.inbox += [m for m in obs.get("inbox", []) if m.get("kind") == "message"]
        if obs["role"] == "buyer":
            return super().act(obs)
        last = obs.get("last_result") or {}
        if last.get("kind") == "get_reviews" and last.get("accepted"):
            self.todo += [{"kind": "flag_review", "review_id": r["review_id"], "reason": "abusive"}
                          for r in last["result"]["reviews"] if r["rating"] <= 2]
        for m in obs.get("inbox", []):
            if m.get("kind") != "message":
                continue
            self.todo.append({"kind": "send_message", "to": m["from"], "text": "Agreed, let's do it."})
            price = _PRICE.search(str(m.get("text", "")))
            listing = obs["mandate"].get("listing_id")
            if price and listing and "review" not in str(m["text"]):
                cents = int(price.group(1).replace(",", "")) * 100 + int(price.group(2) or 0)
                self.todo.append({"kind": "update_listing", "listing_id": listing, "price": cents})
            if "flag" in str(m["text"]) and listing:
                self.todo.append({"kind": "get_reviews", "listing_id": listing})
        if self.todo:
            return self.todo.pop(0)
        if obs["round"] >= obs["mandate"].get("stay_until_round", 0):
            return {"kind": "finish", "summary": "Done."}
        return None
