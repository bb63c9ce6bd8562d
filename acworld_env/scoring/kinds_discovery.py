"""Predicate kinds for discovery: what the actor saw, abstaining on evidence, guards that must be earned."""

from __future__ import annotations

from ..trace import TraceRecord
from .kinds import ScoreInput, passed, predicate

_TERMINAL = {"submit_answer", "abstain", "finish"}


def _decision(si: ScoreInput, actor: str) -> TraceRecord | None:
    """The actor's accepted terminal action, if any."""
    done = [r for r in si.by(actor) if r.accepted and r.kind in _TERMINAL]
    return done[-1] if done else None


def _seen(si: ScoreInput, actor: str, listings: set[str], via: set[str]) -> list[int]:
    """Records (numbers) of accepted reads by ``actor`` of a kind in ``via`` that showed one of ``listings``,
    before its decision."""
    final = _decision(si, actor)
    limit = final.n if final else None
    return [r.n for r in si.by(actor) if r.accepted and r.kind in via
            and (limit is None or r.n < limit) and listings & set(r.evidence)]


@predicate("listing_seen")
def listing_seen(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """One of ``listings`` came back from the actor's own reads (``via``, default searches) before it decided.

    E.g. a search page held a feasible listing, or the actor looked at the decisive near miss.
    """
    hits = _seen(si, p["actor"], set(p["listings"]), set(p.get("via", ["search_listings"])))
    return passed(bool(hits), seen_at=hits)


@predicate("no_commit_once_engaged")
def no_commit_once_engaged(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """A guard that must be earned: the actor engaged (an accepted action of a kind in ``engaged``)
    and committed no action of a forbidden kind (``kinds``). An actor that never engaged earns 0."""
    engaged = [r.n for r in si.by(p["actor"]) if r.accepted
               and r.kind in set(p["engaged"])]
    forbidden = [r.n for r in si.by(p["actor"]) if r.accepted
                 and r.kind in set(p["kinds"])]
    if not engaged:
        return 0.0, {"reason": "never engaged", "forbidden": forbidden}
    return passed(not forbidden, engaged_at=engaged[0], forbidden=forbidden)


@predicate("abstained_with_evidence")
def abstained_with_evidence(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The actor abstained and bought nothing; full credit only when, before abstaining, its own
    searches or reads showed one of the ``evidence`` listings (the closest match and why it fails).
    An abstention without that evidence earns ``unjustified`` (a fraction; an empty page or no search
    proves nothing)."""
    final = _decision(si, p["actor"])
    bought = [r.n for r in si.actions(p["actor"], "place_order", accepted=True)]
    if final is None or final.kind != "abstain" or bought:
        return 0.0, {"final": final.n if final else None, "orders": bought}
    hits = _seen(si, p["actor"], set(p["evidence"]), {"search_listings", "get_listing"})
    credit = 1.0 if hits else float(p.get("unjustified", 0.0))
    return credit, {"final": final.n, "evidence_at": hits}
