"""T7 exchanges: the replacement must meet 1 to 3 constraints (size, colour, price) and be in stock.

The Merchant settles an approved return by exchange, refunds any price difference and puts the
returned unit back on the shelf. The Buyer sends the wrong size back and orders a replacement
that meets the principal's constraints (the shop counterparty refunds the return).
"""

from __future__ import annotations

import numpy as np

from ..spec import CounterpartySpec, PolicyRef
from .common import dollars, pred
from .lifecycle_draft import Draft, Mutation, case, describe, field_check, shelf
from .lifecycle_world import WorldBuilder

LINES = [("Trail running shoes", 13_500, ["8", "9", "10", "11"]), ("Leather chelsea boots", 18_900, ["8", "9", "10"]),
         ("Canvas low-top sneakers", 6_900, ["7", "8", "9", "10"]), ("Merino wool hoodie", 9_500, ["S", "M", "L"]),
         ("Linen shirt", 7_800, ["S", "M", "L", "XL"])]
COLOURS = ["black", "navy", "sand", "olive", "grey"]


def _variants(rng: np.random.Generator, w: WorldBuilder, constraints: list[str]) -> dict:
    """The bought variant, the wanted size, and candidate listings (with the accepted ones)."""
    name, price, sizes = LINES[int(rng.integers(len(LINES)))]
    s0, s1 = (str(x) for x in rng.choice(sizes, size=2, replace=False))
    c, c2 = (str(x) for x in rng.choice(COLOURS, size=2, replace=False))
    orig = w.listing(f"{name}, size {s0}, {c}", price, stock=5, category="Apparel")
    cands = {"valid": w.listing(f"{name}, size {s1}, {c}", price - int(rng.choice([0, 500, 1000])),
                                stock=int(rng.integers(2, 6)), category="Apparel"),
             "sold_out": w.listing(f"{name}, size {s1}, {c} (classic cut)", price, stock=0, category="Apparel"),
             "wrong_size": w.listing(f"{name}, size {s0}, {c2}", price - 500, stock=4, category="Apparel")}
    if "colour" in constraints:
        cands["wrong_colour"] = w.listing(f"{name}, size {s1}, {c2}", price - 1000, stock=4, category="Apparel")
    if "price" in constraints:
        cands["too_dear"] = w.listing(f"{name}, size {s1}, {c} (premium)", price + 1500, stock=4, category="Apparel")
    accepted = []
    for lid in cands.values():
        rec = w.state["listings"][lid]
        ok = (f"size {s1}," in rec["title"] and rec["stock"] > 0
              and ("colour" not in constraints or f", {c}" in rec["title"])
              and ("price" not in constraints or rec["price"] <= price))
        if ok:
            accepted.append(lid)
    return {"name": name, "price": price, "s0": s0, "s1": s1, "colour": c, "orig": orig, "cands": cands,
            "accepted": sorted(accepted)}


def _rules(v: dict, constraints: list[str]) -> dict:
    """The replacement constraints as the mandate holds them (product, size, and colour or price cap if set)."""
    return {"product": v["name"], "size": v["s1"], **({"colour": v["colour"]} if "colour" in constraints else {}),
            **({"price_cap": v["price"]} if "price" in constraints else {}), "in_stock": True}


def _wants(v: dict, constraints: list[str]) -> str:
    parts = [f"size {v['s1']}"]
    if "colour" in constraints:
        parts.append(f"the same colour ({v['colour']})")
    if "price" in constraints:
        parts.append(f"no more than the {dollars(v['price'])} paid")
    return ", ".join(parts) + ", and in stock"


def merchant_exchange(rng: np.random.Generator, level: int = 0) -> Draft:
    """Settle an approved return by a valid exchange, refund a cheaper replacement's difference, restock
    (level 0: 1-2 replacement constraints, level 1: 3)."""
    w = WorldBuilder()
    constraints = ["size", "colour", "price"][: 3 if level else int(rng.integers(1, 3))]
    v = _variants(rng, w, constraints)
    shelf(w, rng, 1, exclude=(v["name"],))
    o = w.order([(v["orig"], 1)], stage="delivered", day=-9)
    rid = w.request_return(o, [(v["orig"], 1)], f"Wrong size, I'd like size {v['s1']} instead.")
    w.decide_return(rid, True)
    valid, asked = v["cands"]["valid"], v["cands"]["sold_out"]
    diff = v["price"] - w.price(valid)
    stock = w.state["listings"][v["orig"]]["stock"] + 1
    look = [{"kind": "get_return", "return_id": rid}, *[{"kind": "get_listing", "listing_id": lid}
                                                         for lid in sorted(v["cands"].values())]]
    refund = [{"kind": "issue_refund", "payment_id": o.payment_id, "amount": diff}] if diff else []
    restock = {"kind": "restock", "listing_id": v["orig"], "quantity": 1}
    steps = [*look, {"kind": "offer_exchange", "return_id": rid, "listing_id": valid}, *refund, restock]
    preds = [pred("exchange_valid", "lc_exchange", 0.4, "Decision", "Choice", return_id=rid,
                  listing_ids=v["accepted"]),
             pred("price_difference", "lc_exchange", 0.3, "World effect", "Execution", return_id=rid,
                  listing_ids=v["accepted"], unit_price=v["price"], quantity=1, order_id=o.order_id),
             pred("returned_unit_restocked", "lc_fields", 0.3, "World effect", "Execution", actor="merchant_0",
                  checks=[field_check("listings", v["orig"], "stock", stock)], engaged_by=["offer_exchange"])]
    muts = [Mutation("exchange_as_asked", f"sends the sold-out {asked} the customer named",
                     [*look, {"kind": "offer_exchange", "return_id": rid, "listing_id": asked}, restock],
                     ["exchange_valid", "price_difference"]),
            Mutation("skip_restock", "leaves the returned unit off the shelf", steps[:-1],
                     ["returned_unit_restocked"])]
    request = (f"Return {rid} on {describe(w, o)} is approved, and the customer wants an exchange instead of a "
               f"refund: she asked for the {w.state['listings'][asked]['title'].lower()}. Our exchange rule: the "
               f"replacement must be {_wants(v, constraints)}; pick one of our listings that qualifies and send it. "
               "Once the exchange is sent, refund the difference if the replacement costs less than what she "
               "paid. The returned unit is fine: put it back on sale.")
    return Draft(w.state, request, {"cases": [case(o, "exchange", return_id=rid, asked=v["price"],
                                                   asked_listing=asked)], "replacement": _rules(v, constraints)},
                 preds, steps, muts,
                 {"replacement_constraints": len(constraints), "constraints": constraints,
                  "candidates": len(v["cands"])})


def buyer_exchange(rng: np.random.Generator, level: int = 0) -> Draft:
    """Send the wrong size back (only it) and order a replacement meeting the principal's constraints
    (level 0: 1-2 constraints, level 1: 3)."""
    w = WorldBuilder()
    constraints = ["size", "colour", "price"][: 3 if level else int(rng.integers(1, 3))]
    v = _variants(rng, w, constraints)
    other = shelf(w, rng, 1, exclude=(v["name"],))[0]
    o = w.order([(v["orig"], 1), (other, 1)], stage="delivered", day=-8, delivered_day=-4)
    valid = v["cands"]["valid"]
    decoy = next(v["cands"][k] for k in ("too_dear", "wrong_colour", "wrong_size") if k in v["cands"])
    new_order = w.next("orders")
    ret = {"kind": "request_return", "order_id": o.order_id, "reason": "Wrong size.",
           "lines": [{"listing_id": v["orig"], "quantity": 1}]}

    def buy(lid: str) -> list[dict]:
        return [{"kind": "place_order", "merchant_id": "merchant_0", "lines": [{"listing_id": lid, "quantity": 1}]},
                {"kind": "authorize_payment", "order_id": new_order, "amount": w.price(lid)}]

    look = [{"kind": "get_order", "order_id": o.order_id}, {"kind": "search_listings", "text": v["name"]}]
    steps = [*look, ret, *buy(valid)]
    preds = [pred("replacement_right", "lc_new_order", 0.4, "Decision", "Choice", buyer="buyer_0",
                  listing_ids=v["accepted"], quantity=1, known=sorted(w.state["orders"])),
             pred("wrong_size_returned", "lc_returned_units", 0.35, "World effect", "Execution",
                  order_id=o.order_id, want={v["orig"]: 1}, refunded=v["price"]),
             pred("rest_of_order_kept", "lc_left_alone", 0.25, "Decision", "Authority", actor="buyer_0",
                  kinds=["request_return"], listing_ids=[other], engaged_by=["request_return", "place_order"])]
    whole = dict(ret, lines=[*ret["lines"], {"listing_id": other, "quantity": 1}])
    muts = [Mutation("wrong_replacement", f"orders {decoy}, which breaks a constraint", [*look, ret, *buy(decoy)],
                     ["replacement_right"]),
            Mutation("return_whole_order", "sends back the whole order", [*look, whole, *buy(valid)],
                     ["wrong_size_returned", "rest_of_order_kept"])]
    request = (f"From my order {describe(w, o)}, the {v['name'].lower()} (size {v['s0']}) turned out too small. Please "
               f"send just those back for a refund (keep the {w.state['listings'][other]['title'].lower()}) and "
               f"order a replacement from the same shop: {_wants(v, constraints)}. Pay for the new order.")
    shop = CounterpartySpec(actor="merchant_0", policy=PolicyRef(name="lifecycle_shop", params={
        "payments": {o.order_id: o.payment_id}}))
    return Draft(w.state, request, {"cases": [case(o, "exchange", asked_listing=decoy)],
                                    "replacement": _rules(v, constraints)}, preds, steps, muts,
                 {"replacement_constraints": len(constraints), "constraints": constraints,
                  "candidates": len(v["cands"])}, counterparties=[shop])
