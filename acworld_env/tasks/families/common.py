"""Helpers shared by family builders: products, money text, states, predicate shorthands."""

from __future__ import annotations

import numpy as np

from ...core.money import format_money
from ...world import add_actor, empty_state, listing_record
from ..spec import PredicateSpec

PRODUCTS: dict[str, list[tuple[str, int]]] = {
    "Coffee": [("Conical burr coffee grinder", 11_000), ("Gooseneck pour-over kettle", 6_500),
               ("Single-origin Ethiopian beans, 1 kg", 4_200), ("Espresso tamper, 58 mm", 3_900)],
    "Footwear": [("Trail running shoes", 13_500), ("Leather chelsea boots", 18_900),
                 ("Canvas low-top sneakers", 6_900)],
    "Home textiles": [("Linen duvet cover, queen", 16_000), ("Merino wool throw", 12_500),
                      ("Percale sheet set, king", 14_900)],
    "Yoga": [("Natural rubber yoga mat, 5 mm", 9_800), ("Cork yoga block pair", 3_400),
             ("Organic cotton yoga bolster", 7_200)],
    "Cosmetics": [("Vitamin C serum, 30 ml", 4_800), ("Mineral sunscreen SPF 50", 3_200)],
    "Pet care": [("Orthopedic dog bed, large", 11_900), ("Stainless steel cat fountain", 5_600)],
}


def dollars(cents: int) -> str:
    """Cents as task requests write them, '$95' or '$95.50' (see :func:`format_money`)."""
    return format_money(cents, trim_zero_cents=True)


def to_dollar(cents: float) -> int:
    """Round cents to whole dollars."""
    return int(round(cents / 100.0)) * 100


def pick_product(rng: np.random.Generator) -> tuple[str, str, int]:
    """A (category, title, list price) drawn from the product table."""
    cats = sorted(PRODUCTS)
    cat = cats[int(rng.integers(len(cats)))]
    title, price = PRODUCTS[cat][int(rng.integers(len(PRODUCTS[cat])))]
    return cat, title, price


def two_party_state(listing_id: str, title: str, category: str, price: int, *, stock: int = 5,
                    buyer_balance: int = 100_000) -> dict:
    """A World with buyer_0, merchant_0 and one listing of merchant_0."""
    state = empty_state()
    add_actor(state, "buyer_0", "buyer", balance=buyer_balance)
    add_actor(state, "merchant_0", "merchant")
    state["listings"][listing_id] = listing_record("merchant_0", price, stock, title=title, category=category)
    return state


def pred(pid: str, pkind: str, weight: float, stage: str, loss: str, **params: object) -> PredicateSpec:
    """Shorthand for a predicate spec."""
    return PredicateSpec(id=pid, kind=pkind, params=params, weight=weight, stage=stage, loss_group=loss)  # type: ignore[arg-type]
