"""T5 task assembly: requests in the shopper's or shopkeeper's words, and one TaskSpec per drawn world."""

from __future__ import annotations

import numpy as np

from ..spec import CounterpartySpec, PolicyRef, TaskSpec
from .common import dollars
from .multi_item_buyer import BuyerWorld, draw_buyer
from .multi_item_rubric import (
    BUYER,
    MERCHANT,
    buyer_mutations,
    buyer_predicates,
    buyer_reference,
    seller_mutations,
    seller_predicates,
    seller_reference,
    seller_snapshot,
)
from .multi_item_seller import SellerWorld, draw_seller

FAMILY = "T5_multi_item"
NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def _count(n: int) -> str:
    return NUMBERS[n] if n < len(NUMBERS) else str(n)


def _shopping_list(world: BuyerWorld) -> str:
    items = []
    for need in world.shop.needs:
        qty = _count(need["min"]) if need["min"] == need["max"] else \
            f"between {_count(need['min'])} and {_count(need['max'])}"
        unit = "unit" if need["max"] == 1 else "units"
        options = " or ".join(need["candidates"])
        items.append(f"{qty} {unit} of {need['item']} (listing {options})")
    return "; ".join(items)


def buyer_request(capability: str, world: BuyerWorld) -> str:
    """What the shopper asks for, in plain words."""
    shops = " and ".join(world.shop.merchants) if len(world.shop.merchants) > 1 else world.shop.merchants[0]
    head = f"I'm buying from {shops} and need: {_shopping_list(world)}."
    rules = (" Any of the listed options will do for an item, but take all its units from one listing, and "
             "don't buy anything that isn't on my list.")
    extra = {
        "multi_item_cart": " Shipping, handling, tax and the like count too, so compare what the whole order costs.",
        "quantity_tiers": " Several listings get cheaper per unit in bigger quantities, so buying a few more than my "
                          "minimum can cost less overall, but never go above the maximum I gave.",
        "bundle_relations": " Look closely at the listing details: some items only work with an accessory (if you "
                            "pick one of those, buy exactly one of the accessory too), some don't go together, and "
                            "some are cheaper when bought with another item on the same order.",
        "cross_merchant_cart": " The shops price differently and each charges its own shipping and fees per order, so "
                               "split or combine the purchase however makes the whole thing cheapest. You'll need a "
                               "quote and an order at every shop you buy from.",
        "total_budget": f" My budget is {dollars(world.budget or 0)} for everything, shipping, handling and tax "
                        "included; I can't go a cent over it.",
    }[capability]
    tail = (" Read each listing's details before you ask for a quote: prices, quantity pricing and the checkout "
            "fees are published there. Then get a quote, accept it, order from it and pay exactly its total. I want "
            "the lowest total cost, everything included.")
    return head + rules + extra + tail


def seller_request(capability: str) -> str:
    """What the shop owner asks of the Merchant agent."""
    focus = {
        "merchant_tier_quote": "Our listings have quantity pricing: every unit of a line gets the price of the tier "
                               "its quantity reaches.",
        "merchant_bundle_quote": "Some of our listings have bundle prices that apply only when the partner item is on "
                                 "the same quote.",
        "merchant_total_quote": "Mind the checkout fees: each has its own rule, and the customer must see a total "
                                "that is final to the cent.",
    }[capability]
    return ("You run the shop of merchant_0. A customer is asking for a quote on several of our listings. " + focus +
            " Before quoting, read the details of every listing on the request. Quote each line at the right unit "
            "price, list each checkout fee that applies under its published name with the right amount, and make "
            "the total exactly the lines plus the fees. When the customer pays, collect the payment, then finish.")


def _buyer_task(task_id: str, capability: str, world: BuyerWorld) -> TaskSpec:
    shop = world.shop
    counterparties = [CounterpartySpec(actor=m, policy=PolicyRef(name="t5_quote_desk", params={"listings": {
        lid: {"price": rec["price"], "merchant": rec["merchant"], "terms": rec["terms"]}
        for lid, rec in shop.priced().items() if rec["merchant"] == m}})) for m in shop.merchants]
    mandate = {"shopping_list": [{k: n[k] for k in ("item", "candidates", "min", "max")} for n in shop.needs]}
    if world.budget is not None:
        mandate["budget"] = world.budget
    factors = dict(shop.factors)
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=capability, role="buyer", actor=BUYER, difficulty=factors,
        request=buyer_request(capability, world), mandate=mandate, initial_state=shop.state(),
        counterparties=counterparties, max_steps=2 * len(shop.listings) + 8 * len(shop.merchants) + 12,
        predicates=buyer_predicates(world), oracle={"optimal_cart": world.cart, "optimum": world.optimum},
        reference=buyer_reference(world), mutations=buyer_mutations(task_id, world),
    )


def _seller_task(task_id: str, capability: str, world: SellerWorld) -> TaskSpec:
    titles = {lid: rec["title"].lower() for lid, rec in world.shop.listings.items()}
    note = ", ".join(f"{q} x {titles[lid]} ({lid})" for lid, q in world.lines)
    shopper = PolicyRef(name="t5_quote_shopper", params={
        "merchant": MERCHANT, "lines": [{"listing_id": lid, "quantity": q} for lid, q in world.lines],
        "note": f"{note}. Please include every fee so the total is final."})
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=capability, role="merchant", actor=MERCHANT,
        difficulty=dict(world.shop.factors), request=seller_request(capability),
        mandate={"shop": MERCHANT, "listings": sorted(world.shop.listings)}, initial_state=world.shop.state(),
        counterparties=[CounterpartySpec(actor=BUYER, policy=shopper)],
        counterparty_mandates={BUYER: {"cart": [f"{q} x {lid}" for lid, q in world.lines]}},
        max_steps=2 * len(world.lines) + 14, predicates=seller_predicates(),
        oracle={"listings": seller_snapshot(world)}, reference=seller_reference(world),
        mutations=seller_mutations(task_id, world),
    )


def make_task(task_id: str, role: str, capability: str, index: int, rng: np.random.Generator) -> TaskSpec:
    """One T5 task drawn from ``rng``."""
    if role == "buyer":
        return _buyer_task(task_id, capability, draw_buyer(rng, capability, index))
    return _seller_task(task_id, capability, draw_seller(rng, capability))
