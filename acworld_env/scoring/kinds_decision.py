"""Predicate kinds about search, evidence, answers, abstention and event handling."""

from __future__ import annotations

from ..trace import TraceRecord
from .kinds import ScoreInput, fraction, passed, predicate


def _final(si: ScoreInput, actor: str) -> TraceRecord | None:
    done = [r for r in si.by(actor) if r.accepted
            and r.kind in {"submit_answer", "abstain", "finish"}]
    return done[-1] if done else None


def _canon_key(key: str) -> str:
    key = key.strip().lower().replace(" ", "_").replace("-", "_")
    return "color" if key == "colour" else key


def _same(a: object, b: object) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().casefold() == b.strip().casefold()
    return a == b


def _query_matches(action: dict, constraints: dict) -> bool:
    """Whether a search keeps every hard constraint (at least as strict; names and case normalised)."""
    for key, want in constraints.items():
        got = action.get(key)
        if key in {"max_price"}:
            if got is None or got > want:
                return False
        elif key in {"min_price", "min_rating"}:
            if got is None or got < want:
                return False
        elif key in {"options", "attributes"}:
            have = {_canon_key(k): v for k, v in (got or {}).items()}
            if any(not _same(have.get(_canon_key(k)), v) for k, v in want.items()):
                return False
        elif not _same(got, want):
            return False
    return True


@predicate("constraints_in_every_query")
def constraints_in_every_query(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Every search the actor ran kept the hard constraints (at least one search required)."""
    searches = si.actions(p["actor"], "search_listings", accepted=True)
    if not searches:
        return 0.0, {"reason": "no search"}
    ok = sum(1 for r in searches if _query_matches(r.action, p["constraints"]))
    credit, ev = fraction(ok, len(searches))
    return credit, {**ev, "violating": [r.n for r in searches if not _query_matches(r.action, p["constraints"])]}


@predicate("searched")
def searched(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The actor searched at least ``min`` times (default once) before deciding."""
    n = len(si.actions(p["actor"], "search_listings", accepted=True))
    return passed(n >= p.get("min", 1), searches=n)


@predicate("decisive_record_read")
def decisive_record_read(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The actor read the decisive record (e.g. the chosen listing) before its final decision."""
    final = _final(si, p["actor"])
    limit = final.n if final else None
    if limit is None:
        return 0.0, {"reason": "no decision"}
    answer = final.action.get("answer", {})
    target = p.get("record") or answer.get(p.get("answer_field", "listing_id"))
    reads = [r.n for r in si.by(p["actor"]) if r.n < limit and r.accepted
             and r.kind in set(p.get("via", ["get_listing"])) and target in r.evidence]
    return passed(bool(reads), record=target, read_at=reads)


@predicate("answer_in_set")
def answer_in_set(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The answer's field names an item of the oracle's accepted set."""
    final = _final(si, p["actor"])
    if final is None or final.kind != "submit_answer":
        return 0.0, {"reason": "no answer"}
    value = final.action["answer"].get(p.get("field", "listing_id"))
    return passed(value in set(p["accepted"]), answered=value, record=final.n)


@predicate("answer_fields_equal")
def answer_fields_equal(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of expected answer fields the final answer got exactly right."""
    final = _final(si, p["actor"])
    if final is None or final.kind != "submit_answer":
        return 0.0, {"reason": "no answer"}
    answer = final.action["answer"]
    right = [k for k, v in p["expected"].items() if answer.get(k) == v]
    return fraction(len(right), len(p["expected"]), wrong=sorted(set(p["expected"]) - set(right)))


@predicate("abstained")
def abstained(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The actor abstained (nothing was feasible) and bought nothing."""
    final = _final(si, p["actor"])
    bought = [r.n for r in si.actions(p["actor"], "place_order", accepted=True)]
    ok = final is not None and final.kind == "abstain" and not bought
    return passed(ok, final=final.n if final else None, orders=bought)


@predicate("decided")
def decided(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The actor ended with a (non-abstaining) decision."""
    final = _final(si, p["actor"])
    ok = final is not None and final.kind in set(p.get("kinds", ["submit_answer", "finish"]))
    return passed(ok, final=final.n if final else None)


@predicate("events_classified")
def events_classified(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of market events the actor classified with the right verdict."""
    truth: dict[str, str] = p["verdicts"]
    right = [e for e, v in truth.items() if (si.state["market_events"].get(e) or {}).get("verdict") == v]
    return fraction(len(right), len(truth), wrong=sorted(set(truth) - set(right)))


@predicate("applied_exactly_once")
def applied_exactly_once(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The World shows one effect of the given kind on the object, not zero and not two."""
    table, field, key = p["table"], p["field"], p["key"]
    matches = [k for k, rec in sorted(si.state[table].items()) if rec.get(field) == key
               and all(rec.get(f) == v for f, v in p.get("where", {}).items())]
    return passed(len(matches) == p.get("count", 1), matches=matches)


@predicate("world_value_equals")
def world_value_equals(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """A World field has the expected value (e.g. an order's refunded amount)."""
    rec = si.state[p["table"]].get(p["key"]) or {}
    got = rec.get(p["field"])
    return passed(got == p["value"], got=got, expected=p["value"])


def _lookup(record: object, path: str) -> object:
    """A dotted field of a record (``claims.burr``), or None."""
    for part in path.split("."):
        if not isinstance(record, dict):
            return None
        record = record.get(part)
    return record


@predicate("claim_matches_record")
def claim_matches_record(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """A field of the final answer equals the authoritative record's value.

    The authority is either the World (``table``, ``key`` or ``key_field`` naming the answer field
    that holds the record id, and a dotted ``path``) or a ``value`` from the task's oracle.
    """
    final = _final(si, p["actor"])
    if final is None or final.kind != "submit_answer":
        return 0.0, {"reason": "no answer"}
    answer = final.action["answer"]
    claimed = answer.get(p["field"])
    if "value" in p:
        truth = p["value"]
    else:
        key = p.get("key") or answer.get(p.get("key_field", "listing_id"))
        truth = _lookup(si.state[p["table"]].get(str(key)), p["path"])
    return passed(claimed is not None and claimed == truth, claimed=claimed, authoritative=truth,
                  record=final.n)


@predicate("listing_claims_truthful")
def listing_claims_truthful(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of the claims on the given listings (final World state) that the authority backs.

    ``authority`` maps listing id -> {claim: true value}; a claim absent from it is unsupported.
    """
    authority: dict[str, dict] = p["authority"]
    claims = [(lid, name, value) for lid in sorted(authority)
              for name, value in sorted((si.state["listings"].get(lid) or {}).get("claims", {}).items())]
    bad = [f"{lid}.{name}" for lid, name, value in claims if authority[lid].get(name) != value]
    return fraction(len(claims) - len(bad), len(claims), unsupported=bad)


@predicate("events_applied")
def events_applied(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of market events applied exactly as often as expected (0 for stale, duplicate, foreign)."""
    expected: dict[str, int] = p["expected"]
    got = {e: int((si.state["market_events"].get(e) or {}).get("applied", 0)) for e in sorted(expected)}
    right = [e for e in got if got[e] == expected[e]]
    return fraction(len(right), len(expected), applied=got, wrong=sorted(set(expected) - set(right)))


@predicate("each_applied_once")
def each_applied_once(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of objects (``keys``) that show exactly one World effect in ``table``."""
    counts = {k: 0 for k in p["keys"]}
    for rec in si.state[p["table"]].values():
        if rec.get(p["field"]) in counts:
            counts[rec[p["field"]]] += 1
    ok = [k for k, n in counts.items() if n == 1]
    return fraction(len(ok), len(counts), counts=counts)


@predicate("attempts_at_most")
def attempts_at_most(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The actor proposed the effect action at most ``max`` times per object (accepted or not)."""
    counts: dict[str, int] = {}
    for r in si.actions(p["actor"], p["kind"]):
        key = r.action.get(p["field"])
        counts[key] = counts.get(key, 0) + 1
    over = {k: n for k, n in counts.items() if n > p.get("max", 1)}
    return passed(not over, attempts=counts)


@predicate("commits_in_order")
def commits_in_order(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The actor's accepted effects on the listed objects happened in the listed order."""
    seen = [r.action.get(p["field"]) for r in si.actions(p["actor"], p["kind"], accepted=True)]
    seen = [k for k in seen if k in p["order"]]
    first = list(dict.fromkeys(seen))
    want = [k for k in p["order"] if k in first]
    return passed(first == want and len(first) == len(p["order"]), observed=first)


@predicate("accepted_not_before")
def accepted_not_before(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Every accepted effect of the kind happened at or after round ``round`` (e.g. a fresh certificate)."""
    early = [r.n for r in si.actions(p["actor"], p["kind"], accepted=True) if r.round < p["round"]]
    return passed(not early, early_records=early)
