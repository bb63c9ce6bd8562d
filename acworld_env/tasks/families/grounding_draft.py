"""What a T2 capability builder returns (:class:`Draft`), and the action shorthands plans are written with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..spec import PredicateSpec


@dataclass
class Draft:
    """One task before it gets its id: words, mandate, World, rubric, reference plan and mutation plans."""

    request: str
    mandate: dict[str, Any]
    state: dict[str, Any]
    predicates: list[PredicateSpec]
    plan: list[dict]
    mutations: dict[str, tuple[list[dict], list[str]]]
    """Mutation name -> (its plan, the predicate ids it must lower)."""
    difficulty: dict[str, Any]
    oracle: dict[str, Any] = field(default_factory=dict)
    schedule: list[dict] = field(default_factory=list)


def read(*listings: str) -> list[dict]:
    """``get_listing`` of each listing, in order."""
    return [{"kind": "get_listing", "listing_id": lid} for lid in listings]


def answer(fields: dict[str, Any], evidence: list[str], why: str) -> dict:
    """A structured final answer citing its records."""
    return {"kind": "submit_answer", "answer": fields, "evidence": evidence, "rationale": why}


def set_claims(listing: str, claims: dict[str, str]) -> dict:
    """``update_listing`` setting claims."""
    return {"kind": "update_listing", "listing_id": listing, "claims": claims}


def retract(listing: str, claim: str) -> dict:
    """``retract_claim`` of one claim."""
    return {"kind": "retract_claim", "listing_id": listing, "claim": claim}


FINISH = {"kind": "finish", "summary": "Listing claims checked against the product record."}
