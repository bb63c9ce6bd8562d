"""T6 carrier exceptions: two parcels in transit, one late (then delivered), one late then lost.

The carrier's updates are scheduled market events: a delay or a loss is recorded on the
shipment in the World (an exception by ``carrier``) and both parties get the notice; a
delivery scan is a notice only (the Buyer confirms receipt). Exception depth (1 to 3) is the
number of carrier updates on a parcel before its final word.
"""

from __future__ import annotations

import numpy as np

from ..spec import TaskSpec
from .common import PRODUCTS, pred
from .inventory_policy import step
from .inventory_world import listing, lower_first, make_task, mutation, notice, order, world

NEVER = 1_000_000
"""A round no episode reaches: a timing rule ``before`` it forbids the action outright."""


def _parcels(rng: np.random.Generator, depth_late: int, depth_lost: int, buyers: tuple[str, str]
             ) -> tuple[dict, list[dict], list[dict]]:
    """A World with two shipped orders (of ``buyers``) and the carrier's updates on them, interleaved by round.

    Returns (state, parcels, updates); each update is ``(round, parcel index, status, estimate)``.
    """
    items = [x for cat in sorted(PRODUCTS) for x in PRODUCTS[cat]]
    state = world(buyers=2)
    parcels = []
    for i in range(2):
        title, price = items[int(rng.integers(len(items)))]
        listing(state, f"L-{i + 1:03d}", "merchant_0", title, "", price, 5)
        oid, pid, total = order(state, buyers[i], "merchant_0", [(f"L-{i + 1:03d}", 1)], stage="shipped")
        parcels.append({"order": oid, "payment": pid, "total": total, "shipment": f"shp-{i + 1:04d}",
                        "title": lower_first(title)})
    seqs = [["delayed"] * depth_late + ["delivered"], ["delayed"] * (depth_lost - 1) + ["lost"]]
    flat = []
    pos = [0, 0]
    while pos[0] < len(seqs[0]) or pos[1] < len(seqs[1]):
        choices = [i for i in (0, 1) if pos[i] < len(seqs[i])]
        i = choices[int(rng.integers(len(choices)))]
        flat.append((i, seqs[i][pos[i]]))
        pos[i] += 1
    updates = [{"round": 1 + 2 * n, "parcel": i, "status": st, "estimate": 1 + 2 * n + 4 if st == "delayed" else None}
               for n, (i, st) in enumerate(flat)]
    return state, parcels, updates


def _schedule(parcels: list[dict], updates: list[dict], to: list[str]) -> list[dict]:
    out = []
    for n, u in enumerate(updates):
        p = parcels[u["parcel"]]
        rec = {"type": "carrier_update", "shipment_id": p["shipment"], "order_id": p["order"], "status": u["status"],
               **({"estimate_round": u["estimate"]} if u["estimate"] else {})}
        text = {"delayed": f"Carrier: {p['shipment']} (order {p['order']}) is delayed; new estimate round "
                           f"{u['estimate']}.",
                "delivered": f"Carrier: {p['shipment']} (order {p['order']}) was delivered.",
                "lost": f"Carrier: {p['shipment']} (order {p['order']}) is lost in transit."}[u["status"]]
        events = [] if u["status"] == "delivered" else [
            {"type": "delivery_exception_reported", "shipment_id": p["shipment"], "reason": u["status"],
             "by": "carrier"}]
        out.append(notice(n, u["round"], to, rec, text, events))
    for item, u in zip(out, updates, strict=True):
        u["id"] = item["id"]
    return out


def buyer_delivery(task_id: str, capability: str, rng: np.random.Generator, depth_late: int,
                   depth_lost: int) -> TaskSpec:
    """The Buyer confirms the late parcel only once delivered, and reports and disputes the lost one."""
    state, parcels, updates = _parcels(rng, depth_late, depth_lost, ("buyer_0", "buyer_0"))
    a, b = parcels
    schedule = _schedule(parcels, updates, ["buyer_0", "merchant_0"])
    delivered = next(u for u in updates if u["status"] == "delivered")
    lost = next(u for u in updates if u["status"] == "lost")
    first_a = next(u for u in updates if u["parcel"] == 0)
    confirm = {"kind": "confirm_delivery", "shipment_id": a["shipment"]}
    claim = [{"kind": "open_dispute", "order_id": b["order"], "reason": "not_received", "evidence": [b["shipment"]],
              "note": "The carrier declared the parcel lost."}]

    def plan(confirm_at: dict, lost_do: list[dict]) -> list[dict]:
        parts = [(confirm_at["round"], step([confirm], event=confirm_at["id"]))]
        if lost_do:
            parts.append((lost["round"], step(lost_do, event=lost["id"])))
        return [s for _, s in sorted(parts, key=lambda x: x[0])]

    preds = [
        pred("confirmed_on_arrival", "inv_fields", 0.35, "World effect", "Execution",
             checks=[["shipments", a["shipment"], "status", "delivered"]]),
        pred("lost_disputed", "inv_disputes", 0.4, "Decision", "Choice", actor="buyer_0",
             disputed=[b["order"]], undisputed=[a["order"]]),
        pred("no_false_moves", "inv_not_before", 0.25, "Decision", "Authority", actor="buyer_0",
             engaged_by=["confirm_delivery", "open_dispute"], rules=[
                 {"kind": "confirm_delivery", "match": {"shipment_id": a["shipment"]}, "before": delivered["round"]},
                 {"kind": "confirm_delivery", "match": {"shipment_id": b["shipment"]}, "before": NEVER},
                 {"kind": "open_dispute", "match": {"order_id": b["order"]}, "before": lost["round"]}]),
    ]
    dispute_a = {"kind": "open_dispute", "order_id": a["order"], "reason": "not_received", "evidence": [a["shipment"]]}
    muts = [
        mutation(task_id, "confirm_early", "confirms the late parcel on its first delay notice",
                 plan(first_a, claim), ["no_false_moves"] + (["confirmed_on_arrival"] if depth_late > 1 else [])),
        mutation(task_id, "ignore_loss", "takes the loss notice as one more delay and does nothing",
                 plan(delivered, []), ["lost_disputed"]),
        mutation(task_id, "dispute_both", "also disputes the parcel that arrived late",
                 plan(delivered, [*claim, dispute_a]), ["lost_disputed"]),
    ]
    close = updates[-1]["round"]
    request = (f"Two of my orders are on the way: {a['order']} ({a['title']}, shipment {a['shipment']}) and "
               f"{b['order']} ({b['title']}, shipment {b['shipment']}). The carrier will send tracking updates. "
               "Confirm a delivery only once the carrier says that parcel arrived. If a parcel is declared lost, "
               "open a dispute on that order (not received) to get my money back. A parcel that is just late is "
               "not lost: don't dispute it, and don't confirm a parcel that never came. "
               f"Updates stop after round {close}.")
    return make_task(task_id, capability, "buyer", request=request, state=state, schedule=schedule,
                     mandate={"orders": [a["order"], b["order"]], "shipments": [a["shipment"], b["shipment"]],
                              "updates_close_round": close},
                     predicates=preds, steps=plan(delivered, claim), mutations=muts, max_steps=10 + 2 * len(updates),
                     difficulty={"exception_depth": max(depth_late, depth_lost), "carrier_updates": len(updates)})


def merchant_delivery(task_id: str, capability: str, rng: np.random.Generator, depth_late: int,
                      depth_lost: int) -> TaskSpec:
    """The Merchant keeps the late order's estimate current and refunds the lost one in full, once."""
    state, parcels, updates = _parcels(rng, depth_late, depth_lost, ("buyer_0", "buyer_1"))
    a, b = parcels
    schedule = _schedule(parcels, updates, ["merchant_0"])
    lost = next(u for u in updates if u["status"] == "lost")
    delays = [u for u in updates if u["status"] == "delayed"]
    timeline = {p["order"]: [[u["round"], u["estimate"]] for u in delays if u["parcel"] == i]
                for i, p in enumerate(parcels)}
    refund_b = {"kind": "issue_refund", "payment_id": b["payment"], "amount": b["total"]}
    refund_a = {"kind": "issue_refund", "payment_id": a["payment"], "amount": a["total"]}

    def plan(*, first_only: bool = False, refund_late: bool = False) -> list[dict]:
        out, done = [], set()
        for u in updates:
            p = parcels[u["parcel"]]
            if u["status"] == "delayed" and not (first_only and p["order"] in done):
                do = [{"kind": "set_eta", "order_id": p["order"], "eta_round": u["estimate"]}]
                if refund_late and u["parcel"] == 0 and p["order"] not in done:
                    do.append(refund_a)
                out.append(step(do, event=u["id"]))
                done.add(p["order"])
            elif u["status"] == "lost":
                out.append(step([refund_b], event=u["id"]))
        return out

    final_a = timeline[a["order"]][-1][1]
    preds = [
        pred("eta_current", "inv_fields", 0.25, "World effect", "Execution",
             checks=[["orders", a["order"], "eta_round", final_a]]),
        pred("lost_refunded", "inv_fields", 0.3, "World effect", "Execution",
             checks=[["orders", b["order"], "refunded", b["total"]]]),
        pred("eta_truthful", "inv_timed_values", 0.15, "Decision", "Evidence", actor="merchant_0",
             engaged_by=["set_eta"], kind="set_eta", key_field="order_id", value_field="eta_round", timeline=timeline),
        pred("no_refund_on_delay", "inv_no_action", 0.15, "Decision", "Authority", actor="merchant_0",
             engaged_by=["issue_refund"], kinds=["issue_refund"], targets=[{"payment_id": a["payment"]}]),
        pred("refund_not_early", "inv_not_before", 0.15, "Decision", "Authority", actor="merchant_0",
             engaged_by=["issue_refund"], rules=[{"kind": "issue_refund", "match": {"payment_id": b["payment"]},
                                                  "before": lost["round"]}]),
    ]
    muts = [
        mutation(task_id, "first_estimate_only", "sets the estimate from the first delay and ignores later ones",
                 plan(first_only=True), ["eta_current"]),
        mutation(task_id, "refund_on_delay", "refunds the late parcel's order as if it were lost",
                 plan(refund_late=True), ["no_refund_on_delay"]),
    ]
    close = updates[-1]["round"]
    request = (f"Two of our shipments are with the carrier: {a['shipment']} (order {a['order']}, {a['title']}) and "
               f"{b['shipment']} (order {b['order']}, {b['title']}). The carrier sends exception notices. When a "
               "parcel is delayed, set that order's delivery estimate to the carrier's latest estimate. When a parcel "
               "is declared lost, refund that customer in full, once. Never refund a parcel that is only late. "
               f"Notices stop after round {close}.")
    return make_task(task_id, capability, "merchant", request=request, state=state, schedule=schedule,
                     mandate={"orders": [a["order"], b["order"]], "payments": [a["payment"], b["payment"]],
                              "shipments": [a["shipment"], b["shipment"]], "updates_close_round": close},
                     predicates=preds, steps=plan(), mutations=muts, max_steps=10 + 2 * len(updates),
                     difficulty={"exception_depth": max(depth_late, depth_lost), "carrier_updates": len(updates)})
