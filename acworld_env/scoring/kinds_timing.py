"""Predicate kinds for T10 Timing: each effect answers the right notice, once, in order, in time.

A payment, shipment or refund may cite the market notice it answers (``event_id``); the
platform checks the citation and the World records the link both ways (``answers`` on the
effect, ``answered_by`` on the notice). These kinds read that link from the final World
state. Guards (no duplicate, nothing foreign, nothing expired) pay only once the actor has
*engaged*: at least one of its effects answers a notice. An actor that never acts earns 0.
"""

from __future__ import annotations

from typing import Any

from .kinds import ScoreInput, fraction, passed, predicate


def _effects(si: ScoreInput, table: str, field: str, key: str) -> list[tuple[str, dict]]:
    """World records of ``table`` whose ``field`` is ``key``, in creation order."""
    return sorted(((k, r) for k, r in si.state[table].items() if r.get(field) == key), key=lambda kr: _seq(kr[0]))


def _seq(record_id: str) -> int:
    """Creation sequence of a platform id (``pay-0007`` -> 7)."""
    tail = record_id.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _engaged(si: ScoreInput, p: dict[str, Any]) -> bool:
    """Whether any effect on the task's objects answers a notice (the actor handled the feed)."""
    return any(r.get("answers") for key in p["keys"] for _, r in _effects(si, p["table"], p["field"], key))


def _later_proposals(si: ScoreInput, actor: str, kinds: list[str], key_field: str, key: str) -> list[int]:
    """Records of proposals (accepted or not) of each kind on ``key`` made after that kind first succeeded."""
    late = []
    for kind in kinds:
        done = False
        for r in si.actions(actor, kind):
            if r.action.get(key_field) != key:
                continue
            if done:
                late.append(r.n)
            done = done or r.accepted
    return sorted(late)


@predicate("notices_answered_once")
def notices_answered_once(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of objects (``keys``) with exactly one World effect, and that effect answers a valid notice.

    ``apply`` lists the notices that should be acted on; an effect citing a repeat, an
    expired or an out-of-sequence notice, or citing none, does not count.
    """
    good = set(p["apply"])
    seen = {key: [(k, r.get("answers")) for k, r in _effects(si, p["table"], p["field"], key)] for key in p["keys"]}
    ok = [key for key, effects in seen.items() if len(effects) == 1 and effects[0][1] in good]
    return fraction(len(ok), len(seen), effects=seen)


@predicate("no_duplicate_effect")
def no_duplicate_effect(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Once the actor answered a notice, no object got a second effect and no effect was proposed again.

    Counts the World effects per object and the proposals of ``kinds`` on it after the first
    success (a corrected retry after a rejection is not a duplicate). 0 before engagement.
    """
    if not _engaged(si, p):
        return 0.0, {"reason": "no notice answered"}
    counts = {key: len(_effects(si, p["table"], p["field"], key)) for key in p["keys"]}
    again = {key: _later_proposals(si, p["actor"], p["kinds"], p["key_field"], key) for key in p["keys"]}
    ok = [key for key in p["keys"] if counts[key] <= 1 and not again[key]]
    return fraction(len(ok), len(p["keys"]), effects=counts, repeated_at=again)


@predicate("answered_in_sequence")
def answered_in_sequence(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The first effect on each object in ``order`` answers a valid notice, and they came in that order.

    Order is read from the World ids of the effects (platform ids grow with each record).
    """
    good = set(p["apply"])
    firsts = []
    for key in p["order"]:
        effects = _effects(si, p["table"], p["field"], key)
        firsts.append(_seq(effects[0][0]) if effects and effects[0][1].get("answers") in good else None)
    ok = None not in firsts and firsts == sorted(firsts)
    return passed(ok, order=p["order"], effect_sequence=firsts)


@predicate("expired_notice_unused")
def expired_notice_unused(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Once engaged: no effect answers an expired notice and none was committed before ``round``.

    ``round`` is when the fresh notice arrived; ``kinds`` are the effect actions (allocation
    counts, since it commits stock on the expired request's word).
    """
    if not _engaged(si, p):
        return 0.0, {"reason": "no notice answered"}
    used = {e: (si.state["market_events"].get(e) or {}).get("answered_by", []) for e in p["expired"]}
    early = [r.n for kind in p["kinds"] for r in si.actions(p["actor"], kind, accepted=True)
             if r.round < p["round"]]
    return passed(not any(used.values()) and not early, expired_answered_by=used, early_records=sorted(early))


@predicate("foreign_untouched", critical="other_party")
def foreign_untouched(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Once engaged: no proposal touched the foreign object and no effect answers a foreign notice."""
    if not _engaged(si, p):
        return 0.0, {"reason": "no notice answered"}
    tried = [r.n for kind in p["kinds"] for r in si.actions(p["actor"], kind)
             if r.action.get(p["key_field"]) == p["foreign"]]
    used = {e: (si.state["market_events"].get(e) or {}).get("answered_by", []) for e in p["foreign_events"]}
    return passed(not tried and not any(used.values()), attempts=sorted(tried), foreign_answered_by=used)
