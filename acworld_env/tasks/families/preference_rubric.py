"""T3 Preference rubric: a draft task (what a capability builder decides) and how it becomes a TaskSpec.

Every task scores the one order placed (``order_choice``, binary or graded), what was read
before placing it (``read_before_order``), and, where the capability has one, a guard: no
forbidden listing ordered (``orders_avoid``), no order before the last signed revision
(``ordered_not_before``) or the paid reviews flagged (``reviews_flagged``). Each pays only
once an order exists. A mutation is the scripted shopper ordering another listing, reading
less, flagging differently or not waiting; the predicates it lowers follow from what it does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...scoring.kinds_preference import ORDERED
from ..spec import CounterpartySpec, MutationSpec, PolicyRef, PredicateSpec, TaskSpec
from .common import pred
from .preference_world import Candidate

FAMILY = "T3_preference"


@dataclass
class Shopper:
    """Parameters of one scripted shopper run (reference or mutation)."""

    listing_id: str
    reads: list[dict]
    flags: list[str] = field(default_factory=list)
    not_before: int = 0


@dataclass
class Draft:
    """A capability builder's decisions for one task."""

    capability: str
    request: str
    mandate: dict[str, Any]
    state: dict
    cands: list[Candidate]
    credit: dict[str, float]
    """Listing -> choice credit (1.0 at the right answer)."""
    evidence: dict[str, list[str]]
    """``read_before_order`` params: ``seen``, ``reviews``, ``reputation``."""
    reference: Shopper
    mutations: dict[str, Shopper]
    difficulty: dict[str, Any]
    weights: dict[str, float]
    """Predicate id -> weight; ids among choice, evidence, guard, not_before, flagged."""
    forbidden: list[str] = field(default_factory=list)
    paid: list[str] = field(default_factory=list)
    not_before: int = 0
    schedule: list[dict] = field(default_factory=list)
    messengers: dict[str, list[dict]] = field(default_factory=dict)
    """Counterparty actor -> its messages ``{"round", "to", "text"}``."""


def search(category: str) -> dict:
    """The read that lists every candidate."""
    return {"kind": "search_listings", "category": category, "page_size": 50}


def reviews(listing_id: str) -> dict:
    """Read one listing's reviews."""
    return {"kind": "get_reviews", "listing_id": listing_id}


def reputation(merchant: str) -> dict:
    """Read one seller's reputation."""
    return {"kind": "get_merchant_reputation", "merchant_id": merchant}


def _predicates(d: Draft) -> list[PredicateSpec]:
    w, actor = d.weights, "buyer_0"
    out = [pred("choice", "order_choice", w["choice"], "Decision", "Choice", actor=actor, credit=d.credit),
           pred("evidence", "read_before_order", w["evidence"], "Evidence", "Evidence", actor=actor, **d.evidence)]
    if "guard" in w:
        out.append(pred("guard", "orders_avoid", w["guard"], "Validation", "Authority", actor=actor,
                        forbidden=sorted(d.forbidden)))
    if "not_before" in w:
        out.append(pred("not_before", "ordered_not_before", w["not_before"], "Validation", "Authority", actor=actor,
                        round=d.not_before))
    if "flagged" in w:
        out.append(pred("flagged", "reviews_flagged", w["flagged"], "World effect", "Execution", actor=actor,
                        paid=sorted(d.paid), genuine=sorted(
                            r["review_id"] for c in d.cands for r in c.reviews if r["verified"] and not r["paid"])))
    assert abs(sum(p.weight for p in out) - 1.0) < 1e-9, d.weights
    return out


def _reads_complete(d: Draft, s: Shopper) -> bool:
    """Whether a shopper's reads cover every read the evidence predicate asks for."""
    merchant = {c.listing_id: c.merchant for c in d.cands}
    shown = {r["listing_id"] for r in s.reads if r["kind"] in ("get_listing", "get_reviews")}
    if any(r["kind"] == "search_listings" for r in s.reads):
        shown |= set(merchant)
    read_reviews = {r["listing_id"] for r in s.reads if r["kind"] == "get_reviews"}
    read_rep = {r["merchant_id"] for r in s.reads if r["kind"] == "get_merchant_reputation"}
    need_reviews = {s.listing_id if x == ORDERED else x for x in d.evidence.get("reviews", [])}
    need_rep = {merchant[s.listing_id] if x == ORDERED else x for x in d.evidence.get("reputation", [])}
    return set(d.evidence.get("seen", [])) <= shown and need_reviews <= read_reviews and need_rep <= read_rep


def lowers(d: Draft, s: Shopper) -> list[str]:
    """The predicates a shopper run lowers below the reference's full credit."""
    out = []
    if d.credit.get(s.listing_id, 0.0) < 1.0:
        out.append("choice")
    if not _reads_complete(d, s):
        out.append("evidence")
    if "guard" in d.weights and s.listing_id in d.forbidden:
        out.append("guard")
    if "not_before" in d.weights and s.not_before < d.not_before:
        out.append("not_before")
    if "flagged" in d.weights and sorted(s.flags) != sorted(d.paid):
        out.append("flagged")
    return sorted(out)


def _ref(d: Draft, s: Shopper) -> PolicyRef:
    merchant = {c.listing_id: c.merchant for c in d.cands}[s.listing_id]
    return PolicyRef(name="preference_shopper", params={
        "listing_id": s.listing_id, "merchant": merchant, "reads": s.reads, "flags": s.flags,
        "not_before": s.not_before})


def to_task(task_id: str, d: Draft) -> TaskSpec:
    """The TaskSpec of a draft (the reference must lower nothing; every mutation something)."""
    assert not lowers(d, d.reference), (task_id, lowers(d, d.reference))
    mutations = []
    for name, s in d.mutations.items():
        low = lowers(d, s)
        assert low, (task_id, name)
        mutations.append(MutationSpec(id=f"{task_id}/{name}", description=f"shopper that {name.replace('_', ' ')}",
                                      policy=_ref(d, s), lowers=low))
    counterparties = [CounterpartySpec(actor=a, policy=PolicyRef(name="preference_messenger",
                                                                 params={"messages": msgs}))
                      for a, msgs in sorted(d.messengers.items())]
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=d.capability, role="buyer", actor="buyer_0",
        difficulty=d.difficulty, request=d.request, mandate=d.mandate, initial_state=d.state,
        counterparties=counterparties, schedule=d.schedule, max_steps=30, predicates=_predicates(d),
        reference=_ref(d, d.reference), oracle={"credit": d.credit, "forbidden": sorted(d.forbidden)},
        mutations=mutations)
