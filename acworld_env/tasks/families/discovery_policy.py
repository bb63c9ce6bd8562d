"""The T1 discovery buyer: runs its searches, reads candidates until one passes every check, answers.

It is the reference policy of each T1 task, so it is given the task's plan (parameters the
evaluated agent never sees): the searches to run, the requirements only a full listing
record shows (``checks``), how to order the candidates (as listed, or by price per
``unit``), and, when nothing fits, the search that shows the closest match is over budget.
It decides from what its own actions return: search pages and the records it reads.

Knobs let a mutation make exactly one wrong decision: answer a fixed listing (``answer``),
skip the checks (``checks=[]``), ignore the objective (``order="listed"``), or give up after
the first search (``give_up``). Importing this module also registers the T1 shortcut scripts.
"""

from __future__ import annotations

from typing import Any

from ..names import register_policy
from . import discovery_shortcuts  # noqa: F401  (registers the T1 shortcut scripts)
from .discovery_needs import satisfies, unit_price_key


@register_policy("discovery_buyer")
class DiscoveryBuyer:
    """Reference discovery policy (see the module docstring)."""

    def __init__(self, *, searches: list[dict], checks: list[dict] | None = None, order: str = "listed",
                 unit: str | None = None, evidence_search: dict | None = None, answer: str | None = None,
                 give_up: bool = False) -> None:
        self.searches, self.checks = [dict(q) for q in searches], list(checks or [])
        self.order, self.unit, self.evidence_search = order, unit, evidence_search
        self.answer, self.give_up = answer, give_up
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.queue: list[dict] = list(self.searches)
        self.items: list[dict] = []
        self.sent: dict[str, Any] | None = None
        self.searched = self.looked_closer = self.done = False

    def _send(self, action: dict[str, Any]) -> dict[str, Any]:
        self.sent = action
        return action

    def _candidates(self) -> list[str]:
        items = self.items
        if self.order == "unit" and self.unit:
            items = sorted(items, key=lambda r: unit_price_key(r, self.unit or ""))
        return [r["listing_id"] for r in items]

    def _read(self, listing_id: str | None) -> dict[str, Any] | None:
        return None if listing_id is None else self._send({"kind": "get_listing", "listing_id": listing_id})

    def act(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """One step: search, read, answer or abstain."""
        last = obs.get("last_result") or {}
        result = last.get("result") if last.get("accepted") else None
        sent, self.sent = self.sent, None
        if self.done:
            return {"kind": "finish"}
        if sent and sent["kind"] == "search_listings":
            self.searched = True
            if not self.looked_closer:
                self.items = list((result or {}).get("items", []))
        if self.give_up and self.searched:
            return self._stop()
        if self.queue:
            return self._send({"kind": "search_listings", **self.queue.pop(0)})
        if not self.items and self.evidence_search is not None and not self.looked_closer:
            self.looked_closer = True  # an empty page proves nothing: look at the closest match
            return self._send({"kind": "search_listings", **self.evidence_search})
        if self.answer is not None:
            if sent and sent["kind"] == "get_listing" and sent["listing_id"] == self.answer:
                return self._stop(self.answer)
            return self._read(self.answer)
        ids = self._candidates()
        if sent and sent["kind"] == "get_listing":
            if isinstance(result, dict) and all(satisfies(result, n) for n in self.checks):
                return self._stop(sent["listing_id"])
            at = ids.index(sent["listing_id"]) + 1 if sent["listing_id"] in ids else len(ids)
            return self._read(ids[at] if at < len(ids) else None) or self._stop()
        return self._read(ids[0] if ids else None) or self._stop()

    def _stop(self, answer: str | None = None) -> dict[str, Any]:
        self.done = True
        if answer is None:
            return {"kind": "abstain", "reason": "Nothing in the catalog meets every requirement within the budget."}
        return {"kind": "submit_answer", "answer": {"listing_id": answer}, "evidence": [answer],
                "rationale": "It meets every requirement I was given."}
