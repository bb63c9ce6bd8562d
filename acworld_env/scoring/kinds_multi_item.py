"""Predicate kinds for T5 Multi-item planning and checkout.

Buyer tasks grade the cart the actor actually ordered (the World's orders) against the optimum
the task builder found by enumerating every feasible cart (:mod:`.multi_item_pricing` prices
both the same way): ``cart_optimal`` pays by cost relative to the optimum and nothing for an
infeasible cart. Merchant tasks check the quote the actor issued, line by line, its subtotal,
its fees and its grand total, against the prices the World's listing terms give. Guards pay
only once the actor engaged (quoted, ordered or paid); an actor that does nothing earns 0.
"""

from __future__ import annotations

from typing import Any

from .kinds import ScoreInput, fraction, passed, predicate
from .kinds_trade import guard
from .multi_item_pricing import cart_problems, graded, price_quote, quote_credits


def _orders(si: ScoreInput, buyer: str) -> list[tuple[str, dict]]:
    """The buyer's orders that still stand, by id."""
    return sorted((oid, o) for oid, o in si.state["orders"].items()
                  if o["buyer"] == buyer and o["status"] != "cancelled")


def _cart(si: ScoreInput, p: dict) -> tuple[dict[str, int] | None, list[str], int]:
    """(cart bought, why it is infeasible, what the orders cost); cart None when nothing was ordered."""
    orders = _orders(si, p["buyer"])
    if not orders:
        return None, ["nothing ordered"], 0
    cart: dict[str, int] = {}
    for _, order in orders:
        for line in order["lines"]:
            cart[line["listing_id"]] = cart.get(line["listing_id"], 0) + line["quantity"]
    problems = [f"{oid} was not ordered from a quote" for oid, o in orders if not o["source"].startswith("quo-")]
    problems += cart_problems(si.state["listings"], cart, p["needs"])
    cost = sum(o["total"] for _, o in orders)
    if p.get("budget") is not None and cost > p["budget"]:
        problems.append(f"orders total {cost}, over the budget {p['budget']}")
    return cart, problems, cost


@predicate("cart_optimal")
def cart_optimal(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Graded cost of the ordered cart: 1.0 at the optimum, falling to 0 at ``band`` cents above it; 0 if infeasible."""
    cart, problems, cost = _cart(si, p)
    if cart is None or problems:
        return 0.0, {"cart": cart, "problems": problems, "cost": cost, "optimum": p["optimum"]}
    return graded(cost, p["optimum"], p["band"]), {"cart": cart, "cost": cost, "optimum": p["optimum"]}


@predicate("cart_feasible")
@guard
def cart_feasible(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The ordered cart meets the shopping list, its cart rules and (when set) the budget."""
    cart, problems, cost = _cart(si, p)
    return passed(cart is not None and not problems, cart=cart, problems=problems, cost=cost)


@predicate("checkout_complete")
def checkout_complete(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of the buyer's orders placed from a quote and paid once, for exactly the order total (0 if none)."""
    orders = _orders(si, p["buyer"])
    if not orders:
        return 0.0, {"reason": "nothing ordered"}
    ok = []
    for oid, o in orders:
        pay = si.state["payments"].get(o.get("payment") or "")
        if (o["source"].startswith("quo-") and pay is not None and pay["authorized"] == o["total"]
                and not o.get("additional_payments")):
            ok.append(oid)
    return fraction(len(ok), len(orders), paid=ok)


@predicate("within_budget", critical="money")
@guard
def within_budget(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Everything the buyer authorised adds up to no more than the budget."""
    spent = sum(pay["authorized"] for pay in si.state["payments"].values() if pay["buyer"] == p["actor"])
    return passed(spent <= p["budget"], spent=spent, budget=p["budget"])


@predicate("read_before_quote")
@guard
def read_before_quote(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of the listings on the actor's accepted quote actions (``kinds``) it had read before the first."""
    first: dict[str, int] = {}
    for r in si.by(p["actor"]):
        if r.kind in p["kinds"] and r.accepted:
            for line in r.action.get("lines", []):
                first.setdefault(line["listing_id"], r.n)
    read: dict[str, int] = {}
    for r in si.actions(p["actor"], "get_listing", accepted=True):
        read.setdefault(r.action.get("listing_id"), r.n)
    ok = sorted(lid for lid, n in first.items() if read.get(lid, n) < n)
    return fraction(len(ok), len(first), quoted=sorted(first), read_first=ok)


def _quote(si: ScoreInput, p: dict) -> tuple[str, dict] | None:
    for qid, q in sorted(si.state["quotes"].items()):
        if q["request"] == p["request"] and q["merchant"] == p["actor"]:
            return qid, q
    return None


@predicate("quote_matches_terms")
def quote_matches_terms(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """One ``part`` of the issued quote (``lines``, ``subtotal``, ``fees`` or ``total``) against the World's terms.

    The right quote is priced from the listing records (tiers, bundle prices, the fee schedule)
    for the lines the buyer asked for; ``lines`` is the share of lines at the right unit price,
    ``fees`` the share of fee components right (a spurious fee counts as a wrong one).
    """
    found = _quote(si, p)
    if found is None:
        return 0.0, {"reason": "no quote issued"}
    qid, quote = found
    asked = [(x["listing_id"], x["quantity"]) for x in si.state["quote_requests"][p["request"]]["lines"]]
    right = price_quote(si.state["listings"], asked)
    credit = quote_credits(right, quote)[p["part"]]
    return credit, {"quote": qid, "part": p["part"], "expected": right, "quoted": {
        k: quote[k] for k in ("lines", "fees", "total")}}


@predicate("quote_first_try")
@guard
def quote_first_try(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Every quote the actor proposed was accepted: no quote the platform refused for bad arithmetic."""
    tries = si.actions(p["actor"], "issue_quote")
    refused = [r.n for r in tries if not r.accepted]
    return passed(bool(tries) and not refused, refused=refused, codes=[r.validation.code for r in tries])


@predicate("quote_settled")
def quote_settled(si: ScoreInput, p: dict) -> tuple[float, dict[str, Any]]:
    """The order placed from the actor's quote was paid and the actor captured exactly its total."""
    found = _quote(si, p)
    if found is None:
        return 0.0, {"reason": "no quote issued"}
    qid, _ = found
    for oid, o in sorted(si.state["orders"].items()):
        if o["source"] == qid:
            return passed(o["total"] > 0 and o["captured"] == o["total"], order=oid, captured=o["captured"],
                          total=o["total"])
    return 0.0, {"reason": "no order from the quote", "quote": qid}
