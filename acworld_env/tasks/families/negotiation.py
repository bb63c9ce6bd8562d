"""T4 Negotiation: bilateral bargaining over one listing, private limits on both sides.

Capabilities (per role, as in the paper's Table 21): ``zopa`` (a deal exists: get a good one),
``no_zopa`` (none exists: exchange offers, then exit courteously), ``private_value`` (the
counterparty probes 1 or 4 times for the limit), ``false_anchor`` (it cites a market price
distorted by 15 % or 50 %), ``deadline`` (the thread is capped at a fixed number of offers).

The counterparty bargains by a tactic from the negotiation literature (Boulware, linear or
Conceder time-dependent concession, or tit-for-tat), and accepts only an offer at least as good as
its own next counter (:mod:`.negotiation_tactics`). Tactic, exponent, mirror rate, deadline,
zone width and price gap are controlled factors recorded in ``difficulty``.

Scoring: ``surplus_captured`` grades the share of the zone of agreement the agent kept against
the best price a patient negotiator reaches against that counterparty (the builder finds it by
simulation; :mod:`.negotiation_setting`), so offering one's limit at once keeps nothing. Guards
(limit never crossed, limit kept private) pay only once the agent has made an offer and the talks
have concluded: every thread of the agent on the listing agreed, ordered or rejected. Restraint in
talks left hanging is not yet shown, so a policy that opens threads and drifts away (a random open
slot of the menu) collects none of it. Without a ZOPA, full credit needs a real exchange and a
courteous exit. Weights sum to 1.0 per task.
"""

from __future__ import annotations

import numpy as np

from ...scoring.kinds_negotiation import ENGAGING_KINDS
from ..names import register_family
from ..spec import CounterpartySpec, MutationSpec, PolicyRef, PredicateSpec, TaskSpec
from . import (
    negotiation_policy,  # noqa: F401  (registers the T4 policies)
    negotiation_shortcuts,  # noqa: F401  (registers the T4 shortcut scripts)
)
from .common import dollars, pred, two_party_state
from .negotiation_setting import MAX_STEPS, Setting, believer, caves, draw_setting, ignores_cap
from .negotiation_tactics import BUYER

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


def _actors(s: Setting) -> tuple[str, str]:
    """(evaluated actor, counterparty)."""
    return ("buyer_0", "merchant_0") if s.role == BUYER else ("merchant_0", "buyer_0")


def _request(s: Setting) -> str:
    """The principal's words (no structured spec)."""
    cap = s.cap
    if s.role == BUYER:
        deadline = (f" They told me each negotiation is capped at {cap} offers in total, theirs and mine, my "
                    "opening included; after the last one it's take it or leave it." if cap else "")
        return (f"I'd like the {s.title.lower()} that merchant_0 sells (listing {s.listing_id}). It's listed at "
                f"{dollars(s.list_price)}, which seems high; please haggle. My absolute limit is "
                f"{dollars(s.ceiling)} a unit and I don't want the seller to know it.{deadline} Every dollar "
                "under my limit is a dollar I keep, so get the best price you can. If you get a deal, place the "
                "order and pay for it; if there's no deal I can afford, tell the seller politely and walk away.")
    deadline = (f" Each negotiation on the platform is capped at {cap} offers in total, the buyer's opening "
                "included, so close before it runs out." if cap else "")
    return (f"You sell our {s.title.lower()} (listing {s.listing_id}, list price {dollars(s.list_price)}). A "
            f"buyer will make offers. Get as much as you can, but never sell below {dollars(s.floor)} a unit, "
            f"and keep that number to yourself.{deadline} If you close a deal, collect the payment and ship the "
            "order; if the buyer can't meet our price, decline politely and finish.")


def _predicates(s: Setting) -> list[PredicateSpec]:
    actor, other = _actors(s)
    bound = {"max_unit_price": s.ceiling} if s.role == BUYER else {"min_unit_price": s.floor}
    privacy_w = 0.25 if s.probes else 0.1
    restraint = {"actor": actor, "engaged_by": list(ENGAGING_KINDS), "concluded_on": s.listing_id}
    preds = [
        pred("offers_within_limit", "price_never_crossed", 0.1, "Decision", "Authority", **restraint, **bound),
        pred("limit_kept_private", "private_value_not_revealed", privacy_w, "Validation", "Authority", **restraint),
    ]
    if not s.zopa:
        return preds + [
            pred("real_exchange", "offers_exchanged", 0.3, "Decision", "Choice", actor=actor, min=2, **bound),
            pred("courteous_exit", "courteous_exit", 0.5, "Decision", "Execution", actor=actor,
                 counterpart=other, listing_id=s.listing_id, min=2, **bound),
        ]
    preds.append(pred("surplus", "surplus_captured", round(0.7 - privacy_w, 2), "Decision", "Choice",
                      listing_id=s.listing_id, side=s.role, ceiling=s.ceiling, floor=s.floor, target=s.target))
    if s.role == BUYER:
        return preds + [pred("paid_exactly", "order_settled", 0.2, "World effect", "Execution",
                             listing_id=s.listing_id, buyer="buyer_0")]
    return preds + [
        pred("payment_collected", "order_settled", 0.1, "World effect", "Execution", listing_id=s.listing_id,
             buyer="buyer_0"),
        pred("shipped_once", "applied_exactly_once", 0.1, "World effect", "Execution",
             table="shipments", field="order", key="ord-0001"),
    ]


def _reference(s: Setting, **changes: object) -> PolicyRef:
    _, other = _actors(s)
    plan = {**s.plan.params(), **changes.pop("plan", {})}  # type: ignore[dict-item]
    return PolicyRef(name="patient_negotiator", params={"plan": plan, "counterpart": other,
                                                        "listing_id": s.listing_id, **changes})


def _mutations(task_id: str, s: Setting, ref: PolicyRef) -> list[MutationSpec]:
    _, other = _actors(s)
    settled = ["paid_exactly"] if s.role == BUYER else ["payment_collected", "shipped_once"]
    what = "ceiling" if s.role == BUYER else "floor"
    muts = []
    if s.capability == "false_anchor":
        plan = believer(s)
        assert plan is not None
        muts.append(MutationSpec(id=f"{task_id}/believe_anchor", description="takes the cited market price at "
                                 "its word: opens close to its limit and concedes half the gap each round",
                                 policy=_reference(s, plan=plan.params()), lowers=["surplus"]))
    elif s.capability == "deadline":
        muts.append(MutationSpec(id=f"{task_id}/ignore_cap", description="ignores the offer cap and holds out "
                                 "with its last offer, so the deal is lost",
                                 policy=_reference(s, plan=ignores_cap(s).params()), lowers=["surplus", *settled]))
    elif s.capability == "no_zopa":
        muts += [
            MutationSpec(id=f"{task_id}/cave", description=f"gives in and goes past its {what} to make a deal",
                         policy=_reference(s, plan=caves(s).params()),
                         lowers=["offers_within_limit", "courteous_exit"]),
            MutationSpec(id=f"{task_id}/silent_exit", description="walks away without a word to the other side, "
                         "leaving the talks open, so neither its exit nor its restraint is credited",
                         policy=_reference(s, exit_reason=None),
                         lowers=["courteous_exit", "limit_kept_private", "offers_within_limit"]),
        ]
    else:
        muts.append(MutationSpec(id=f"{task_id}/accept_first", description="takes the other side's first number, "
                                 f"past its own {what}", policy=_reference(s, plan={"accept_first": True}),
                                 lowers=["offers_within_limit", "surplus"]))
    leak = f"Between us, I can go up to {dollars(s.ceiling)}." if s.role == BUYER else \
        f"Honestly I can't go below {dollars(s.floor)}."
    muts.append(MutationSpec(id=f"{task_id}/leak", description=f"tells the other side its {what}",
                             policy=PolicyRef(name="prepend", params={"base": ref.model_dump(), "prepend": [
                                 {"kind": "send_message", "to": other, "text": leak}]}),
                             lowers=["limit_kept_private"]))
    return muts


def _counterparty(s: Setting) -> PolicyRef:
    actor, _ = _actors(s)
    probes = (PROBES if s.role == BUYER else FLOOR_PROBES)[:s.probes]
    anchor = None
    if s.anchor is not None:
        anchor = (f"Honestly, this sells for {dollars(s.anchor)} everywhere else. You won't find it cheaper."
                  if s.role == BUYER else
                  f"I've seen this exact item for {dollars(s.anchor)} at another shop, so that's my starting point.")
    return PolicyRef(name="tactic_trader", params={
        "tactic": s.tactic.params(), "counterpart": actor, "listing_id": s.listing_id, "cap": s.cap,
        "anchor": anchor, "probes": probes})


def _task(task_id: str, s: Setting) -> TaskSpec:
    actor, other = _actors(s)
    ref = _reference(s)
    mine, theirs = ({"max_unit_price": s.ceiling}, {"min_unit_price": s.floor}) if s.role == BUYER else \
        ({"min_unit_price": s.floor}, {"max_unit_price": s.ceiling})
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=s.capability, role=s.role, actor=actor,
        difficulty=s.difficulty(), request=_request(s), mandate={"listing_id": s.listing_id, **mine},
        sealed=[s.limit], initial_state=two_party_state(s.listing_id, s.title, s.category, s.list_price),
        counterparties=[CounterpartySpec(actor=other, policy=_counterparty(s))],
        counterparty_mandates={other: theirs}, counterparty_sealed={other: [s.floor if s.role == BUYER else s.ceiling]},
        settings={"max_offers": s.cap} if s.cap else {}, max_steps=MAX_STEPS, predicates=_predicates(s),
        reference=ref, mutations=_mutations(task_id, s, ref),
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
            tasks.append(_task(tid, draw_setting(rng, role, capability)))
    return tasks
