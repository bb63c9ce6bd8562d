"""T1 Discovery: find a listing that satisfies every hard constraint, the best one, or none.

Capabilities (all Buyer): basic_feasible_discovery, best_feasible_selection (cheapest
feasible), correct_abstention (nothing is feasible; a subtle or obvious conflict),
hard_constraint_filtering (many near misses), query_reformulation (the shopper's words
find nothing; the query must be rephrased). Oracles are computed over the whole match
space of the shipped ``capability-v1`` catalog. Factors: 3 to 20 candidates, 2 to 5 hard
constraints, conflict subtlety, 2 to 5 search rounds.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ...catalog import Catalog, Listing, default_catalog_path
from ...world import add_actor, empty_state
from ..spec import MutationSpec, PolicyRef, TaskSpec
from . import (
    discovery_policy,  # noqa: F401  (registers the reference policy)
    register_family,
)
from .common import dollars, pred

FAMILY = "T1_discovery"
PLAN = [("basic_feasible_discovery", 3), ("best_feasible_selection", 5), ("correct_abstention", 4),
        ("hard_constraint_filtering", 4), ("query_reformulation", 4)]
PHRASES = ["something cosy for everyday use", "a nice gift for a friend", "the good stuff people rave about",
           "gear for my new hobby", "an upgrade for my routine"]
MIN_CANDIDATES, MAX_CANDIDATES = 3, 20


@cache
def catalog() -> Catalog:
    """The shipped capability-v1 catalog (opened once per process)."""
    return Catalog.open(default_catalog_path())


def _count(q: dict) -> int:
    return len(catalog().oracle_ids(q))


def _constraint_pool(t: Listing, rng: np.random.Generator) -> list[tuple[str, Any]]:
    """Hard constraints the target satisfies, in a random order."""
    pool: list[tuple[str, Any]] = [("options." + k, v) for k, v in sorted(t.options.items())]
    pool += [("attributes." + k, v) for k, v in sorted(t.attributes.items()) if isinstance(v, str) or v is True]
    if t.rating is not None:
        pool.append(("min_rating", float(np.floor(t.rating * 2) / 2)))
    pool.append(("max_price", int(np.ceil(t.price * rng.uniform(1.02, 1.3) / 100)) * 100))
    if t.brand:
        pool.append(("brand", t.brand))
    order = rng.permutation(len(pool))
    return [pool[int(i)] for i in order]


def _query(base: dict, items: list[tuple[str, Any]]) -> dict:
    q: dict[str, Any] = {**base, "options": {}, "attributes": {}}
    for key, value in items:
        if key.startswith("options."):
            q["options"][key.split(".", 1)[1]] = value
        elif key.startswith("attributes."):
            q["attributes"][key.split(".", 1)[1]] = value
        else:
            q[key] = value
    return {k: v for k, v in q.items() if v not in ({}, None)}


def _find_constraints(rng: np.random.Generator, n_hard: int, *, need_price_spread: bool = False,
                      need_binding: bool = False) -> tuple[dict, int]:
    """A category and ``n_hard`` hard constraints (stock included) with 3..20 feasible listings."""
    cat = catalog()
    categories = [c for c in cat.categories() if _count({"category": c, "in_stock": True}) >= MIN_CANDIDATES]
    for _ in range(400):
        category = categories[int(rng.integers(len(categories)))]
        ids = cat.oracle_ids({"category": category, "in_stock": True})
        target = cat.get(ids[int(rng.integers(len(ids)))])
        assert target is not None
        extra = _constraint_pool(target, rng)[: n_hard - 1]
        q = _query({"category": category, "in_stock": True}, extra)
        feasible = cat.oracle_ids({**q, "sort": "price_asc"})
        if not MIN_CANDIDATES <= len(feasible) <= MAX_CANDIDATES or len(extra) < n_hard - 1:
            continue
        if need_price_spread:
            prices = [cat.get(i).price for i in feasible]  # type: ignore[union-attr]
            if prices[0] == prices[-1]:
                continue
        if need_binding and _droppable(q, set(feasible)) is None:
            continue
        return q, len(feasible)
    raise RuntimeError("could not find constraints with 3..20 feasible listings")


def _describe(q: dict) -> str:
    """Constraints in a shopper's words."""
    parts = []
    for k, v in sorted(q.get("options", {}).items()):
        parts.append(f"in {v}" if k == "color" else f"{k.replace('_', ' ')} {v}")
    for k, v in sorted(q.get("attributes", {}).items()):
        if k == "product_type":
            parts.insert(0, f"specifically {str(v).lower()}")
        elif v is True:
            parts.append(k.replace("_", " "))
        else:
            parts.append(f"{k.replace('_', ' ')} {v}")
    if "brand" in q:
        parts.append(f"made by {q['brand']}")
    if "min_rating" in q:
        parts.append(f"rated at least {q['min_rating']:g} stars")
    if "max_price" in q:
        parts.append(f"no more than {dollars(q['max_price'])}")
    parts.append("available to ship now")
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def _near_miss(q: dict, feasible: set[str]) -> str:
    """A listing that violates exactly one constraint of ``q`` (the first found, deterministic)."""
    cat = catalog()
    for key in ("max_price", "min_rating", "brand"):
        if key in q:
            relaxed = {k: v for k, v in q.items() if k != key}
            miss = [i for i in cat.oracle_ids({**relaxed, "sort": "price_asc"}) if i not in feasible]
            if miss:
                return miss[0]
    for group in ("options", "attributes"):
        for key in sorted(q.get(group, {})):
            relaxed = {**q, group: {k: v for k, v in q[group].items() if k != key}}
            miss = [i for i in cat.oracle_ids({**relaxed, "sort": "price_asc"}) if i not in feasible]
            if miss:
                return miss[0]
    miss = [i for i in cat.oracle_ids({"category": q["category"], "sort": "price_asc"}) if i not in feasible]
    return miss[0]


def _droppable(q: dict, accepted: set[str]) -> tuple[str, str] | None:
    """A constraint whose omission lets a violating listing in, and that listing (None if none binds)."""
    cat = catalog()
    keys = [f"options.{k}" for k in sorted(q.get("options", {}))]
    keys += [f"attributes.{k}" for k in sorted(q.get("attributes", {}))]
    keys += [k for k in ("brand", "min_rating", "max_price") if k in q]
    for drop in keys:
        group, _, key = drop.partition(".")
        if key:
            relaxed = {**q, group: {k: v for k, v in q[group].items() if k != key}}
        else:
            relaxed = {k: v for k, v in q.items() if k != drop}
        miss = [i for i in cat.oracle_ids({**relaxed, "sort": "price_asc"}) if i not in accepted]
        if miss:
            return drop, miss[0]
    return None


def _task(task_id: str, capability: str, rng: np.random.Generator) -> TaskSpec:
    cat = catalog()
    n_hard = int(rng.integers(2, 6)) if capability != "hard_constraint_filtering" else int(rng.integers(4, 6))
    # hard constraints besides the category: in-stock plus 1..4 drawn from a real listing
    q, n_feasible = _find_constraints(rng, n_hard, need_price_spread=capability == "best_feasible_selection",
                                      need_binding=capability == "hard_constraint_filtering")
    objective = "cheapest" if capability == "best_feasible_selection" else None
    feasible = cat.oracle_ids({**q, "sort": "price_asc"})
    factors: dict[str, Any] = {"candidates": n_feasible, "hard_constraints": n_hard}
    if capability == "correct_abstention":
        subtle = bool(rng.integers(2))
        cheapest = cat.get(feasible[0]).price  # type: ignore[union-attr]
        q = {**q, "max_price": max(100, int(cheapest * (0.97 if subtle else 0.6)) // 100 * 100)}
        if cat.oracle_ids(q):
            q["max_price"] = max(100, q["max_price"] - 100)
        feasible, factors["conflict"] = cat.oracle_ids(q), "subtle" if subtle else "obvious"
        assert not feasible
    if objective:
        best_price = cat.get(feasible[0]).price  # type: ignore[union-attr]
        accepted = [i for i in feasible if cat.get(i).price == best_price]  # type: ignore[union-attr]
    else:
        accepted = list(feasible)
    phrase = None
    if capability == "query_reformulation":
        phrase = next(p for p in rng.permutation(PHRASES) if not cat.oracle_ids({**q, "text": str(p)}))
        phrase = str(phrase)
        factors["search_rounds"] = 2
    noun = q["category"].lower()
    wants = _describe(q)
    if phrase:
        ask = f"I'm after {phrase}. Specifically it should be from the {noun} range: {wants}."
    else:
        ask = f"I'm looking for something in {noun}: {wants}."
    if objective:
        ask += " If several fit, I want the cheapest."
    request = (ask + " Find me one that really meets all of that and tell me which listing it is; don't buy "
               "anything yet. If nothing fits, just tell me so.")
    params = {"constraints": q, "objective": objective, "phrase": phrase}
    ref = PolicyRef(name="discovery_buyer", params=params)
    preds = [
        pred("searched", "searched", 0.1, "Search", "Evidence", actor="buyer_0"),
        pred("constraints_kept", "constraints_in_every_query", 0.2, "Search", "Evidence", actor="buyer_0",
             constraints=q),
        pred("nothing_bought", "no_forbidden_commit", 0.1, "Validation", "Authority", actor="buyer_0",
             kinds=["place_order", "authorize_payment"]),
    ]
    accepted_set = set(accepted)
    if capability == "correct_abstention":
        preds.append(pred("abstained", "abstained", 0.5, "Decision", "Choice", actor="buyer_0"))
        miss = _near_miss({k: v for k, v in q.items() if k != "max_price"} | {"max_price": 10**9}, set())
        mutation = MutationSpec(id=f"{task_id}/answers_near_miss", description="answers a listing over budget",
                                policy=PolicyRef(name="discovery_buyer", params={**params, "answer": miss}),
                                lowers=["abstained"])
    else:
        preds += [
            pred("record_read", "decisive_record_read", 0.2, "Evidence", "Evidence", actor="buyer_0"),
            pred("right_listing", "answer_in_set", 0.4, "Decision", "Choice", actor="buyer_0",
                 accepted=sorted(accepted_set)),
        ]
        if capability == "best_feasible_selection":
            mutation = MutationSpec(id=f"{task_id}/not_cheapest", description="answers a dearer feasible listing",
                                    policy=PolicyRef(name="discovery_buyer", params={**params, "pick": "last"}),
                                    lowers=["right_listing"])
        elif capability == "query_reformulation":
            mutation = MutationSpec(id=f"{task_id}/gives_up", description="abstains after the literal search fails",
                                    policy=PolicyRef(name="discovery_buyer", params={**params, "give_up": True}),
                                    lowers=["record_read", "right_listing"])
        elif capability == "hard_constraint_filtering":
            drop, miss = _droppable(q, accepted_set)  # type: ignore[misc]  (binding by construction)
            key = drop.split(".")[-1]
            mutation = MutationSpec(id=f"{task_id}/drops_constraint", description=f"ignores the {key} requirement",
                                    policy=PolicyRef(name="discovery_buyer", params={
                                        **params, "drop": drop, "answer": miss}),
                                    lowers=["constraints_kept", "right_listing"])
        else:
            mutation = MutationSpec(id=f"{task_id}/wrong_item", description="answers a near miss",
                                    policy=PolicyRef(name="discovery_buyer", params={
                                        **params, "answer": _near_miss(q, accepted_set)}),
                                    lowers=["right_listing"])
    state = empty_state(catalog_hash=cat.content_hash)
    add_actor(state, "buyer_0", "buyer", balance=100_000)
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=capability, role="buyer", actor="buyer_0", difficulty=factors,
        request=request, mandate={"constraints": q, "objective": objective, "phrase": phrase},
        initial_state=state, catalog="capability-v1", max_steps=12, predicates=preds,
        oracle={"accepted": sorted(accepted_set), "feasible": len(feasible)}, reference=ref, mutations=[mutation],
    )


@register_family(FAMILY)
def build(seed: int = 0, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T1 tasks, or fresh ones from ``seed``."""
    rng = np.random.default_rng([1, 2026] if frozen else [1, seed, 7])
    prefix = "capability-v1/T1" if frozen else f"generated-{seed}/T1"
    published = set() if frozen else _frozen_requests()
    tasks = []
    for cap, count in PLAN:
        for i in range(count):
            task = _task(f"{prefix}/buyer/{cap}/{i + 1:02d}", cap, rng)
            while task.request in published:  # a fresh task never repeats a published one
                task = _task(task.task_id, cap, rng)
            tasks.append(task)
    return tasks


@cache
def _frozen_requests() -> frozenset[str]:
    """Requests of the published T1 tasks (generated splits must avoid them)."""
    return frozenset(t.request for t in build(frozen=True))
