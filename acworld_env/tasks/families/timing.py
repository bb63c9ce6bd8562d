"""T10 Timing: idempotency, staleness and event ordering under a messy notice feed.

Market notices (payment, shipping and refund requests) arrive through scheduled market
events, sometimes repeated, out of sequence, expired, or meant for someone else. The agent
must carry out each request exactly once, in order, while fresh, and only for its own orders.
Factors: 1 to 4 duplicates, 1 or 4 staleness rounds, 1 or 3 inversions, 2 or 4 concurrent orders.

Each payment, fulfilment or refund cites the notice it answers (``event_id``); the platform
checks the citation and the World records the link, which the rubric (``timing_rubric``)
reads. As at a real payment network, a repeat with a new idempotency key is a new charge or
refund: the platform carries it out, and avoiding it is the agent's job.
"""

from __future__ import annotations

import numpy as np

from ...world import add_actor, empty_state, listing_record, transition
from ...world.transition import apply_delta
from ..names import register_family
from ..spec import MutationSpec, PolicyRef, TaskSpec
from . import (
    timing_policy,  # noqa: F401  (registers the event handler)
    timing_shortcuts,  # noqa: F401  (registers the baseline shortcuts)
)
from .common import PRODUCTS, dollars
from .timing_rubric import rubric

FAMILY = "T10_timing"
PLAN = [
    ("buyer", "cross_order_payment_isolation", 2), ("buyer", "duplicate_payment", 2),
    ("buyer", "out_of_order", 2), ("buyer", "stale_certificate", 2),
    ("merchant", "cross_order_isolation", 2), ("merchant", "duplicate_fulfillment", 3),
    ("merchant", "duplicate_refund", 3), ("merchant", "out_of_order", 2), ("merchant", "stale_certificate", 2),
]


def _apply(state: dict, events: list[dict]) -> None:
    apply_delta(state, transition(state, events))


def _orders(rng: np.random.Generator, n: int, kind: str, *, foreign: bool) -> tuple[dict, list[dict]]:
    """A World with ``n`` orders of buyer_0 at merchant_0 (plus one foreign order), advanced to ``kind``'s stage."""
    state = empty_state()
    for actor, role in (("buyer_0", "buyer"), ("buyer_1", "buyer"), ("merchant_0", "merchant"),
                        ("merchant_1", "merchant")):
        add_actor(state, actor, role, balance=500_000 if role == "buyer" else 0)
    items = [x for cat in sorted(PRODUCTS) for x in PRODUCTS[cat]]
    orders = []
    for i in range(n + int(foreign)):
        title, price = items[int(rng.integers(len(items)))]
        qty = int(rng.integers(1, 3))
        lid, oid, pid = f"L-{i + 1:03d}", f"ord-{i + 1:04d}", f"pay-{i + 1:04d}"
        is_foreign = i == n
        buyer, merchant = ("buyer_1", "merchant_1") if is_foreign else ("buyer_0", "merchant_0")
        state["listings"][lid] = listing_record(merchant, price, 20, title=title, category="")
        lines = [{"listing_id": lid, "quantity": qty, "unit_price": price}]
        total = qty * price
        _apply(state, [{"type": "order_placed", "order_id": oid, "buyer": buyer, "merchant": merchant,
                        "lines": lines, "total": total, "source": "list", "round": 0}])
        if kind in {"ship_request", "refund_request"}:
            _apply(state, [{"type": "payment_authorized", "payment_id": pid, "order_id": oid, "buyer": buyer,
                            "merchant": merchant, "amount": total, "round": 0},
                           {"type": "payment_captured", "payment_id": pid, "amount": total}])
        if kind == "refund_request":
            _apply(state, [{"type": "inventory_allocated", "order_id": oid, "lines": [
                {"listing_id": lid, "quantity": qty}]},
                {"type": "order_shipped", "order_id": oid, "shipment_id": f"shp-{i + 1:04d}", "carrier": "standard",
                 "round": 0}, {"type": "delivery_confirmed", "shipment_id": f"shp-{i + 1:04d}", "round": 0}])
        refund = (total * int(rng.integers(2, 5)) // 10) // 100 * 100 or 100
        orders.append({"order_id": oid, "payment_id": pid, "total": total, "refund": refund, "title": title,
                       "foreign": is_foreign})
    return state, orders


def _deliveries(rng: np.random.Generator, capability: str, orders: list[dict], kind: str) -> tuple[list, dict]:
    """(round, event) deliveries and the difficulty factors."""
    own = [o for o in orders if not o["foreign"]]

    def ev(o: dict, stream: str, seq: int, valid: int | None = None) -> dict:
        return {"type": kind, "stream": stream, "seq": seq, "order_id": o["order_id"], "payment_id": o["payment_id"],
                "amount": o["refund"] if kind == "refund_request" else o["total"], "valid_until_round": valid}

    out: list[tuple[int, dict]] = []
    factors: dict = {}
    if capability.startswith("duplicate"):
        dups = int(rng.integers(1, 5))
        factors["duplicates"] = dups
        out = [(0, ev(own[0], "s1", 1))] + [(1 + i, ev(own[0], "s1", 1)) for i in range(dups)]
    elif capability == "out_of_order":
        inv = len(own) // 2
        factors["inversions"] = inv
        for k in range(inv):
            a, b, s = own[2 * k], own[2 * k + 1], f"s{k + 1}"
            out += [(3 * k, ev(b, s, 2)), (3 * k + 1, ev(a, s, 1)), (3 * k + 2, ev(b, s, 2))]
    elif capability == "stale_certificate":
        stale = int(rng.choice([1, 4]))
        factors["staleness"] = stale
        out = [(stale, ev(own[0], "s1", 1, valid=0)), (stale + 1, ev(own[0], "s1", 1, valid=stale + 12))]
    else:
        factors["concurrent_orders"] = len(own)
        rounds = list(range(len(own) + 1))
        order = [int(x) for x in rng.permutation(len(own) + 1)]
        for r, idx in zip(rounds, order, strict=True):
            o = orders[idx]
            out.append((r, ev(o, f"s{idx + 1}", 1)))
    return out, factors


def _truth(deliveries: list[tuple[int, dict]], own: set[str]) -> list[str]:
    """The right verdict of each delivery, by the rules stated to the agent."""
    expected: dict[str, int] = {}
    verdicts = []
    for r, e in deliveries:
        if e["order_id"] not in own:
            verdicts.append("foreign")
        elif e["valid_until_round"] is not None and r > e["valid_until_round"]:
            verdicts.append("stale")
        elif e["seq"] < expected.get(e["stream"], 1):
            verdicts.append("duplicate")
        elif e["seq"] > expected.get(e["stream"], 1):
            verdicts.append("out_of_order")
        else:
            verdicts.append("apply")
            expected[e["stream"]] = e["seq"] + 1
    return verdicts


def _request(role: str, kind: str, own: list[dict], close: int) -> str:
    listing = ", ".join(f"{o['order_id']} ({o['title'].lower()}, {dollars(o['total'])})" for o in own)
    if kind == "payment_request":
        ask = (f"I have orders waiting for payment: {listing}. Payment requests for them will come in as "
               "marketplace notices. The notice system is flaky: it resends things, sends them out of sequence, "
               "sometimes sends expired ones and even other people's. Pay each of my orders exactly once, for "
               "what the request says, in the order the sequence numbers give, and only while a request is "
               "still valid.")
    elif kind == "ship_request":
        ask = (f"These paid orders of ours need to go out: {listing}. Fulfilment requests arrive as notices; the "
               "feed resends, reorders and sometimes carries expired or other shops' requests. Ship each of our "
               "orders exactly once, following the sequence numbers, and only on a valid request.")
    else:
        ask = (f"Customers returned part of these orders: {listing}. Refund requests (with the amount to "
               "refund) arrive as notices; the feed resends, reorders and may carry expired or other shops' "
               "requests. Refund each approved amount exactly once, in sequence, and only on a valid request.")
    return (f"{ask} Whatever you carry out must name the notice it answers, so our books tie each "
            "transaction to its request. Tell the platform what you made of every notice (acted on it, "
            f"duplicate, expired, out of sequence, or not ours). The feed closes after round {close}.")


def _task(task_id: str, role: str, capability: str, rng: np.random.Generator) -> TaskSpec:
    kind = "payment_request" if role == "buyer" else (
        "refund_request" if capability == "duplicate_refund" else "ship_request")
    actor = "buyer_0" if role == "buyer" else "merchant_0"
    n = {"out_of_order": 2 * int(rng.choice([1, 3])), "cross": int(rng.choice([2, 4]))}.get(
        "cross" if capability.startswith("cross") else capability, 1)
    foreign = capability.startswith("cross")
    state, orders = _orders(rng, n, kind, foreign=foreign)
    deliveries, factors = _deliveries(rng, capability, orders, kind)
    own = [o for o in orders if not o["foreign"]]
    truth = _truth(deliveries, {o["order_id"] for o in own})
    close = max(r for r, _ in deliveries) + 1
    schedule, verdicts = [], {}
    for i, ((r, e), v) in enumerate(zip(deliveries, truth, strict=True)):
        eid = f"evt-{i + 1:03d}"
        verdicts[eid] = v
        public = {**e, "issued_round": r}
        schedule.append({"id": eid, "round": r, "order": i, "events": [
            {"type": "market_event_delivered", "event_id": eid, "record": {**public, "to": actor}}],
            "notices": [{"to": actor, "kind": "event", "event_id": eid, "market_event": public,
                         "text": f"{kind.replace('_', ' ')} for {e['order_id']} (stream {e['stream']}, "
                                 f"seq {e['seq']}, amount {dollars(public['amount'])}"
                                 + (f", valid until round {e['valid_until_round']}" if e["valid_until_round"]
                                    is not None else "") + ")"}]})
    foreign_order = next((o for o in orders if o["foreign"]), None)
    rub = rubric(capability, kind, actor, own, foreign_order, deliveries, verdicts)
    params = {"own_orders": [o["order_id"] for o in own], "close_round": close}
    ref = PolicyRef(name="event_handler", params=params)
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=capability, role=role, actor=actor, difficulty=factors,
        request=_request(role, kind, own, close), mandate={"orders": params["own_orders"], "feed_closes_round": close},
        initial_state=state, schedule=schedule, max_steps=10 + 4 * len(deliveries), predicates=rub.predicates,
        reference=ref, oracle={"verdicts": verdicts},
        mutations=[MutationSpec(id=f"{task_id}/{rub.mutation}", description=f"handler with {rub.mutation}",
                                policy=PolicyRef(name="event_handler", params={**params, rub.mutation: True}),
                                lowers=rub.lowers)],
    )


@register_family(FAMILY)
def build(seed: int = 0, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T10 tasks, or fresh ones from ``seed``."""
    rng = np.random.default_rng([10, 2026] if frozen else [10, seed, 7])
    prefix = "capability-v1/T10" if frozen else f"generated-{seed}/T10"
    return [_task(f"{prefix}/{role}/{cap}/{i + 1:02d}", role, cap, rng)
            for role, cap, count in PLAN for i in range(count)]
