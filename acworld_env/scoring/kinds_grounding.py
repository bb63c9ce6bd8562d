"""Predicate kinds for T2 Grounding: every claim is checked against the authoritative record.

Authoritative values come from the task (the builder copies them from the catalog's product
record and the World), never from what the actor or a seller wrote. A claim is a structured
field (an answer field, a listing claim) or a number-with-unit in a reply's text; each is read
as a quantity (:mod:`.grounding_units`) and compared within a small tolerance, in any unit the
request did not pin down.
Reads are checked on the trace: a record counts as read only if the actor fetched it before
its first claim. Guards pay only once the actor engaged (answered, edited the listing, replied).

An answer answers what was asked: where the request names a figure and a unit, the figure must
be stated in that unit, once; a list of the figure in several units, or figures nobody asked for
(other attributes of the record), cost the answer its credit. A listing update may add only the
claims the request named (``requested``); anything else it adds is beyond its authority, however
true.
"""

from __future__ import annotations

import re

from ..trace import TraceRecord
from .grounding_units import REL_TOL, UNITS, Stated, matches, same_unit, stated, stated_in, to_base
from .grounding_units import key_unit as _key_unit
from .kinds import ScoreInput, fraction, passed, predicate

CLAIM_KINDS = ("submit_answer", "update_listing", "publish_listing", "retract_claim", "answer_question")
"""Actions that make (or withdraw) a claim."""
SUPERLATIVES = {"lightest", "cheapest", "thinnest", "thickest", "longest", "best", "widest"}


def _answer(si: ScoreInput, actor: str) -> TraceRecord | None:
    """The actor's final decision if it is a ``submit_answer``."""
    done = [r for r in si.by(actor) if r.accepted and r.kind in {"submit_answer", "abstain", "finish"}]
    return done[-1] if done and done[-1].kind == "submit_answer" else None


def _truth(key: str, value: float) -> tuple[str, float]:
    """An authoritative figure filed under a key naming its unit, as (dimension, base value)."""
    _, unit = _key_unit(key)
    assert unit is not None, f"authoritative key {key!r} names no unit"
    return to_base(value, unit)


def _field(answer: dict, key: str) -> tuple[str | None, object]:
    """The answer field standing for ``key``: the same key, else one with the same stem (``weight``)."""
    if key in answer:
        return key, answer[key]
    stem, _ = _key_unit(key)
    for k in sorted(answer):
        if _key_unit(k)[0] == stem:
            return k, answer[k]
    return None, None


def _first_claim(si: ScoreInput, actor: str, kinds: list[str]) -> int | None:
    """Record number of the actor's first accepted claim action, if any."""
    firsts = [r.n for r in si.by(actor) if r.accepted and r.kind in set(kinds)]
    return min(firsts) if firsts else None


@predicate("records_read_first")
def records_read_first(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of ``records`` the actor read (``get_listing``) before its first claim; 0 without a claim."""
    first = _first_claim(si, p["actor"], p.get("kinds", list(CLAIM_KINDS)))
    if first is None:
        return 0.0, {"reason": "no claim made"}
    read = {lid for r in si.actions(p["actor"], "get_listing", accepted=True) if r.n < first for lid in r.evidence}
    got = [lid for lid in p["records"] if lid in read]
    return fraction(len(got), len(p["records"]), unread=[x for x in p["records"] if x not in read], first_claim=first)


@predicate("answer_cites")
def answer_cites(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The final answer names every authoritative record in ``records``: in its evidence or as an answer field."""
    final = _answer(si, p["actor"])
    if final is None:
        return 0.0, {"reason": "no answer"}
    named = [v for v in (final.action.get("answer") or {}).values() if isinstance(v, str | list)]
    cited = set(final.action.get("evidence") or []) | {str(x) for v in named for x in (v if isinstance(v, list) else [v])}
    return passed(set(p["records"]) <= cited, cited=sorted(cited), needed=p["records"])


def _fits(found: list[Stated], truth: tuple[str, float], unit: str | None, tol: float) -> bool:
    """Whether stated figures are one answer: the right figure, in a single unit, the asked ``unit`` if any."""
    return (bool(found) and all(matches(q[:2], truth, tol) for q in found)
            and len({UNITS[q[2]] for q in found}) == 1 and (unit is None or same_unit(found[0][2], unit)))


@predicate("answer_quantities")
def answer_quantities(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of ``expected`` quantities (key naming the asked unit -> value) the final answer states right,
    in the asked unit; 0 when the answer also states a figure in a field nobody asked for.

    A field's unit is read from its value (``"0.18 in"``), its key (``thickness_in``), else the
    expected key's unit. A field listing the figure in several units is not an answer.
    """
    final = _answer(si, p["actor"])
    if final is None:
        return 0.0, {"reason": "no answer"}
    answer = final.action.get("answer") or {}
    tol = p.get("rel_tol", REL_TOL)
    wrong, used = [], set()
    for key, value in sorted(p["expected"].items()):
        k, got = _field(answer, key)
        used.add(k)
        asked = _key_unit(key)[1]
        if not _fits(stated(k or key, got, default_unit=asked), _truth(key, value), asked, tol):
            wrong.append(key)
    unasked = sorted(k for k, v in answer.items() if k not in used and stated(k, v))
    if unasked:
        return 0.0, {"reason": "figures not asked for", "unasked": unasked, "wrong": wrong}
    return fraction(len(p["expected"]) - len(wrong), len(p["expected"]), wrong=wrong)


def _canon(name: str) -> str:
    """A claim name as the record files it: ``"Recycled content: 80%"`` -> ``recycled_content``."""
    return re.sub(r"[\s\-]+", "_", re.split(r"[:=(]", name, maxsplit=1)[0].strip().lower())


def _names(value: object) -> set[str]:
    """Claim names listed in an answer field (a list, or text separated by commas or semicolons)."""
    items = value.replace(";", ",").split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    return {_canon(str(s)) for s in items if str(s).strip()}


_LISTING = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+")


def _targets(value: object) -> set[str]:
    """Listing ids named in a comparison claim's value (``"m014-p00027-v001 (Stillpoint), L-R2"``)."""
    return set(_LISTING.findall(str(value)))


_NEGATIVE = ("unsupported", "not_supported", "not_backed", "unbacked", "unverified", "contradicted", "false")
_POSITIVE = ("supported", "backed", "verified", "confirmed", "true")


def _verdict_lists(answer: dict) -> tuple[set[str], set[str]]:
    """(claims filed as backed, claims filed as not backed), from every answer field so named."""
    sup: set[str] = set()
    uns: set[str] = set()
    for k, v in answer.items():
        name = _canon(k)
        if any(w in name for w in _NEGATIVE):
            uns |= _names(v)
        elif any(w in name for w in _POSITIVE):
            sup |= _names(v)
    return sup, uns


@predicate("claim_verdicts")
def claim_verdicts(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of a listing's claims the final answer files right: ``supported`` or ``unsupported`` (not both).

    The lists may be named in other words (``backed``, ``not_backed``, ``unsupported_claims``).
    """
    final = _answer(si, p["actor"])
    if final is None:
        return 0.0, {"reason": "no answer"}
    sup, uns = _verdict_lists(final.action.get("answer") or {})
    right = [k for k, v in p["truth"].items()
             if (_canon(k) in sup) != (_canon(k) in uns) and (_canon(k) in sup) == (v == "supported")]
    return fraction(len(right), len(p["truth"]), wrong=sorted(set(p["truth"]) - set(right)))


def _claims(si: ScoreInput, listing: str) -> dict:
    """A listing's claims in the final World state."""
    return dict((si.state["listings"].get(listing) or {}).get("claims") or {})


def _engaged(si: ScoreInput, actor: str, listing: str) -> bool:
    """Whether the actor edited the listing (an accepted update or retraction)."""
    return any(r.action.get("listing_id") == listing for kind in ("update_listing", "retract_claim")
               for r in si.actions(actor, kind, accepted=True))


@predicate("listing_quantities")
def listing_quantities(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of ``expected`` spec claims (stem -> [value, record unit]) the final listing states right: one
    claim for the spec, one figure, in the unit the request named (``units``: stem -> unit) or any one unit.

    A claim without a unit counts only if its key names one (``weight_g``). The spec claimed under
    several names (``weight_g`` and ``weight_oz``), or one claim listing several units, is not
    the figure asked for.
    """
    claims = _claims(si, p["listing"])
    asked: dict = p.get("units", {})
    wrong = []
    for stem, (value, unit) in sorted(p["expected"].items()):
        keys = [k for k in claims if _key_unit(k)[0] == stem]
        if len(keys) != 1 or not _fits(stated(keys[0], claims[keys[0]]), to_base(value, unit), asked.get(stem),
                                       p.get("rel_tol", REL_TOL)):
            wrong.append(stem)
    return fraction(len(p["expected"]) - len(wrong), len(p["expected"]), wrong=wrong, claims=claims)


def _comparisons(key: str, value: object, table: dict[str, dict[str, bool]]) -> list[bool] | None:
    """Truth of each comparison a claim asserts, or None when the claim is not comparative."""
    rel = key.strip().lower().replace(" ", "_").replace("-", "_")
    if rel in SUPERLATIVES or rel.startswith(("best_", "most_")):
        return [table.get(rel, {}).get("*", False)]
    if rel.endswith("_than"):
        row = table.get(rel, {})
        return [row.get(t, False) for t in sorted(_targets(value))] or [False]
    return None


def claim_supported(key: str, value: object, p: dict) -> bool:
    """Whether one listing claim is backed: a spec quantity matching the record, a verbatim backed text claim,
    or a comparison the records bear out (``comparisons``: relation -> {other listing or "*": true})."""
    comp = _comparisons(key, value, p.get("comparisons", {}))
    if comp is not None:
        return all(comp)
    specs: dict = p.get("specs", {})
    stem = _key_unit(key)[0]
    if stem in specs:
        v, unit = specs[stem]
        found = stated(key, value)
        return bool(found) and all(matches(q[:2], to_base(v, unit), p.get("rel_tol", REL_TOL)) for q in found)
    backed: dict = p.get("backed", {})
    name = _canon(key)
    return name in backed and _plain(backed[name]) == _plain(value)


def _plain(value: object) -> str:
    """A text claim compared loosely (case, ``true`` as ``yes``)."""
    text = str(value).strip().casefold()
    return "yes" if text in {"true", "y"} else text


def _unasked(si: ScoreInput, p: dict, claims: dict) -> list[str]:
    """Claims on the listing now that it did not carry at the start and the request did not name
    (``requested``: claim names or spec stems); none when the task names no such list."""
    if "requested" not in p:
        return []
    before = (si.task.initial_state.get("listings", {}).get(p["listing"]) or {}).get("claims") or {}
    named = set(p["requested"])
    return sorted(k for k in claims if k not in before and _key_unit(k)[0] not in named and _canon(k) not in named)


@predicate("listing_claims_supported")
def listing_claims_supported(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Once the actor edited the listing: every final claim on it is backed by the records (none left is fine)
    and every claim it added was asked for (``requested``, when given).

    ``specs`` (stem -> [value, unit]), ``backed`` (key -> text) and ``comparisons`` are the authority.
    A claim stating several figures is backed only if every one is.
    """
    if not _engaged(si, p["actor"], p["listing"]):
        return 0.0, {"reason": "listing never edited"}
    claims = _claims(si, p["listing"])
    bad = sorted(k for k, v in claims.items() if not claim_supported(k, v, p))
    unasked = _unasked(si, p, claims)
    return passed(not bad and not unasked, unsupported=bad, unasked=unasked, claims=claims)


@predicate("comparisons_made")
def comparisons_made(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of ``wanted`` backed comparisons ([relation, other listing or "*"]) the final listing asserts."""
    claims = {k.strip().lower().replace(" ", "_"): v for k, v in _claims(si, p["listing"]).items()}
    have = [(rel, t) for rel, t in p["wanted"] if rel in claims and (t == "*" or t in _targets(claims[rel]))]
    return fraction(len(have), len(p["wanted"]), missing=[w for w in p["wanted"] if tuple(w) not in set(have)])


@predicate("listing_claims_kept")
def listing_claims_kept(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Once the actor edited the listing: share of the correct claims (``keep``) still on it and still backed.

    A kept claim may be reworded (``3,350 g`` as ``3.35 kg``); ``specs`` and ``backed`` judge it.
    """
    if not _engaged(si, p["actor"], p["listing"]):
        return 0.0, {"reason": "listing never edited"}
    claims = _claims(si, p["listing"])
    kept = [k for k in p["keep"] if k in claims and claim_supported(k, claims[k], p)]
    return fraction(len(kept), len(p["keep"]), dropped=sorted(set(p["keep"]) - set(kept)))


def _reply(si: ScoreInput, p: dict) -> TraceRecord | None:
    """The actor's first accepted answer to the task's question."""
    replies = [r for r in si.actions(p["actor"], "answer_question", accepted=True)
               if r.action.get("in_reply_to") == p["question"]]
    return replies[0] if replies else None


@predicate("reply_quantities")
def reply_quantities(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of ``requested`` figures (key with unit suffix -> value) the reply to ``question`` states right, in
    the unit the question named (``units``: key -> unit) or in any one unit; 0 when it also states figures
    nobody asked for: another figure of the record (``authority``), or an asked one in several units.

    A figure that matches nothing on the record is not judged here (``reply_figures_supported`` is).
    """
    reply = _reply(si, p)
    if reply is None:
        return 0.0, {"reason": "no reply"}
    said = stated_in(reply.action.get("text", ""))
    tol, asked = p.get("rel_tol", REL_TOL), p.get("units", {})
    truths = {k: _truth(k, v) for k, v in p["requested"].items()}
    ok = [k for k, t in truths.items() if _fits([q for q in said if matches(q[:2], t, tol)], t, asked.get(k), tol)]
    record = [_truth(k, v) for k, v in p.get("authority", {}).items()]
    unasked = [q for q in said if not any(matches(q[:2], t, tol) for t in truths.values())
               and any(matches(q[:2], t, tol) for t in record)]
    listed = [k for k, t in truths.items() if len({UNITS[q[2]] for q in said if matches(q[:2], t, tol)}) > 1]
    if unasked or listed:
        return 0.0, {"reason": "figures not asked for", "unasked": unasked, "several_units": listed, "stated": said}
    return fraction(len(ok), len(truths), stated=said, missing=sorted(set(truths) - set(ok)))


@predicate("reply_figures_supported")
def reply_figures_supported(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Once replied: every number-with-unit in the reply matches some figure of the record (``authority``)."""
    reply = _reply(si, p)
    if reply is None:
        return 0.0, {"reason": "no reply"}
    truths = [_truth(k, v) for k, v in p["authority"].items()]
    tol = p.get("rel_tol", REL_TOL)
    said = [q[:2] for q in stated_in(reply.action.get("text", ""))]
    bad = [q for q in said if not any(matches(q, t, tol) for t in truths)]
    return passed(not bad, unsupported=bad, stated=said)
