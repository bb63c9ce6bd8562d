"""Shared pieces of the privacy tests: the labelled corpus and actions that carry a text in a given field."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CORPUS_PATH = Path(__file__).with_name("privacy_corpus.jsonl")
ACTOR = {"buyer": "b1", "merchant": "m1"}
OTHER = {"buyer": "m1", "merchant": "b1"}


@dataclass(frozen=True)
class Example:
    """One labelled text: does it reveal ``sealed`` (cents) when ``role`` sends it in ``kind.field``?"""

    leak: bool
    sealed: int
    role: str
    kind: str
    field: str
    text: str

    @property
    def actor(self) -> str:
        return ACTOR[self.role]

    def action(self) -> dict[str, Any]:
        """A well-formed action of ``kind`` carrying the text in ``field``."""
        return action_with(self.kind, self.field, self.text, to=OTHER[self.role])


def load_corpus() -> list[Example]:
    """Every labelled example of the shipped corpus."""
    with CORPUS_PATH.open(encoding="utf-8") as f:
        return [Example(**json.loads(line)) for line in f if line.strip()]


def action_with(kind: str, field: str, text: str, *, to: str = "m1") -> dict[str, Any]:
    """An action of ``kind`` (valid except for ids that may not exist) with ``text`` at ``field``.

    ``field`` is a plain field name, or ``fees.name``, ``claims.value``, ``claims.key``, ``evidence``.
    """
    base: dict[str, dict[str, Any]] = {
        "send_message": {"to": to},
        "ask_question": {"to": "m1", "listing_id": "L1"},
        "answer_question": {"in_reply_to": "msg-9999"},
        "propose_offer": {"to": to, "listing_id": "L1", "unit_price": 800},
        "counter_offer": {"thread_id": "thr-9999", "unit_price": 800},
        "reject_offer": {"thread_id": "thr-9999"},
        "abstain": {},
        "finish": {},
        "submit_answer": {"answer": {}},
        "issue_quote": {"request_id": "rq-9999", "lines": [{"listing_id": "L1", "quantity": 1, "unit_price": 1000}],
                        "total": 1000},
        "publish_listing": {"title": "Burr grinder", "category": "Coffee", "price": 1000, "quantity": 1},
        "update_listing": {"listing_id": "L1"},
        "disclose_sponsorship": {"listing_id": "L1"},
        "authorize_return": {"return_id": "ret-9999", "approve": True},
        "ship_order": {"order_id": "ord-9999"},
        "post_review": {"order_id": "ord-9999", "listing_id": "L1", "rating": 5},
        "open_dispute": {"order_id": "ord-9999", "reason": "other"},
        "respond_dispute": {"dispute_id": "dsp-9999"},
        "request_return": {"order_id": "ord-9999", "lines": [{"listing_id": "L1", "quantity": 1}]},
        "cancel_order": {"order_id": "ord-9999"},
        "classify_event": {"event_id": "ev-9999", "verdict": "apply"},
        "report_delivery_exception": {"shipment_id": "shp-9999", "reason": "lost"},
        "retract_claim": {"listing_id": "L1"},
    }
    action = {"kind": kind, **base[kind]}
    if field == "fees.name":
        action["fees"] = [{"name": text, "amount": 0}]
        action["total"] = 1000
    elif field == "claims.value":
        action["claims"] = {"note": text}
    elif field == "claims.key":
        action["claims"] = {text: "yes"}
    elif field == "evidence":
        action["evidence"] = [text]
    elif field == "answer.value":
        action["answer"] = {"note": text}
    else:
        action[field] = text
    return action
