"""T2 Buyer capabilities: read the authoritative record, reconcile sources and units, compare, spot unsupported claims.

Every task gives the shopper's question in words and, in the mandate, the listings it names and
the answer fields. The truth is the catalog product record; sellers' listing copy (resale
listings outside the catalog, or the claims on a catalog listing) is deliberately wrong in
places. Weights: figures right 0.6 (a comparison: choice 0.4 and figure 0.3), the authoritative
record read before answering 0.25-0.3, the record cited 0.15. Nothing pays without an answer.
"""

from __future__ import annotations

import numpy as np

from .common import dollars, pred
from .grounding_draft import Draft, answer, read
from .grounding_records import (
    SPECS,
    UNIT_WORDS,
    convert,
    exact,
    key,
    overlay,
    products,
    reseller,
    say,
    short,
    specs_of,
    value,
    world,
    wrong,
)


def pick_product(rng: np.random.Generator, mats_share: float = 0.7) -> dict:
    """A yoga mat (share ``mats_share``) or a trail shoe from the catalog."""
    pool = products("Yoga Mats" if rng.random() < mats_share else "Trail Running Shoes")
    return pool[int(rng.integers(len(pool)))]


def nouns(pairs: list[tuple[str, str]]) -> str:
    """``"weight in ounces and length in inches"``."""
    words = [f"{SPECS[s].noun} in {UNIT_WORDS[u]}" for s, u in pairs]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _read_preds(c: str, *, w_fig: float, w_read: float, w_cite: float, expected: dict) -> list:
    """Figures right, record read before the answer, record cited."""
    return [pred("figures_grounded", "answer_quantities", w_fig, "Decision", "Choice", actor="buyer_0",
                 expected=expected),
            pred("record_read_first", "records_read_first", w_read, "Evidence", "Evidence", actor="buyer_0",
                 records=[c], kinds=["submit_answer"]),
            pred("record_cited", "answer_cites", w_cite, "Validation", "Evidence", actor="buyer_0", records=[c])]


def attribute_read(rng: np.random.Generator, i: int, *, normalize: bool) -> Draft:
    """The product record against 1-3 resale listings whose copy is wrong (``normalize``: in other units)."""
    rec = pick_product(rng)
    c = rec["listing_id"]
    stems = [str(s) for s in rng.permutation(specs_of(rec))[: int(rng.integers(1, 4))]]
    units = {s: str(rng.choice(SPECS[s].alt)) if normalize else SPECS[s].unit for s in stems}
    n_res = int(rng.integers(2, 5)) if normalize else 1 + i
    res_ids = [f"L-R{j + 1}" for j in range(n_res)]
    listings = {c: overlay(rec, "merchant_0", {})}
    quoted = []
    for j, rid in enumerate(res_ids):
        claims = {}
        for s in stems:
            u = str(rng.choice([SPECS[s].unit, *SPECS[s].alt])) if normalize else SPECS[s].unit
            claims[s] = say(convert(wrong(rng, value(rec, s)), SPECS[s].unit, u), u)
        listings[rid] = reseller(rec, f"merchant_{j + 1}", claims, int(rec["price"] * rng.uniform(0.7, 0.95)) // 100 * 100)
        quoted.append(f"{rid} says {claims[stems[0]]}")
    truth = {key(s, units[s]): convert(value(rec, s), SPECS[s].unit, units[s]) for s in stems}
    right = {"listing_id": c, **{k: exact(v) for k, v in truth.items()}}
    ask = nouns([(s, units[s]) for s in stems])
    where = " or ".join(res_ids)
    if normalize:
        request = (f"I'm comparing resale offers of the {short(rec)} ({', '.join(res_ids)}), and the sellers "
                   f"can't agree on its {SPECS[stems[0]].noun}: {'; '.join(quoted)}. Mixed units too. I need the "
                   f"{ask}. The maker's catalog listing {c} carries the product record; go by that, convert "
                   "where needed, and tell me which record your figures come from.")
    else:
        request = (f"I'm about to buy the {short(rec)} from a reseller ({where}). Resellers copy spec sheets "
                   f"carelessly, so don't take their listing text at face value: the maker's own catalog listing "
                   f"{c} carries the product record. Tell me the {ask}, and name the record you took the figures "
                   "from.")
    reads = read(*res_ids, c)
    first = listings[res_ids[0]]["claims"]
    mutations = {
        "trust_listing_claims": (reads + [answer({"listing_id": res_ids[0], **{key(s, units[s]): first[s]
                                                                               for s in stems}}, [*res_ids, c],
                                                 "Took the reseller's figures.")], ["figures_grounded"]),
        "skip_read": (read(*res_ids) + [answer(right, [c], "From memory of the record.")], ["record_read_first"]),
        "cites_the_reseller": (reads + [answer({**right, "listing_id": res_ids[0]}, [res_ids[0]], "Figures checked.")],
                               ["record_cited"]),
    }
    if normalize:
        raw = {"listing_id": c, **{key(s, units[s]): exact(value(rec, s)) for s in stems}}
        mutations["no_conversion"] = (reads + [answer(raw, [c], "Record figures as printed.")], ["figures_grounded"])
    return Draft(
        request=request, mandate={"listings": [*res_ids, c], "answer_fields": list(right)},
        state=world(listings, merchants=n_res + 1), predicates=_read_preds(c, w_fig=0.6, w_read=0.25, w_cite=0.15, expected=truth),
        plan=reads + [answer(right, [c], "Figures from the product record.")], mutations=mutations,
        difficulty={"sources": n_res + 1, "fields": len(stems), "requested_attributes": len(stems),
                    "unit_conversions": sum(units[s] != SPECS[s].unit for s in stems),
                    "incorrect_claims": n_res * len(stems)},
        oracle={"record": c, "answer": right})


def distinct(vals: list[float]) -> bool:
    """Whether the figures differ pairwise by more than 8 %."""
    s = sorted(vals)
    return all(b > a * 1.08 for a, b in zip(s, s[1:], strict=False))


def comparison(rng: np.random.Generator, i: int) -> Draft:
    """2-4 listings of one kind; the sellers' copy crowns the wrong one; the records decide."""
    while True:
        ptype = "Yoga Mats" if i == 0 or rng.random() < 0.6 else "Trail Running Shoes"
        pool = products(ptype)
        n = 2 + i + int(rng.integers(0, 2))
        recs = [pool[int(k)] for k in rng.choice(len(pool), size=n, replace=False)]
        stem = str(rng.choice(sorted(set.intersection(*(set(specs_of(r)) for r in recs)) & {"weight", "thickness"})))
        vals = [value(r, stem) for r in recs]
        if distinct(vals):
            break
    lowest = stem == "weight"
    order = [int(k) for k in rng.permutation(n)]
    win = min(range(n), key=lambda k: vals[k]) if lowest else max(range(n), key=lambda k: vals[k])
    lose = max(range(n), key=lambda k: vals[k]) if lowest else min(range(n), key=lambda k: vals[k])
    if order[0] == win:
        order = order[1:] + order[:1]
    spec = SPECS[stem]
    unit = spec.unit if i == 0 else spec.alt[0]
    ids = [recs[k]["listing_id"] for k in order]
    listings, claimed = {}, {}
    for j, k in enumerate(order):
        boast = vals[win] * (0.8 if lowest else 1.25) if k == lose else vals[k]
        claimed[recs[k]["listing_id"]] = boast
        listings[recs[k]["listing_id"]] = overlay(recs[k], f"merchant_{j}", {stem: say(boast, spec.unit)})
    c = recs[win]["listing_id"]
    truth = {key(stem, unit): convert(vals[win], spec.unit, unit)}
    right = {"listing_id": c, key(stem, unit): exact(truth[key(stem, unit)])}
    ranked = sorted(range(n), key=lambda k: vals[k], reverse=not lowest)
    second = {"listing_id": recs[ranked[1]]["listing_id"],
              key(stem, unit): exact(convert(vals[ranked[1]], spec.unit, unit))}
    boaster = recs[lose]["listing_id"]
    trusted = {"listing_id": boaster, key(stem, unit): say(claimed[boaster], spec.unit)}
    goal = "lightest" if lowest else "thickest (most cushioning)"
    request = (f"I'm deciding between {', '.join(ids)}, all {ptype.lower()}. I want the {goal} of them. The "
               "sellers' listing copy makes bold promises, so compare them on the product records, then tell me "
               f"which listing to buy and its {spec.noun} in {UNIT_WORDS[unit]}, citing the records you compared.")
    reads = read(*ids)
    skip = [x for x in ids if x != c][-1]
    preds = [pred("right_choice", "answer_in_set", 0.4, "Decision", "Choice", actor="buyer_0", field="listing_id",
                  accepted=[c]),
             pred("figure_grounded", "answer_quantities", 0.3, "Decision", "Choice", actor="buyer_0", expected=truth),
             pred("records_compared", "records_read_first", 0.3, "Evidence", "Evidence", actor="buyer_0",
                  records=ids, kinds=["submit_answer"])]
    return Draft(
        request=request, mandate={"listings": ids, "answer_fields": list(right),
                                  "compare": {"attribute": stem, "goal": "lowest" if lowest else "highest"}},
        state=world(listings, merchants=max(3, n)), predicates=preds,
        plan=reads + [answer(right, ids, "Compared on the product records.")],
        mutations={"trust_listing_claims": (reads + [answer(trusted, ids, "Went by the sellers' figures.")],
                                            ["right_choice", "figure_grounded"]),
                   "skip_one_record": ([a for a in reads if a["listing_id"] != skip]
                                       + [answer(right, ids, "Compared.")], ["records_compared"]),
                   "runner_up": (reads + [answer(second, ids, "Close call.")], ["right_choice", "figure_grounded"])},
        difficulty={"sources": n, "comparisons": n - 1, "fields": 1, "requested_attributes": 1,
                    "incorrect_claims": 1, "unit_conversions": int(unit != spec.unit)},
        oracle={"winner": c, "answer": right})


ABSENT = [("warranty", "10 years"), ("recycled_content", "80%"), ("made_in", "Portugal"),
           ("certified_organic", "yes")]
_FLAGS = {"eco_friendly": "eco-friendly", "latex_free": "latex-free", "non_slip": "non-slip",
          "vegan": "vegan", "waterproof": "waterproof"}


def _candidate_claims(rng: np.random.Generator, rec: dict) -> list[tuple[str, str, str]]:
    """(claim key, claim text, verdict) candidates about ``rec``."""
    out = []
    for s in specs_of(rec):
        v, spec = value(rec, s), SPECS[s]
        if rng.random() < 0.5:
            u = str(rng.choice(spec.alt))
            out.append((s, say(convert(v, spec.unit, u), u), "supported"))
        else:
            out.append((s, say(wrong(rng, v), spec.unit), "unsupported"))
    text = f"{rec['title']} {rec['description']}".lower()
    for attr, v in rec["attributes"].items():
        if isinstance(v, bool) and attr in _FLAGS and (v or _FLAGS[attr].split("-")[0] not in text):
            out.append((attr, "yes", "supported" if v else "unsupported"))
    mat = rec["attributes"].get("material")
    if isinstance(mat, str):
        other = next(m for m in ("natural rubber", "cork", "jute") if m != mat.lower() and m not in text)
        out.append(("material", mat, "supported") if rng.random() < 0.5 else ("material", other, "unsupported"))
    out += [(k, t, "unsupported") for k, t in ABSENT]
    return out


def detection(rng: np.random.Generator, i: int) -> Draft:
    """A listing whose copy makes 3-5 claims; the answer files each as backed by the record or not."""
    while True:
        rec = pick_product(rng, 0.5 if i else 1.0)
        cands = _candidate_claims(rng, rec)
        n = 3 + i + int(rng.integers(0, 2))
        picked = [cands[int(k)] for k in rng.choice(len(cands), size=n, replace=False)]
        sup = [k for k, _, v in picked if v == "supported"]
        contradicted = [k for k, _, v in picked if v == "unsupported" and (k in SPECS or k in rec["attributes"])]
        if 1 <= len(sup) <= n // 2 and contradicted:
            break
    c = rec["listing_id"]
    truth = {k: v for k, _, v in picked}
    claims = {k: t for k, t, _ in picked}
    right = {"listing_id": c, "supported": sorted(sup), "unsupported": sorted(set(truth) - set(sup))}
    request = (f"The listing {c} for the {short(rec)} makes several claims in its copy. Before I pay "
               f"{dollars(rec['price'])} for it, check each claim against the product record and tell me which "
               "ones the record supports (the same figure in any unit, or the same fact) and which it doesn't "
               "(contradicted by the record, or not on it at all), as two lists of claim names.")
    trusting = {"listing_id": c, "supported": sorted(truth), "unsupported": []}
    on_record = [k for k in truth if k in SPECS or k in rec["attributes"]]
    absent_only = {"listing_id": c, "supported": sorted(on_record), "unsupported": sorted(set(truth) - set(on_record))}
    return Draft(
        request=request, mandate={"listings": [c], "answer_fields": list(right)},
        state=world({c: overlay(rec, "merchant_0", claims)}),
        predicates=[pred("claims_judged", "claim_verdicts", 0.7, "Decision", "Choice", actor="buyer_0", truth=truth),
                    pred("record_read_first", "records_read_first", 0.3, "Evidence", "Evidence", actor="buyer_0",
                         records=[c], kinds=["submit_answer"])],
        plan=read(c) + [answer(right, [c], "Each claim checked against the product record.")],
        mutations={"only_missing_facts": (read(c) + [answer(absent_only, [c], "Flagged what the record lacks.")],
                                          ["claims_judged"]),
                   "trust_listing_claims": (read(c) + [answer(trusting, [c], "The copy looks fine.")],
                                            ["claims_judged"]),
                   "skip_read": ([answer(right, [c], "Judged without reading.")], ["record_read_first"])},
        difficulty={"sources": 2, "fields": n, "unsupported_claims": n - len(sup), "requested_attributes": n},
        oracle={"answer": right})
