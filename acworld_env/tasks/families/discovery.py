"""T1 Discovery: from a shopper's words, find a listing that meets every requirement, the best one, or none.

Capabilities (all Buyer): basic_feasible_discovery, best_feasible_selection (an objective the
sort order does not decide: price per gram, or the cheapest with enough reviews),
correct_abstention (nothing fits the budget; a subtle or obvious conflict),
hard_constraint_filtering (a requirement only the full listing record shows, so reading is
necessary), query_reformulation (vague words that must be mapped to catalog vocabulary; the
literal query finds nothing or a misleading page). Factors: 3 to 20 candidates, 2 to 5 hard
constraints, conflict subtlety, 2 to 5 search rounds.

The agent sees the request (words) and a mandate holding only the budget it states. The
structured requirements live in ``task.oracle`` (the scorer's private spec; ``hints`` is what
``make(..., hints="structured")`` shows a learner). Every task is built so that the obvious
pages mislead: the top hit of each surface query (the category or item type sorted by price,
rating or relevance; the item's name; every text-searchable requirement) is not an accepted
answer, and in abstention tasks the decisive near miss is on none of their first pages.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import numpy as np

from ...world import add_actor, empty_state
from ..names import register_family
from ..spec import MutationSpec, PolicyRef, TaskSpec
from . import discovery_policy  # noqa: F401  (registers the reference policy and the shortcut scripts)
from .common import dollars, pred
from .discovery_needs import filterable, satisfies, to_query, unit_price_key
from .discovery_pages import base, catalog, literal, records, surface, texty, top
from .discovery_vocab import DESCS, FLAGS, KINDS, MAXIMUMS, MINIMUMS, VALUES, Kind, plain_words

FAMILY = "T1_discovery"
PLAN = [("basic_feasible_discovery", 3), ("best_feasible_selection", 5), ("correct_abstention", 4),
        ("hard_constraint_filtering", 4), ("query_reformulation", 4)]
MIN_CANDIDATES, MAX_CANDIDATES, MAX_READS, MAX_STEPS = 3, 20, 6, 20
ATTEMPTS = 3000


def _need(field: str, op: str, value: Any, words: tuple[str, str | None]) -> dict[str, Any]:
    return {"field": field, "op": op, "value": value, "words": words[0], "vague": words[1]}


def _needs_of(kind: Kind, t: dict) -> list[dict[str, Any]]:
    """Every requirement the target listing ``t`` meets that a shopper might state (plain and vague words)."""
    out = []
    for key in kind.attrs:
        v, field = t["attributes"].get(key), f"attributes.{key}"
        if v is True and key in FLAGS:
            out.append(_need(field, "eq", True, FLAGS[key]))
        elif key in MINIMUMS and isinstance(v, int | float) and not isinstance(v, bool):
            out.append(_need(field, "min", v, (MINIMUMS[key].format(v=v), None)))
        elif key in MAXIMUMS and isinstance(v, int | float) and not isinstance(v, bool):
            out.append(_need(field, "max", v, (MAXIMUMS[key].format(v=v), None)))
        elif isinstance(v, str | int) and not isinstance(v, bool) and v != "Blend":
            out.append(_need(field, "eq", v, VALUES.get((field, str(v)), (plain_words(field, v), None))))
    for key in kind.opts:
        v, field = t["options"].get(key), f"options.{key}"
        if v:
            out.append(_need(field, "eq", v, VALUES.get((field, v), (plain_words(field, v), None))))
    out += [_need("description", "has", d, DESCS[d]) for d in kind.descs if d in t["description"]]
    if t["rating"] is not None and t["rating"] >= 4.0:
        v = min(4.5, float(np.floor(t["rating"] * 2) / 2))
        out.append(_need("rating", "min", v, (f"rated at least {v:g} stars", None)))
    if t["brand"]:
        out.append(_need("brand", "eq", t["brand"], (plain_words("brand", t["brand"]), None)))
    return out


def _words(need: dict, vague: bool) -> dict:
    """The need with its plain or vague words chosen (``vague`` becomes a flag)."""
    return {**need, "words": need["vague"] if vague else need["words"], "vague": vague}


def _pick(rng: np.random.Generator, items: list, n: int) -> list:
    if n > len(items):
        return []
    return [items[int(i)] for i in rng.choice(len(items), size=n, replace=False)]


def _draw_needs(cap: str, kind: Kind, t: dict, rng: np.random.Generator,
                variant: int) -> tuple[list[dict], dict | None] | None:
    """The requirements of one task (words chosen), and its objective."""
    every = _needs_of(kind, t)
    plain = [n for n in every if filterable(n) and n["field"] != "rating"]
    rating = [n for n in every if n["field"] == "rating"]
    descs = [n for n in every if n["field"] == "description"]
    objective = None
    if cap in {"basic_feasible_discovery", "correct_abstention"}:
        needs = _pick(rng, plain + rating, int(rng.integers(1, 4)))
    elif cap == "hard_constraint_filtering":
        needs = _pick(rng, plain + rating, int(rng.integers(1, 3))) + _pick(rng, descs, 1)
        if not any(n["field"] == "description" for n in needs):
            return None
    elif cap == "best_feasible_selection":
        needs = _pick(rng, plain, int(rng.integers(1, 3)))
        if variant % 2 == 0:
            if not kind.unit:
                return None
            objective = {"minimize": "price_per", "unit": kind.unit}
        else:
            if not rating or t["review_count"] < 5:
                return None
            n_min = int(t["review_count"] // 5 * 5)
            r = rating[0]
            needs.append({**r, "words": f"{r['words']} by at least {n_min} reviewers"})
            needs.append(_need("review_count", "min", n_min, ("", None)))
            objective = {"minimize": "price"}
    else:  # query_reformulation
        fuzzy = [n for n in every if n["vague"]]
        needs = [_words(n, True) for n in _pick(rng, fuzzy, variant % 4 + 1)]  # 2 to 5 search rounds
    if not needs or len({n["field"] for n in needs}) < len(needs):
        return None
    if cap != "correct_abstention" and all(texty(n) or not filterable(n) for n in needs):
        return None  # a text query alone could find it: at least one requirement needs a filter
    return [n if isinstance(n["vague"], bool) else _words(n, False) for n in needs], objective


# -- the request ---------------------------------------------------------------------------

OPENINGS = ("I'm looking for", "Could you find me", "I need", "Please help me find")
BUDGETS = ("for no more than {}", "within a budget of {}", "costing at most {}")


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _request(kind: Kind, needs: list[dict], budget: int | None, objective: dict | None,
             rng: np.random.Generator) -> str:
    """The shopper's words: the item, each requirement, the budget, the objective."""
    said = [n["words"] for n in needs if n["words"]]
    article = "an" if kind.noun[0] in "aeiou" else "a"
    text = f"{OPENINGS[int(rng.integers(len(OPENINGS)))]} {article} {kind.noun}: {_join(said)}"
    if budget is not None:
        text += ", " + BUDGETS[int(rng.integers(len(BUDGETS)))].format(dollars(budget))
    text += ". It has to be in stock and ready to ship now."
    if objective and objective["minimize"] == "price_per":
        text += " If several fit, I want the best value for money: the lowest price per gram."
    elif objective:
        text += " If several fit, I want the cheapest of them."
    return text + " Tell me which listing it is, but don't buy anything yet. If nothing fits, just tell me so."


# -- one task ------------------------------------------------------------------------------

def _attempt(cap: str, rng: np.random.Generator, variant: int) -> dict[str, Any] | None:
    """One draw of a task of capability ``cap`` (``variant``: its index, which alternates objectives and
    conflicts); None when it fails a construction rule."""
    categories = sorted({k.category for k in KINDS})
    category = categories[int(rng.integers(len(categories)))]
    kinds = [k for k in KINDS if k.category == category]
    kind = kinds[int(rng.integers(len(kinds)))]
    pool = records(base(kind))
    if len(pool) <= MIN_CANDIDATES:
        return None
    t = pool[int(rng.integers(len(pool)))]
    drawn = _draw_needs(cap, kind, t, rng, variant)
    if drawn is None:
        return None
    needs, objective = drawn
    checks = [n for n in needs if not filterable(n)]
    if cap == "correct_abstention":
        return _abstention(kind, needs, rng, subtle=variant % 2 == 0)
    budget = int(np.ceil(t["price"] * rng.uniform(1.05, 1.35) / 100)) * 100 if rng.random() < 0.6 else None
    n_hard = sum(1 for n in needs if n["words"]) + 1 + (budget is not None)
    filters = {**to_query(base(kind), needs), **({"max_price": budget} if budget else {})}
    cand = records({**filters, "sort": "price_asc"})
    feasible = [r for r in cand if all(satisfies(r, n) for n in checks)]
    if not (MIN_CANDIDATES <= len(cand) <= MAX_CANDIDATES and feasible and 2 <= n_hard <= 5):
        return None
    if objective and objective["minimize"] == "price_per":
        best = min(unit_price_key(r, objective["unit"])[0] for r in feasible)
        accepted = [r["listing_id"] for r in feasible if unit_price_key(r, objective["unit"])[0] == best]
    elif objective:
        accepted = [r["listing_id"] for r in feasible if r["price"] == feasible[0]["price"]]
    else:
        accepted = [r["listing_id"] for r in feasible]
    within = records({**base(kind), **({"max_price": budget} if budget else {}), "sort": "price_asc"})
    request = _request(kind, needs, budget, objective, rng)
    if any(top(q, 1) and top(q, 1)[0] in accepted for q in surface(kind, needs, budget, request)):
        return None
    if len(accepted) > 0.4 * len(within):
        return None
    ordered = cand if not (objective and objective["minimize"] == "price_per") else sorted(
        cand, key=lambda r: unit_price_key(r, objective["unit"]))
    reads = next(i for i, r in enumerate(ordered) if r["listing_id"] in accepted) + 1
    if cap in {"best_feasible_selection", "hard_constraint_filtering"} and cand[0]["listing_id"] in accepted:
        return None  # the sort order alone would decide
    factors: dict[str, Any] = {"candidates": len(cand), "hard_constraints": n_hard}
    searches = [{**filters, "sort": "price_asc", "page_size": 50}]
    if cap == "query_reformulation":
        words = literal(kind, needs)
        lit = {"text": words, "in_stock": True, **({"max_price": budget} if budget else {})}
        if any(set(top(q, 10)) & {r["listing_id"] for r in feasible} for q in ({"text": words}, lit)):
            return None
        steps = [{**to_query(base(kind), needs[:k]), **({"max_price": budget} if budget else {}),
                  "sort": "price_asc", "page_size": 50} for k in range(1, len(needs) + 1)]
        searches = [lit] + [q for i, q in enumerate(steps) if i == 0 or q != steps[i - 1]]
        factors["search_rounds"] = len(searches)
        if not 2 <= len(searches) <= 5:
            return None
    if reads > MAX_READS or len(searches) + reads + 1 > MAX_STEPS - 4:
        return None
    if objective:
        factors["objective"] = "price_per_gram" if objective["minimize"] == "price_per" else "cheapest_well_reviewed"
    if checks:
        factors["unfilterable"] = len(checks)
    decoy = next(r["listing_id"] for r in within if r["listing_id"] not in accepted)
    return {"kind": kind, "needs": needs, "objective": objective, "budget": budget, "filters": filters,
            "request": request, "accepted": accepted, "feasible": [r["listing_id"] for r in feasible], "factors": factors,
            "searches": searches, "decoy": decoy,
            "order": "unit" if objective and objective["minimize"] == "price_per" else "listed"}


def _abstention(kind: Kind, needs: list[dict], rng: np.random.Generator, subtle: bool) -> dict[str, Any] | None:
    """Nothing fits: the right kind of item exists, but all of it costs more than the budget."""
    kind_query = to_query(base(kind), needs)
    near = records({**kind_query, "sort": "price_asc"})
    if not MIN_CANDIDATES <= len(near) <= MAX_CANDIDATES:
        return None
    low = near[0]["price"]
    budget = int(low * (rng.uniform(0.88, 0.97) if subtle else rng.uniform(0.45, 0.65))) // 100 * 100
    n_hard = sum(1 for n in needs if n["words"]) + 2
    if not 100 <= budget < low or n_hard > 5:
        return None
    if len(records({**base(kind), "max_price": budget})) < MIN_CANDIDATES:
        return None  # plenty of the item within budget: a careless search finds something to answer
    decisive = [r["listing_id"] for r in near if r["price"] == low]
    request = _request(kind, needs, budget, None, rng)
    if any(set(top(q, 10)) & set(decisive) for q in surface(kind, needs, budget, request)):
        return None
    filters = {**kind_query, "max_price": budget}
    return {"kind": kind, "needs": needs, "objective": None, "budget": budget, "filters": filters,
            "request": request, "accepted": [], "feasible": [], "decisive": decisive, "order": "listed",
            "factors": {"candidates": len(near), "hard_constraints": n_hard,
                        "conflict": "subtle" if subtle else "obvious"},
            "searches": [{**filters, "sort": "price_asc", "page_size": 50}],
            "evidence_search": {**kind_query, "sort": "price_asc", "page_size": 50}}


def _predicates(cap: str, d: dict) -> list:
    """Weighted predicates (sum 1.0); the guard pays only once the buyer searched."""
    guard = pred("nothing_bought", "no_commit_once_engaged", 0.1, "Validation", "Authority", actor="buyer_0",
                 kinds=["place_order", "authorize_payment"], engaged=["search_listings"])
    if cap == "correct_abstention":
        return [pred("near_miss_seen", "listing_seen", 0.3, "Evidence", "Evidence", actor="buyer_0",
                     listings=d["decisive"], via=["search_listings", "get_listing"]),
                pred("abstained", "abstained_with_evidence", 0.6, "Decision", "Choice", actor="buyer_0",
                     evidence=d["decisive"], unjustified=0.35),
                guard]
    w_found, w_read = {"hard_constraint_filtering": (0.1, 0.2), "query_reformulation": (0.2, 0.1)}.get(
        cap, (0.15, 0.15))
    return [pred("found_feasible", "listing_seen", w_found, "Search", "Evidence", actor="buyer_0",
                 listings=d["feasible"], via=["search_listings"]),
            pred("record_read", "decisive_record_read", w_read, "Evidence", "Evidence", actor="buyer_0"),
            pred("right_listing", "answer_in_set", 0.6, "Decision", "Choice", actor="buyer_0",
                 accepted=sorted(d["accepted"])),
            guard]


def _mutation(task_id: str, cap: str, d: dict, params: dict) -> MutationSpec:
    def mut(name: str, description: str, lowers: list[str], **knobs: Any) -> MutationSpec:
        return MutationSpec(id=f"{task_id}/{name}", description=description, lowers=lowers,
                            policy=PolicyRef(name="discovery_buyer", params={**params, **knobs}))

    if cap == "correct_abstention":
        return mut("answers_closest", "answers the closest match, which is over budget", ["abstained"],
                   answer=d["decisive"][0])
    if cap == "query_reformulation":
        return mut("gives_up", "abstains after the literal search finds nothing that fits",
                   ["found_feasible", "record_read", "right_listing"], give_up=True)
    if cap == "best_feasible_selection":
        return mut("sorted_by_price", "answers the cheapest candidate without weighing the objective",
                   ["right_listing"], order="listed", checks=[])
    if cap == "hard_constraint_filtering":
        return mut("skips_check", "answers the first candidate without checking the listing record",
                   ["right_listing"], checks=[])
    return mut("answers_decoy", "answers the cheapest item of the right type, which misses a requirement",
               ["right_listing"], answer=d["decoy"])


def _signature(d: dict) -> str:
    """What makes two tasks the same question: the item type and the requirements."""
    return json.dumps([d["kind"].product_type, sorted((n["field"], str(n["value"])) for n in d["needs"])])


def _draw(cap: str, rng: np.random.Generator, taken: set[str], variant: int) -> dict[str, Any] | None:
    """The first draw that passes the construction rules and asks a new question (item types and
    categories vary while attempts last), or None after :data:`ATTEMPTS` draws."""
    for n in range(ATTEMPTS):
        d = _attempt(cap, rng, variant)
        if d is None or _signature(d) in taken:
            continue
        kind_key, cat_key = f"{cap}/{d['kind'].product_type}", f"{cap}/{d['kind'].category}"
        if (kind_key not in taken or n > ATTEMPTS // 2) and (cat_key not in taken or n > ATTEMPTS // 8):
            taken.update({_signature(d), kind_key, cat_key})  # distinct questions; item types vary
            return d
    return None


def _task(task_id: str, cap: str, rng: np.random.Generator, taken: set[str], variant: int) -> TaskSpec:
    # A seed whose draws all fail for this variant (rare: a subtle abstention among taken questions)
    # falls back to the next variant, from the same random stream: every seed builds, and a seed that
    # built before builds the same tasks.
    d = _draw(cap, rng, taken, variant)
    if d is None:
        d = _draw(cap, rng, taken, variant + 1)
    if d is None:
        raise RuntimeError(f"could not build a {cap} task")
    needs, budget = d["needs"], d["budget"]
    checks = [n for n in needs if not filterable(n)]
    params = {"searches": d["searches"], "checks": checks, "order": d["order"],
              "unit": (d["objective"] or {}).get("unit"), "evidence_search": d.get("evidence_search")}
    state = empty_state(catalog_hash=catalog().content_hash)
    add_actor(state, "buyer_0", "buyer", balance=100_000)
    hints = {"filters": d["filters"], "checks": checks, "objective": d["objective"]}
    oracle = {"accepted": sorted(d["accepted"]), "feasible": sorted(d["feasible"]), "needs": needs,
              "budget": budget, "hints": hints, **({"decisive": d["decisive"]} if "decisive" in d else {})}
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=cap, role="buyer", actor="buyer_0", difficulty=d["factors"],
        request=d["request"],
        mandate={"budget": budget} if budget is not None else {},
        initial_state=state, catalog="capability-v1", max_steps=MAX_STEPS, predicates=_predicates(cap, d),
        oracle=oracle, reference=PolicyRef(name="discovery_buyer", params=params),
        mutations=[_mutation(task_id, cap, d, params)],
    )


@register_family(FAMILY)
def build(seed: int = 0, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T1 tasks, or fresh ones from ``seed``."""
    rng = np.random.default_rng([1, 2027] if frozen else [1, seed, 7])
    prefix = "capability-v1/T1" if frozen else f"generated-{seed}/T1"
    published = set() if frozen else _frozen_requests()
    tasks: list[TaskSpec] = []
    taken: set[str] = set()
    for cap, count in PLAN:
        for i in range(count):
            task = _task(f"{prefix}/buyer/{cap}/{i + 1:02d}", cap, rng, taken, i)
            while task.request in published:
                task = _task(task.task_id, cap, rng, taken, i)
            tasks.append(task)
    return tasks


@cache
def _frozen_requests() -> frozenset[str]:
    """Requests of the published T1 tasks (generated splits must avoid them): from the frozen file
    when it holds T1 tasks, else built."""
    from ..frozen import load_frozen

    published = [t for t in load_frozen("capability-v1") if t.family == FAMILY]
    return frozenset(t.request for t in published or build(frozen=True))
