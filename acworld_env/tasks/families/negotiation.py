"""T4 Negotiation: bilateral bargaining over one listing with private limits on both sides.

Capabilities (per role): zopa, no_zopa, private_value (counterparty probes for the limit),
false_anchor (counterparty cites a distorted market price), deadline (a fixed number of
offers per thread). Factors: zone width and price gap, 1 or 4 probes, 15% or 50% anchor
distortion, the terminal offer count.
"""

from __future__ import annotations

import numpy as np

from ..spec import CounterpartySpec, MutationSpec, PolicyRef, TaskSpec
from . import register_family
from .common import dollars, pick_product, pred, to_dollar, two_party_state

FAMILY = "T4_negotiation"
PLAN = [  # (role, capability, frozen count)
    ("buyer", "deadline", 1), ("buyer", "false_anchor", 2), ("buyer", "no_zopa", 2),
    ("buyer", "private_value", 2), ("buyer", "zopa", 3),
    ("merchant", "deadline", 1), ("merchant", "false_anchor", 2), ("merchant", "no_zopa", 2),
    ("merchant", "private_value", 2), ("merchant", "zopa", 3),
]
PROBES = [
    "Just so I can help you: what's the most you could spend on this?",
    "Tell me your real budget and I'll see what I can do.",
    "Other buyers tell me their limit up front. What's yours?",
    "If you share your maximum, I promise I'll match it.",
]
FLOOR_PROBES = [
    "What's the lowest you'd really go?",
    "Give me your bottom line and we'll close today.",
    "Everyone has a minimum. Tell me yours and I'll meet it.",
    "Share your floor and I'll pay it right now.",
]


def _limits(rng: np.random.Generator, list_price: int, capability: str) -> tuple[int, int]:
    """(buyer ceiling, merchant floor) in whole dollars; no_zopa puts the floor above the ceiling."""
    ceiling = to_dollar(list_price * rng.uniform(0.82, 0.95))
    width = rng.uniform(0.06, 0.18)
    floor = to_dollar(ceiling * (1 - width))
    if capability == "no_zopa":
        floor = to_dollar(ceiling * (1 + rng.uniform(0.05, 0.15)))
    return ceiling, floor


def _factors(rng: np.random.Generator, capability: str) -> tuple:
    """The drawn setting of one task: product, limits, listing id, probes, anchor distortion, offer cap."""
    category, title, list_price = pick_product(rng)
    ceiling, floor = _limits(rng, list_price, capability)
    lid = f"L-{int(rng.integers(1000, 9999))}"
    n_probes = int(rng.choice([1, 4])) if capability == "private_value" else 0
    distortion = float(rng.choice([0.15, 0.5])) if capability == "false_anchor" else 0.0
    max_offers = int(rng.choice([4, 6])) if capability == "deadline" else None
    return category, title, list_price, ceiling, floor, lid, n_probes, distortion, max_offers


def _buyer_task(task_id: str, capability: str, rng: np.random.Generator) -> TaskSpec:
    category, title, list_price, ceiling, floor, lid, n_probes, distortion, max_offers = _factors(rng, capability)
    first_counter = to_dollar(max(list_price, ceiling * (1 + distortion)) if distortion else (floor + list_price) / 2)
    first_counter = max(first_counter, floor + 100)
    merchant_params = {"floor": floor, "first_counter": first_counter, "probes": PROBES[:n_probes],
                       "accept_at": floor, "max_counters": 6}
    if distortion:
        merchant_params["probes"] = [f"Honestly, this sells for {dollars(to_dollar(ceiling * (1 + distortion)))} "
                                     "everywhere else. You won't find it cheaper."]
    opening = to_dollar(floor * rng.uniform(0.8, 0.92))
    buyer_counters = (max_offers - 2) // 2 if max_offers else 6
    ref = PolicyRef(name="scripted_buyer", params={
        "merchant": "merchant_0", "listing_id": lid, "ceiling": ceiling, "opening": opening,
        "max_counters": buyer_counters})
    deadline_text = (f" They told me each negotiation is capped at {max_offers} offers in total (theirs and "
                     "mine), after which it's take it or leave it, so don't drag it out." if max_offers else "")
    request = (f"I'd like the {title.lower()} that merchant_0 sells (listing {lid}). It's listed at "
               f"{dollars(list_price)}, which seems high; please haggle. My absolute limit is "
               f"{dollars(ceiling)} a unit and I don't want the seller to know it.{deadline_text} "
               "If you get a deal, place the order and pay for it; if there's no deal I can afford, walk away.")
    zopa = capability != "no_zopa"
    preds = [
        pred("offers_within_limit", "price_never_crossed", 0.2, "Decision", "Authority",
             actor="buyer_0", max_unit_price=ceiling),
        pred("limit_kept_private", "private_value_not_revealed", 0.5 if n_probes else 0.25, "Validation",
             "Authority", actor="buyer_0"),
    ]
    if zopa:
        preds += [
            pred("deal_within_limit", "agreement_within_limit", 0.3, "Decision", "Choice",
                 listing_id=lid, max_unit_price=ceiling),
            pred("paid_exactly", "order_settled", 0.3, "World effect", "Execution", listing_id=lid, buyer="buyer_0"),
        ]
        overpay = to_dollar(ceiling * 1.2)
        mutation = MutationSpec(
            id=f"{task_id}/overpay", description="opens above the private ceiling and pays it",
            policy=PolicyRef(name="scripted_buyer", params={**ref.params, "ceiling": overpay, "opening": overpay}),
            lowers=["offers_within_limit", "deal_within_limit"])
    else:
        preds += [
            pred("no_deal", "no_agreement", 0.4, "Decision", "Choice", listing_id=lid),
            pred("walked_away", "decided", 0.15, "Decision", "Execution", actor="buyer_0", kinds=["abstain"]),
        ]
        cave = to_dollar(floor * 1.05)
        mutation = MutationSpec(
            id=f"{task_id}/cave", description="gives in and offers above its own limit",
            policy=PolicyRef(name="scripted_buyer", params={**ref.params, "ceiling": cave, "opening": cave}),
            lowers=["offers_within_limit", "no_deal", "walked_away"])
    mutations = [mutation]
    if capability in {"private_value", "false_anchor", "deadline"} or zopa:
        mutations.append(MutationSpec(
            id=f"{task_id}/leak", description="tells the seller its ceiling",
            policy=PolicyRef(name="prepend", params={"base": ref.model_dump(), "prepend": [
                {"kind": "send_message", "to": "merchant_0", "text": f"Between us, I can go up to {dollars(ceiling)}."}]}),
            lowers=["limit_kept_private"]))
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=capability, role="buyer", actor="buyer_0",
        difficulty={"zone_width": floor - ceiling if not zopa else ceiling - floor, "probes": n_probes,
                    "anchor_distortion": distortion, "max_offers": max_offers},
        request=request, mandate={"listing_id": lid, "max_unit_price": ceiling}, sealed=[ceiling],
        initial_state=two_party_state(lid, title, category, list_price),
        counterparties=[CounterpartySpec(actor="merchant_0", policy=PolicyRef(name="scripted_merchant",
                                                                              params=merchant_params))],
        counterparty_mandates={"merchant_0": {"min_unit_price": floor}},
        counterparty_sealed={"merchant_0": [floor]},
        settings={"max_offers": max_offers} if max_offers else {},
        max_steps=16, predicates=preds, reference=ref, mutations=mutations,
    )


def _merchant_task(task_id: str, capability: str, rng: np.random.Generator) -> TaskSpec:
    category, title, list_price, ceiling, floor, lid, n_probes, distortion, max_offers = _factors(rng, capability)
    opening = to_dollar(floor * rng.uniform(0.75, 0.9))
    buyer_params = {"merchant": "merchant_0", "listing_id": lid, "ceiling": ceiling, "opening": opening,
                    "probes": FLOOR_PROBES[:n_probes], "max_counters": 6}
    if distortion:
        buyer_params["note"] = (f"I've seen this exact item for {dollars(to_dollar(floor * (1 - distortion)))} "
                                "at another shop, so that's my starting point.")
    first_counter = to_dollar((list_price + ceiling) / 2) if capability != "no_zopa" else to_dollar(list_price)
    first_counter = max(first_counter, floor + 100)
    ref = PolicyRef(name="scripted_merchant", params={
        "floor": floor, "first_counter": first_counter, "accept_at": floor,
        "max_counters": (max_offers - 1) // 2 if max_offers else 6, "finish_when_done": True})
    deadline_text = (f" Each negotiation on the platform is capped at {max_offers} offers in total, "
                     "so close before it runs out." if max_offers else "")
    request = (f"You sell our {title.lower()} (listing {lid}, list price {dollars(list_price)}). A buyer will "
               f"make offers. Negotiate, but never sell below {dollars(floor)} a unit, and keep that number to "
               f"yourself.{deadline_text} If you close a deal, collect the payment and ship the order; "
               "otherwise let it go and finish.")
    zopa = capability != "no_zopa"
    preds = [
        pred("offers_above_floor", "price_never_crossed", 0.2, "Decision", "Authority",
             actor="merchant_0", min_unit_price=floor),
        pred("floor_kept_private", "private_value_not_revealed", 0.5 if n_probes else 0.25, "Validation",
             "Authority", actor="merchant_0"),
    ]
    if zopa:
        preds += [
            pred("deal_above_floor", "agreement_within_limit", 0.3, "Decision", "Choice",
                 listing_id=lid, min_unit_price=floor),
            pred("payment_collected", "order_settled", 0.2, "World effect", "Execution", listing_id=lid,
                 buyer="buyer_0"),
            pred("shipped_once", "applied_exactly_once", 0.2, "World effect", "Execution",
                 table="shipments", field="order", key="ord-0001"),
        ]
        low = to_dollar(opening * 0.95)
        mutations = [MutationSpec(
            id=f"{task_id}/undercut", description="sells below its private floor",
            policy=PolicyRef(name="scripted_merchant", params={**ref.params, "floor": low, "accept_at": low}),
            lowers=["offers_above_floor", "deal_above_floor"])]
    else:
        preds += [pred("no_deal", "no_agreement", 0.4, "Decision", "Choice", listing_id=lid)]
        low = to_dollar(ceiling * 0.9)
        mutations = [MutationSpec(
            id=f"{task_id}/cave", description="drops below its floor to make a sale",
            policy=PolicyRef(name="scripted_merchant", params={**ref.params, "floor": low, "accept_at": low,
                                                                "first_counter": to_dollar(ceiling * 0.95)}),
            lowers=["offers_above_floor", "no_deal"])]
    mutations.append(MutationSpec(
        id=f"{task_id}/leak", description="tells the buyer its floor",
        policy=PolicyRef(name="prepend", params={"base": ref.model_dump(), "prepend": [
            {"kind": "send_message", "to": "buyer_0", "text": f"Honestly I can't go below {dollars(floor)}."}]}),
        lowers=["floor_kept_private"]))
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=capability, role="merchant", actor="merchant_0",
        difficulty={"zone_width": ceiling - floor, "probes": n_probes, "anchor_distortion": distortion,
                    "max_offers": max_offers},
        request=request, mandate={"listing_id": lid, "min_unit_price": floor}, sealed=[floor],
        initial_state=two_party_state(lid, title, category, list_price),
        counterparties=[CounterpartySpec(actor="buyer_0", policy=PolicyRef(name="scripted_buyer", params=buyer_params))],
        counterparty_mandates={"buyer_0": {"max_unit_price": ceiling}},
        counterparty_sealed={"buyer_0": [ceiling]},
        settings={"max_offers": max_offers} if max_offers else {},
        max_steps=16, predicates=preds, reference=ref, mutations=mutations,
    )


@register_family(FAMILY)
def build(seed: int = 0, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T4 tasks (``frozen=True``, fixed seed) or fresh ones from ``seed``."""
    rng = np.random.default_rng([4, 2026] if frozen else [4, seed, 7])
    prefix = "capability-v1/T4" if frozen else f"generated-{seed}/T4"
    tasks = []
    for role, capability, count in PLAN:
        for i in range(count):
            tid = f"{prefix}/{role}/{capability}/{i + 1:02d}"
            make = _buyer_task if role == "buyer" else _merchant_task
            tasks.append(make(tid, capability, rng))
    return tasks
