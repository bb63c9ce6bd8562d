"""A seeded random policy: role-appropriate actions filled with ids the observation shows.

A baseline for "how much credit does chance get", and a fuzzer for the platform.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

_ID = re.compile(r"\b((?:L|thr|ord|pay|shp|ret|quo|qrq|evt|rev|dsp)-[A-Za-z0-9]+|m\d+-p\d+-v\d+)\b")
_VERDICTS = ("apply", "duplicate", "stale", "out_of_order", "foreign")


def visible_ids(obs: dict[str, Any]) -> dict[str, list[str]]:
    """Ids of each kind that appear anywhere in the observation, in first-seen order."""
    text = json.dumps({k: obs.get(k) for k in ("request", "mandate", "inbox", "last_result")}, sort_keys=True)
    found: dict[str, list[str]] = {}
    for m in _ID.finditer(text):
        prefix = "L" if m.group(1).startswith("m") else m.group(1).split("-", 1)[0]
        bucket = found.setdefault(prefix, [])
        if m.group(1) not in bucket:
            bucket.append(m.group(1))
    return found


def _amounts(obs: dict[str, Any]) -> list[int]:
    text = json.dumps(obs.get("inbox", [])) + obs.get("request", "")
    cents = [int(x) for x in re.findall(r'"(?:unit_price|amount|total)": (\d+)', text)]
    dollars = [int(float(x) * 100) for x in re.findall(r"\$(\d+(?:\.\d\d)?)", text)]
    return cents + dollars or [1_000, 5_000, 10_000]


class RandomPolicy:
    """Draws a random plausible action each step."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed."""
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def _pick(self, items: list[str], fallback: str) -> str:
        return items[int(self.rng.integers(len(items)))] if items else fallback

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        """One random action for the observation's role."""
        ids = visible_ids(obs)
        amount = int(self.rng.choice(_amounts(obs)) * self.rng.uniform(0.7, 1.3))
        amount = max(100, amount // 100 * 100)
        listing, thread = self._pick(ids.get("L", []), "L-0001"), self._pick(ids.get("thr", []), "thr-0001")
        order, payment = self._pick(ids.get("ord", []), "ord-0001"), self._pick(ids.get("pay", []), "pay-0001")
        event = self._pick(ids.get("evt", []), "evt-001")
        other = "merchant_0" if obs["role"] == "buyer" else "buyer_0"
        common = [
            {"kind": "search_listings", "text": "", "max_price": amount},
            {"kind": "get_listing", "listing_id": listing},
            {"kind": "get_inbox"},
            {"kind": "counter_offer", "thread_id": thread, "unit_price": amount},
            {"kind": "accept_offer", "thread_id": thread},
            {"kind": "reject_offer", "thread_id": thread},
            {"kind": "send_message", "to": other, "text": f"How about {amount // 100}?"},
            {"kind": "classify_event", "event_id": event, "verdict": str(self.rng.choice(_VERDICTS))},
            {"kind": "submit_answer", "answer": {"listing_id": listing}},
            {"kind": "abstain", "reason": "nothing fits"},
            {"kind": "finish"},
        ]
        if obs["role"] == "buyer":
            specific = [
                {"kind": "propose_offer", "to": other, "listing_id": listing, "unit_price": amount},
                {"kind": "place_order", "thread_id": thread},
                {"kind": "authorize_payment", "order_id": order, "amount": amount},
            ]
        else:
            specific = [
                {"kind": "capture_payment", "payment_id": payment, "amount": amount},
                {"kind": "allocate_inventory", "order_id": order},
                {"kind": "ship_order", "order_id": order},
                {"kind": "issue_refund", "payment_id": payment, "amount": amount},
            ]
        options = common + specific
        weights = np.array([0.5 if a["kind"] in {"finish", "abstain", "submit_answer"} else 1.0 for a in options])
        return options[int(self.rng.choice(len(options), p=weights / weights.sum()))]
