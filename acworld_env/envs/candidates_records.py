"""Menu slot builders that answer or claim from a product record the agent read, in the units asked for.

Builders have the :data:`~acworld_env.envs.candidates.Builder` signature ``(known, index)`` and read
only :class:`~acworld_env.envs.known.Known`: the mandate's answer fields (``"<figure>_<unit>"``,
e.g. ``weight_oz``) and the attributes of the listing records the agent read (``weight_g``,
``length_cm``, ...).

* ``listing[k].answer:record`` / ``answer:record+read``: answer each field with the ``k``-th
  listing's figure converted to the field's unit (four significant digits; at 100 and above, whole
  figures with thousands separators and at most two decimals), citing that listing, or every
  listing read;
* ``listing[k].answer:claims``: answer which of the ``k``-th listing's claims its record backs (the
  same figure in any unit, within 2 %, or the same fact) and which it does not;
* ``claims:from-draft``: claim each of the mandate's claim keys on the agent's own listing
  (``mandate["listing"]``, else ``mandate["listing_id"]``) with its record's figure, in the unit the draft used;
* ``claims:comparisons``: of the comparisons the mandate wants (``lighter_than``, ``cheaper_than``,
  ``lightest``, ``cheapest``), claim those the read records and current prices back;
* ``question[k].answer:record``: reply to the ``k``-th question with each figure it asks for ("how much does
  it weigh in ounces", "how thick is it") from its listing's record, in the unit it names (else the record's);
* ``claims:fix`` / ``claims:retract[j]``: restate the own listing's figure claims its record
  contradicts (more than 2 % off), in the claim's unit; withdraw a claim its record has nothing on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..scoring.grounding_units import UNITS as _UNIT_SIZES
from .known import Known

Builder = Callable[[Known, int], "dict[str, Any] | None"]
UNITS: dict[str, tuple[str, float]] = {
    "g": ("mass", 1.0), "kg": ("mass", 1000.0), "oz": ("mass", 28.349523125), "lb": ("mass", 453.59237),
    "mm": ("length", 1.0), "cm": ("length", 10.0), "in": ("length", 25.4), "m": ("length", 1000.0),
}
"""Units a record figure may be asked in: dimension and size in the dimension's base unit."""


def figure(v: float) -> str:
    """A figure as a careful answer states it (see the module docstring)."""
    if v >= 100:
        text = f"{v:,.2f}".rstrip("0").rstrip(".")
        return text or "0"
    return f"{v:.4g}"


def _field_value(attrs: dict[str, Any], name: str) -> str | None:
    stem, _, unit = name.rpartition("_")
    if not stem or unit not in UNITS:
        return None
    for attr, v in attrs.items():
        a_stem, _, a_unit = attr.rpartition("_")
        if (a_stem == stem and a_unit in UNITS and UNITS[a_unit][0] == UNITS[unit][0]
                and isinstance(v, int | float) and not isinstance(v, bool)):
            return figure(v * UNITS[a_unit][1] / UNITS[unit][1])
    return None


def answer_record(cite_all: bool) -> Builder:
    """Answer the mandate's figure fields from the ``i``-th listing's record (see the module docstring)."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        fields = k.mandate.get("answer_fields")
        lid = k.nth("listings", i)
        attrs = k["listings"][lid].get("attributes") if lid else None
        if not isinstance(fields, list) or not attrs:
            return None
        answer: dict[str, Any] = {"listing_id": lid}
        for name in fields:
            if isinstance(name, str) and name != "listing_id":
                value = _field_value(attrs, name)
                if value is None:
                    return None
                answer[name] = value
        read = [x for x, r in k["listings"].items() if r.get("attributes")]
        if cite_all and len(read) < 2:
            return None
        return {"kind": "submit_answer", "answer": answer, "evidence": read if cite_all else [lid],
                "rationale": "Figures from the product record."}

    return build


def stated(v: float) -> str:
    """A figure as a listing states it: at most two decimals, thousands separators, no trailing zeros."""
    return f"{v:,.2f}".rstrip("0").rstrip(".") or "0"


def _record_figure(attrs: dict[str, Any], stem: str, unit: str) -> float | None:
    if unit not in UNITS:
        return None
    for attr, v in attrs.items():
        a_stem, _, a_unit = attr.rpartition("_")
        if (a_stem == stem and a_unit in UNITS and UNITS[a_unit][0] == UNITS[unit][0]
                and isinstance(v, int | float) and not isinstance(v, bool)):
            return v * UNITS[a_unit][1] / UNITS[unit][1]
    return None


def _own_listing(k: Known) -> tuple[str, dict[str, Any]] | None:
    lid = k.mandate.get("listing", k.mandate.get("listing_id"))
    rec = k["listings"].get(lid) if isinstance(lid, str) else None
    return (lid, rec) if rec and rec.get("attributes") is not None and "claims" in rec else None


def claims_from_draft(k: Known, _: int) -> dict[str, Any] | None:
    """Claim each of the mandate's claim keys with the own listing's record figure, in the draft's unit."""
    found, draft = _own_listing(k), k.mandate.get("draft")
    if found is None or not isinstance(draft, dict):
        return None
    claims = {}
    for key in k.mandate.get("claim_keys") or []:
        unit = str(draft.get(key, "")).rsplit(" ", 1)[-1]
        v = _record_figure(found[1]["attributes"], key, unit)
        if v is not None:
            claims[key] = f"{stated(v)} {unit}"
    return {"kind": "update_listing", "listing_id": found[0], "claims": claims} if claims else None


def _claimed(text: Any) -> tuple[float, str] | None:
    parts = str(text).replace(",", "").split(" ")
    try:
        return (float(parts[0]), parts[1]) if len(parts) == 2 else None
    except ValueError:
        return None


def fix_claims(k: Known, _: int) -> dict[str, Any] | None:
    """Restate every figure claim of the own listing that its record contradicts (off by more than 2 %)."""
    found = _own_listing(k)
    if found is None:
        return None
    fixed = {}
    for key, text in found[1]["claims"].items():
        said = _claimed(text)
        v = _record_figure(found[1]["attributes"], key, said[1]) if said else None
        if said is not None and v is not None and abs(said[0] - v) > 0.02 * max(abs(v), 1e-9):
            fixed[key] = f"{stated(v)} {said[1]}"
    return {"kind": "update_listing", "listing_id": found[0], "claims": fixed} if fixed else None


def retract(j: int) -> Builder:
    """Withdraw the ``j``-th claim of the own listing when its record has nothing under that name."""
    def build(k: Known, _: int) -> dict[str, Any] | None:
        found = _own_listing(k)
        if found is None or j >= len(found[1]["claims"]):
            return None
        key = list(found[1]["claims"])[j]
        attrs = found[1]["attributes"]
        if key in attrs or any(a.rpartition("_")[0] == key for a in attrs):
            return None
        return {"kind": "retract_claim", "listing_id": found[0], "claim": key}

    return build


def _backs(attrs: dict[str, Any], key: str, text: Any) -> bool:
    """Whether a record backs a claim: the same figure in any unit (within 2 %), or the same fact."""
    said = _claimed(text)
    v = _record_figure(attrs, key, said[1]) if said else None
    if v is not None:
        return abs(said[0] - v) <= 0.02 * max(abs(v), 1e-9)
    fact, said_text = attrs.get(key), str(text).strip().lower()
    if isinstance(fact, bool):
        return said_text in ({"yes", "true"} if fact else {"no", "false"})
    return isinstance(fact, str) and fact.strip().lower() == said_text


def answer_claims(k: Known, i: int) -> dict[str, Any] | None:
    """Answer which claims of the ``i``-th listing seen its own record backs, and which it does not."""
    lid = k.nth("listings", i)
    rec = k["listings"][lid] if lid else {}
    fields = k.mandate.get("answer_fields")
    if not rec.get("claims") or rec.get("attributes") is None or not isinstance(fields, list) \
            or not {"supported", "unsupported"} <= set(fields):
        return None
    backed = {key: _backs(rec["attributes"], key, text) for key, text in rec["claims"].items()}
    return {"kind": "submit_answer", "evidence": [lid],
            "answer": {"listing_id": lid, "supported": sorted(c for c, ok in backed.items() if ok),
                       "unsupported": sorted(c for c, ok in backed.items() if not ok)}}


_COMPARED = {"lighter_than": "weight", "lightest": "weight", "cheaper_than": "price", "cheapest": "price"}


def _measure(rec: dict[str, Any], what: str) -> float | None:
    if what == "price":
        return rec.get("price") if isinstance(rec.get("price"), int) else None
    return _record_figure(rec.get("attributes") or {}, "weight", "g")


def backed_comparisons(k: Known, _: int) -> dict[str, Any] | None:
    """Claim, of the mandate's wanted comparisons, what the records and current prices back.

    ``lighter_than`` / ``cheaper_than`` keep the listings named that the own listing beats;
    ``lightest`` / ``cheapest`` stay ("yes") when it beats every other listing of the mandate.
    """
    own, wanted = k.mandate.get("listing"), k.mandate.get("wanted_claims")
    others = [x for x in k.mandate.get("listings") or [] if x != own]
    if not isinstance(own, str) or not isinstance(wanted, dict) or not others:
        return None
    recs = k["listings"]
    claims = {}
    for key, value in wanted.items():
        what = _COMPARED.get(key)
        mine = _measure(recs.get(own, {}), what) if what else None
        if mine is None:
            continue
        named = [x.strip() for x in str(value).split(",")] if key.endswith("_than") else others
        theirs = {x: _measure(recs.get(x, {}), what) for x in named}
        if any(v is None for v in theirs.values()):
            return None  # not every record compared has been read
        beaten = [x for x, v in theirs.items() if mine < v]
        if key.endswith("_than") and beaten:
            claims[key] = ", ".join(beaten)
        elif not key.endswith("_than") and len(beaten) == len(theirs):
            claims[key] = "yes"
    return {"kind": "update_listing", "listing_id": own, "claims": claims} if claims else None


_ASKED_DIMENSION = {"long": "length", "wide": "width", "thick": "thickness", "tall": "height", "high": "height",
                    "weigh": "weight", "heavy": "weight"}
"""Words a question uses for a measured dimension ("how long is it" asks for the length)."""
_UNIT_NAMES = {name: short for name, size in _UNIT_SIZES.items() for short in UNITS if UNITS[short] == size}


def _asked(text: str, attrs: dict[str, Any]) -> list[tuple[str, str]] | None:
    """The record figures a question asks for, in order, each with the unit it names (else the record's)."""
    body = text.split(":", 1)[-1].split("?", 1)[0].lower().replace("-", " ")
    out: list[tuple[str, str]] = []
    for clause in re.split(r"\band\b|,", body):
        words = re.findall(r"[a-z]+", clause)
        unit = next((_UNIT_NAMES[w] for i, w in enumerate(words) if i and words[i - 1] == "in" and w in _UNIT_NAMES),
                    None)
        for attr, v in attrs.items():
            stem, _, a_unit = attr.rpartition("_")
            if a_unit not in UNITS or isinstance(v, bool) or not isinstance(v, int | float) or not stem:
                continue
            named = stem.split("_")
            said = all(w in words for w in named) or any(
                _ASKED_DIMENSION.get(w) == stem or (len(w) > 4 and stem.startswith(w)) for w in words)
            if said and (unit is None or UNITS[unit][0] == UNITS[a_unit][0]):
                out.append((attr, unit or a_unit))
                break
    return out or None


def reply_record(k: Known, i: int) -> dict[str, Any] | None:
    """Answer the ``i``-th question with the figures it asks for, from its listing's record, in the units it names."""
    qid = k.nth("questions", i)
    q = k["questions"][qid] if qid else {}
    lid = q.get("listing")
    attrs = k["listings"].get(lid, {}).get("attributes") if isinstance(lid, str) else None
    asked = _asked(str(q.get("text", "")), attrs) if attrs else None
    if not asked:
        return None
    parts = [f"its {attr.rpartition('_')[0].replace('_', ' ')} is "
             f"{stated(attrs[attr] * UNITS[attr.rpartition('_')[2]][1] / UNITS[unit][1])} {unit}" for attr, unit in asked]
    return {"kind": "answer_question", "in_reply_to": qid,
            "text": f"Per the product record for {lid}, {' and '.join(parts)}."}


def reply_slots(n_questions: int) -> list[tuple[str, str, Builder, int]]:
    """The reply slots: ``(label, kind, builder, index)``."""
    return [(f"question[{i}].answer:record", "answer_question", reply_record, i) for i in range(n_questions)]


N_CLAIMS = 8
"""Claims of the agent's own listing the menu can withdraw."""


def slots(n_listings: int) -> list[tuple[str, str, Builder, int]]:
    """The record slots: ``(label, kind, builder, index)``."""
    out: list[tuple[str, str, Builder, int]] = [
        (f"listing[{i}].answer:record{'+read' if cite else ''}", "submit_answer", answer_record(cite), i)
        for i in range(n_listings) for cite in (False, True)]
    out += [(f"listing[{i}].answer:claims", "submit_answer", answer_claims, i) for i in range(n_listings)]
    out += [("claims:from-draft", "update_listing", claims_from_draft, 0),
            ("claims:comparisons", "update_listing", backed_comparisons, 0),
            ("claims:fix", "update_listing", fix_claims, 0)]
    out += [(f"claims:retract[{j}]", "retract_claim", retract(j), 0) for j in range(N_CLAIMS)]
    return out
