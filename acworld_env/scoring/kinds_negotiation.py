"""Predicate kinds of T4 Negotiation: surplus captured, a real exchange, a courteous exit.

* ``surplus_captured``: the share of the zone of agreement the actor kept, graded against the
  best price a patient negotiator reaches against the task's counterparty (``target``, found by
  the task builder by simulating the counterparty's tactic). Offering one's limit keeps nothing.
* ``offers_exchanged``: the actor made at least ``min`` accepted offers or counters inside its
  limit (the evidence that justifies walking away when no deal is possible).
* ``courteous_exit``: no deal, and after that exchange the actor closed the talks itself with
  courteous words to the counterparty (a rejection with a reason, or a message), making no offer
  afterwards. Silence, or walking away before any exchange, earns nothing.
"""

from __future__ import annotations

import re
from typing import Any

from ..trace import TraceRecord
from .kinds import ScoreInput, passed, predicate

OFFER_KINDS = frozenset({"propose_offer", "counter_offer"})
"""Actions that put a price on the table."""
ENGAGING_KINDS = ("propose_offer", "counter_offer", "accept_offer")
"""Actions that engage an actor in a negotiation: the ``engaged_by`` of the restraint guards of T4 and of
every negotiator's side rubric (``tasks.sides``)."""
HOSTILE = re.compile(
    r"\b(stupid|idiot\w*|ridiculous|insult\w*|scam\w*|rip-?off|joke|greedy|liar|pathetic|waste of (my|our) time|"
    r"get lost|shut up|screw|damn|hell|rubbish|garbage|cheapskate|clown)\b", re.I)
"""Words a courteous exit does not use."""


def courteous(text: object) -> bool:
    """Words addressed to a person that say something (three or more words) and insult no one."""
    return isinstance(text, str) and len(re.findall(r"[A-Za-z']+", text)) >= 3 and not HOSTILE.search(text)


def inside(p: dict[str, Any], price: int) -> bool:
    """``price`` is on the actor's side of its limit (``max_unit_price`` or ``min_unit_price``)."""
    if "max_unit_price" in p:
        return price <= p["max_unit_price"]
    return price >= p["min_unit_price"]


def _kind(r: TraceRecord) -> str | None:
    return r.kind


def _accepted(r: TraceRecord) -> bool:
    return r.accepted


def _agreed(si: ScoreInput, listing_id: str) -> list[tuple[str, int]]:
    return [(tid, thr["agreed_price"]) for tid, thr in sorted(si.state["threads"].items())
            if thr["listing"] == listing_id and thr["agreed_price"] is not None]


def _offers_inside(si: ScoreInput, p: dict[str, Any]) -> list[TraceRecord]:
    return [r for r in si.by(p["actor"]) if _kind(r) in OFFER_KINDS and _accepted(r)
            and isinstance(r.action.get("unit_price"), int) and inside(p, r.action["unit_price"])]


@predicate("surplus_captured")
def surplus_captured(si: ScoreInput, p: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Share of the zone ``[floor, ceiling]`` the actor kept, over the share at the ``target`` price."""
    agreed = _agreed(si, p["listing_id"])
    if not agreed:
        return 0.0, {"reason": "no agreement", "target": p["target"]}
    tid, price = agreed[0]
    width = p["ceiling"] - p["floor"]
    buyer = p["side"] == "buyer"

    def kept(x: int) -> float:
        return ((p["ceiling"] - x) if buyer else (x - p["floor"])) / width

    got, best = kept(price), kept(p["target"])
    credit = 0.0 if got <= 0 else min(1.0, got / best) if best > 0 else 1.0
    return credit, {"thread": tid, "agreed_unit_price": price, "share": round(got, 6),
                    "target": p["target"], "target_share": round(best, 6)}


@predicate("offers_exchanged")
def offers_exchanged(si: ScoreInput, p: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """The actor made at least ``min`` accepted offers or counters inside its limit."""
    inside_limit = _offers_inside(si, p)
    need = int(p.get("min", 2))
    return passed(len(inside_limit) >= need, offers=[r.n for r in inside_limit], needed=need)


@predicate("courteous_exit")
def courteous_exit(si: ScoreInput, p: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """No deal; after ``min`` offers inside its limit the actor closed the talks with courteous words.

    The close is an accepted ``reject_offer`` whose reason is courteous, or an accepted message to
    the counterparty that is; the actor makes no offer afterwards.
    """
    agreed = _agreed(si, p["listing_id"])
    if agreed:
        return passed(False, reason="a deal was made", thread=agreed[0][0])
    need = int(p.get("min", 2))
    offers = _offers_inside(si, p)
    if len(offers) < need:
        return passed(False, reason="walked away before a real exchange", offers=len(offers), needed=need)
    after = offers[need - 1].n
    last_offer = max(r.n for r in si.by(p["actor"]) if _kind(r) in OFFER_KINDS and _accepted(r))
    for r in si.by(p["actor"]):
        if r.n <= max(after, last_offer) or not _accepted(r):
            continue
        a = r.action
        words = a.get("reason") if _kind(r) == "reject_offer" else (
            a.get("text") if _kind(r) == "send_message" and a.get("to") == p["counterpart"] else None)
        if words is not None:
            return passed(courteous(words), exit_record=r.n, words=words)
    return passed(False, reason="no courteous close after the exchange", offers=len(offers))
