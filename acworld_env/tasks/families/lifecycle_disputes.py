"""T7 disputes: evidence records decide who is right, and a response cites the records of its own order.

Merchant: two open disputes; one the shop's own records back (carrier reported damage or loss:
refund in full, then answer citing the shipment and the refund), one they refute (answer citing
the records that show delivery or the buyer's own payment). Buyer: open a dispute, with the right
reason and the records that prove it, for each problem the shop has not already put right.
"""

from __future__ import annotations

import numpy as np

from .common import pred
from .lifecycle_draft import Draft, Mutation, case, describe, field_check, shelf, weights
from .lifecycle_world import Order, WorldBuilder


def _allowed(w: WorldBuilder, o: Order, *extra: str) -> list[str]:
    """Ids of the records that belong to one order (what a response may cite)."""
    ids = [o.order_id, *(x["listing_id"] for x in o.lines), *extra]
    ids += [p for p in [o.payment_id, *o.extra_payments] if p]
    ids += [o.shipment_id] if o.shipment_id else []
    return sorted(set(ids))


def merchant_dispute(rng: np.random.Generator, level: int = 0) -> Draft:
    """Concede the dispute the records support (refund, cite shipment and refund); refute the other (level 0:
    a parcel said never to have come, level 1: a charge said never to have been made)."""
    w = WorldBuilder()
    lids = shelf(w, rng, 3)
    contest_kind = ["never_arrived", "not_mine"][level]
    concede_kind = str(rng.choice(["damaged", "lost"]))
    other = w.order([(lids[2], 1)], buyer="buyer_1", stage="delivered", day=-12)
    kc = w.order([(lids[0], 1)], stage="delivered", day=-15)
    dk = w.dispute(kc, "not_received" if contest_kind == "never_arrived" else "unauthorized", [])
    cc = w.order([(lids[1], int(rng.integers(1, 3)))], stage="delivered" if concede_kind == "damaged" else "shipped",
                 day=-15)
    w.carrier_report(cc.shipment_id, "item crushed, box torn" if concede_kind == "damaged" else "parcel lost in transit")
    dc = w.dispute(cc, "damaged" if concede_kind == "damaged" else "not_received", [])
    orders = [kc, cc]
    if rng.random() < 0.5:
        orders.reverse()
    rfd = w.next("refunds")
    need_k = ([kc.shipment_id, kc.order_id] if contest_kind == "never_arrived" else [kc.payment_id, kc.order_id])
    need_c = [cc.shipment_id, rfd]
    look = [s for o in orders for s in ({"kind": "get_dispute", "dispute_id": dk if o is kc else dc},
                                        {"kind": "get_order", "order_id": o.order_id},
                                        {"kind": "get_shipment", "shipment_id": o.shipment_id})]
    refute = {"kind": "respond_dispute", "dispute_id": dk, "evidence": need_k, "note": "Our records show otherwise."}
    concede = [{"kind": "issue_refund", "payment_id": cc.payment_id, "amount": cc.total},
               {"kind": "respond_dispute", "dispute_id": dc, "evidence": need_c, "note": "Refunded in full."}]
    acts = [refute, *concede] if orders[0] is kc else [*concede, refute]
    steps = [*look, *acts]
    preds = []
    for did, o, need, refunded in ((dk, kc, need_k, 0), (dc, cc, need_c, cc.total)):
        preds.append(pred(f"evidence_{did}", "lc_dispute_evidence", 0.25, "Evidence", "Evidence", dispute_id=did,
                          side="merchant", required=[x for x in need if x != rfd], refund_cited=o is cc,
                          allowed=_allowed(w, o, did)))
        preds.append(pred(f"outcome_{did}", "lc_fields", 0.25, "Decision", "Choice",
                          checks=[field_check("disputes", did, "status", "responded"),
                                  field_check("orders", o.order_id, "refunded", refunded)]))
    foreign = dict(refute, evidence=[other.shipment_id or "", kc.order_id] if contest_kind == "never_arrived"
                   else [other.payment_id or "", kc.order_id])
    fight = {"kind": "respond_dispute", "dispute_id": dc, "evidence": [cc.shipment_id], "note": "We shipped it."}
    muts = [Mutation("fight_supported_claim", f"contests {dc} though the carrier's report backs the customer",
                     [s for s in steps if s not in concede] + [fight], [f"evidence_{dc}", f"outcome_{dc}"]),
            Mutation("cite_other_order", f"answers {dk} with another customer's record (the platform refuses "
                     "the disclosure, so the dispute stays unanswered)",
                     [foreign if s is refute else s for s in steps], [f"evidence_{dk}", f"outcome_{dk}"])]
    request = (f"Two customers opened disputes: {dk} on {describe(w, kc)} and {dc} on {describe(w, cc)}. Answer "
               "both. Where our own records back the customer (the carrier reported damage or loss on the "
               "shipment), don't fight it: refund the order in full first, then answer citing the shipment and "
               "that refund. Otherwise answer with the records that prove our side: for a parcel they say never "
               "came, the shipment and the order; for a charge they say they never made, their payment and the "
               "order. Cite only records of the order in dispute.")
    cases = [case(kc, "dispute", dispute_id=dk, asked=kc.total), case(cc, "dispute", dispute_id=dc, asked=cc.total)]
    return Draft(w.state, request, {"cases": cases}, preds, steps, muts,
                 {"evidence_conditions": len(need_k) + len(need_c), "kinds": [contest_kind, concede_kind]})


_REASONS = {"lost": "not_received", "double_charge": "unauthorized", "damaged_late": "damaged"}


def buyer_dispute(rng: np.random.Generator, level: int = 0) -> Draft:
    """Dispute each unresolved problem with the right reason and its proof; leave the settled one alone
    (level 0: one problem, level 1: two)."""
    w = WorldBuilder()
    kinds = [str(x) for x in rng.choice(sorted(_REASONS), size=level + 1, replace=False)]
    lids = shelf(w, rng, len(kinds) + 1)
    problems: list[tuple[str, Order, list[str]]] = []
    for kind, lid in zip(kinds, lids[:-1], strict=True):
        if kind == "lost":
            o = w.order([(lid, 1)], stage="shipped", day=-20)
            w.carrier_report(o.shipment_id, "parcel lost in transit")
            need = [o.shipment_id or "", o.payment_id or ""]
        elif kind == "double_charge":
            o = w.order([(lid, 1)], stage="delivered", day=-10)
            extra = w.authorize(o, o.total, day=-9)
            w.capture(extra, o.total)
            need = [extra]
        else:
            o = w.order([(lid, 1)], stage="delivered", day=-70, delivered_day=-60)
            w.carrier_report(o.shipment_id, "box crushed, contents damaged")
            need = [o.shipment_id or ""]
        problems.append((kind, o, need))
    settled_order = w.order([(lids[-1], 1)], stage="delivered", day=-12)
    w.carrier_report(settled_order.shipment_id, "box crushed, contents damaged")
    w.refund(settled_order.payment_id, settled_order.total)
    orders = [o for _, o, _ in problems] + [settled_order]
    order = [orders[int(i)] for i in rng.permutation(len(orders))]
    steps = [s for o in order for s in ({"kind": "get_order", "order_id": o.order_id},
                                        *([{"kind": "get_shipment", "shipment_id": o.shipment_id}]
                                          if o.shipment_id else []))]
    preds, opens = [], []
    for (kind, o, need), wt in zip(problems, weights(0.6, len(problems)), strict=True):
        opens.append({"kind": "open_dispute", "order_id": o.order_id, "reason": _REASONS[kind], "evidence": need,
                      "note": "See the attached records."})
        preds.append(pred(f"dispute_{o.order_id}", "lc_dispute_evidence", wt, "Evidence", "Evidence",
                          order_id=o.order_id, side="buyer", reason=_REASONS[kind], required=need,
                          allowed=_allowed(w, o)))
    steps += opens
    preds.append(pred("no_needless_dispute", "lc_left_alone", 0.4, "Decision", "Authority", actor="buyer_0",
                      kinds=["open_dispute"], values=[settled_order.order_id], engaged_by=["open_dispute"]))
    first = opens[0]
    muts = [Mutation("wrong_reason", f"disputes {first['order_id']} under the wrong reason",
                     [dict(s, reason="other") if s is first else s for s in steps],
                     [f"dispute_{first['order_id']}"]),
            Mutation("dispute_settled_order", f"disputes {settled_order.order_id}, which the shop already refunded",
                     [*steps, {"kind": "open_dispute", "order_id": settled_order.order_id, "reason": "damaged",
                               "evidence": [settled_order.shipment_id or ""]}], ["no_needless_dispute"])]
    words = {"lost": "never arrived", "double_charge": "was charged to my card twice, and I never authorised the second charge",
             "damaged_late": "arrived broken a couple of months ago (too late to return it now)"}
    lines = [f"{describe(w, o)} {words[k]}" for k, o, _ in problems]
    lines.append(f"{describe(w, settled_order)} also arrived broken, though I think the shop may have sorted it")
    request = ("Some orders went wrong: " + "; ".join(lines) + ". Open a dispute with the marketplace for each "
               "problem the shop hasn't already put right, with the reason that fits, and attach the records "
               "that prove it: for a parcel that never came, the shipment record and my payment; for a double "
               "charge, the extra charge; for damage, the shipment with the carrier's note. Don't dispute "
               "anything already refunded.")
    cases = [case(o, "dispute") for o in orders]
    return Draft(w.state, request, {"cases": cases}, preds, steps, muts,
                 {"evidence_conditions": sum(len(n) for _, _, n in problems), "problems": kinds})
