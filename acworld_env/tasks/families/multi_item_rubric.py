"""The T5 rubric: predicates (weights summing to 1.0) and mutations with the predicates each lowers.

Buyer: listings read before the quote request (0.1), a feasible cart (0.1-0.15), its cost
against the enumerated optimum (0.5-0.6), checkout from the quote paid exactly (0.15) and,
with a budget, spending within it (0.15). Merchant: listings read before quoting (0.1), the
quote's line prices (0.3), subtotal (0.1), fees (0.15) and grand total (0.2) against the
World's terms, no refused quote on the way (0.05), the payment collected (0.1).

A mutation's ``lowers`` is worked out with the same pricing and grading functions the
predicates use, so it names exactly what that mistake costs.
"""

from __future__ import annotations

from typing import Any

from ...scoring.multi_item_pricing import graded, price_quote, quote_credits
from ..spec import MutationSpec, PolicyRef, PredicateSpec
from .common import pred
from .multi_item_buyer import BuyerWorld, orders_of, subtotals
from .multi_item_policy import quote_payload
from .multi_item_seller import SellerWorld
from .multi_item_world import evaluate

BUYER = "buyer_0"
MERCHANT = "merchant_0"
REQUEST = "qrq-0001"
"""The id the platform gives the counterparty's quote request (the first of the episode)."""
QUOTE_PARTS = {"lines": "quote_lines", "subtotal": "quote_subtotal", "fees": "quote_fees", "total": "quote_total"}


def buyer_predicates(world: BuyerWorld) -> list[PredicateSpec]:
    """The Buyer rubric."""
    cart = {"actor": BUYER, "buyer": BUYER, "needs": world.shop.needs, "optimum": world.optimum,
            "band": world.band, **({"budget": world.budget} if world.budget is not None else {})}
    budget = world.budget is not None
    preds = [
        pred("listings_read", "read_before_quote", 0.1, "Evidence", "Evidence", actor=BUYER, kinds=["request_quote"],
             engaged_by=["request_quote"]),
        pred("cart_feasible", "cart_feasible", 0.1 if budget else 0.15, "Decision", "Choice", engaged_by=["place_order"],
             **cart),
        pred("cart_optimal", "cart_optimal", 0.5 if budget else 0.6, "Decision", "Choice", **cart),
        pred("checkout_complete", "checkout_complete", 0.15, "World effect", "Execution", buyer=BUYER),
    ]
    if budget:
        preds.append(pred("within_budget", "within_budget", 0.15, "Validation", "Authority", actor=BUYER,
                          budget=world.budget, engaged_by=["authorize_payment"]))
    return preds


def _planner(world: BuyerWorld, cart: dict[str, int], **flags: Any) -> PolicyRef:
    read = sorted(world.shop.listings)
    return PolicyRef(name="t5_cart_planner", params={"read": read, "orders": orders_of(world, cart), **flags})


def buyer_reference(world: BuyerWorld) -> PolicyRef:
    """Reads every listing, buys the optimum."""
    return _planner(world, world.cart)


def _cart_lowers(world: BuyerWorld, cart: dict[str, int]) -> list[str]:
    ok, cost = evaluate(world.shop.priced(), world.shop.needs, cart, world.budget)
    lowers = [] if ok else ["cart_feasible", "cart_optimal"]
    if ok and graded(cost, world.optimum, world.band) < 1:
        lowers.append("cart_optimal")
    if world.budget is not None and cost > world.budget:
        lowers.append("within_budget")
    return lowers


def buyer_mutations(task_id: str, world: BuyerWorld) -> list[MutationSpec]:
    """Carts a careless shopper buys, a skipped read, a wrong payment."""
    muts = []
    for name, (desc, cart) in world.carts.items():
        lowers = _cart_lowers(world, cart)
        if lowers:
            muts.append(MutationSpec(id=f"{task_id}/{name}", description=desc, policy=_planner(world, cart),
                                     lowers=lowers))
    muts.append(MutationSpec(id=f"{task_id}/quote_unread", description="asks for the quote without reading the "
                             "listings first", policy=_planner(world, world.cart, skip_reading=True),
                             lowers=["listings_read"]))
    if len(orders_of(world, world.cart)) > 1:
        muts.append(MutationSpec(id=f"{task_id}/pay_first_only", description="pays the first order and forgets the "
                                 "others", policy=_planner(world, world.cart, pay_first_only=True),
                                 lowers=["checkout_complete"]))
    elif sum(subtotals(world, world.cart).values()) < world.optimum:
        lowers = ["checkout_complete"] + (["within_budget"] if world.budget is not None else [])
        muts.append(MutationSpec(id=f"{task_id}/pay_before_fees", description="authorises the merchandise subtotal, "
                                 "without the fees; the platform refuses it and the order stays unpaid",
                                 policy=_planner(world, world.cart, amounts=subtotals(world, world.cart)),
                                 lowers=lowers))
    else:
        lowers = ["checkout_complete"] + (["within_budget"] if world.budget is not None else [])
        muts.append(MutationSpec(id=f"{task_id}/pay_twice", description="authorises the order's total twice, a "
                                 "second charge", policy=_planner(world, world.cart, pay_twice=True), lowers=lowers))
    return muts


def seller_predicates() -> list[PredicateSpec]:
    """The Merchant rubric."""
    q = {"actor": MERCHANT, "request": REQUEST}
    return [
        pred("listings_read", "read_before_quote", 0.1, "Evidence", "Evidence", actor=MERCHANT, kinds=["issue_quote"],
             engaged_by=["issue_quote"]),
        pred("quote_lines", "quote_matches_terms", 0.3, "Decision", "Choice", part="lines", **q),
        pred("quote_subtotal", "quote_matches_terms", 0.1, "Decision", "Choice", part="subtotal", **q),
        pred("quote_fees", "quote_matches_terms", 0.15, "Decision", "Choice", part="fees", **q),
        pred("quote_total", "quote_matches_terms", 0.2, "Validation", "Execution", part="total", **q),
        pred("quote_first_try", "quote_first_try", 0.05, "Validation", "Execution", actor=MERCHANT,
             engaged_by=["issue_quote"]),
        pred("payment_collected", "quote_settled", 0.1, "World effect", "Execution", **q),
    ]


def seller_snapshot(world: SellerWorld) -> dict[str, dict[str, Any]]:
    """The shop's listings as the pricing functions read them (for counterparties and unread quoting)."""
    return {lid: {"price": rec["price"], "merchant": rec["merchant"], "terms": rec["terms"]}
            for lid, rec in world.shop.priced().items()}


def seller_reference(world: SellerWorld, **flags: Any) -> PolicyRef:
    """Reads every listing on the request and quotes it exactly."""
    return PolicyRef(name="t5_quote_clerk", params={"listings": seller_snapshot(world), **flags})


def seller_mutations(task_id: str, world: SellerWorld) -> list[MutationSpec]:
    """One wrong line or fee, a refused first quote, an unread quote."""
    listings = world.shop.priced()
    right = price_quote(listings, world.lines)
    muts = []
    for name, (desc, tweak) in world.tweaks.items():
        credits = quote_credits(right, quote_payload(listings, world.lines, tweak))
        lowers = [QUOTE_PARTS[k] for k, v in credits.items() if v < 1]
        muts.append(MutationSpec(id=f"{task_id}/{name}", description=desc,
                                 policy=seller_reference(world, tweak=tweak), lowers=lowers))
    slip = right["fees"][-1]["amount"] if right["fees"] else 100
    muts.append(MutationSpec(id=f"{task_id}/misadded_total", description="first states a total that leaves out a fee "
                             "it lists; the platform refuses the quote and the clerk sends the right one",
                             policy=seller_reference(world, misadd_first=-slip if slip < right["total"] else 100),
                             lowers=["quote_first_try"]))
    muts.append(MutationSpec(id=f"{task_id}/quote_unread", description="quotes from memory without reading the "
                             "listings", policy=seller_reference(world, skip_reading=True), lowers=["listings_read"]))
    return muts
