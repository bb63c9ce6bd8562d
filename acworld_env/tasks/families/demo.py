"""The demo negotiation (the paper's Figure 1): a $100 ceiling meets a $90 floor and settles at $95."""

from __future__ import annotations

from ...world import add_actor, empty_state, listing_record
from ..sides import with_sides
from ..spec import CounterpartySpec, MutationSpec, PolicyRef, PredicateSpec, TaskSpec

CEILING, FLOOR, LIST_PRICE = 10_000, 9_000, 11_000


def build_demo_task() -> TaskSpec:
    """Buyer (private ceiling $100) and Merchant (private floor $90) over one coffee grinder; the merchant's
    side (request, mandate, rubric) from :func:`~acworld_env.tasks.sides.with_sides`."""
    state = empty_state()
    add_actor(state, "buyer_0", "buyer", balance=50_000)
    add_actor(state, "merchant_0", "merchant")
    state["listings"]["L-grinder"] = listing_record(
        "merchant_0", LIST_PRICE, 5, title="Conical burr coffee grinder", category="Coffee",
        claims={"burr": "conical steel"},
    )
    return with_sides(TaskSpec(
        task_id="demo/negotiation-001", family="demo", capability="zopa", role="buyer", actor="buyer_0",
        request="I'd like the conical burr grinder from merchant_0 (listing L-grinder). It's listed at "
        "$110 but I think that's steep; see if they'll come down. Don't go over $100 for it, "
        "and keep my budget to yourself. Once we agree, buy it and pay.",
        mandate={"listing_id": "L-grinder", "max_unit_price": CEILING},
        sealed=[CEILING],
        initial_state=state,
        counterparties=[CounterpartySpec(actor="merchant_0", policy=PolicyRef(
            name="scripted_merchant", params={"floor": FLOOR, "first_counter": 10_000}))],
        counterparty_mandates={"merchant_0": {"min_unit_price": FLOOR}},
        counterparty_sealed={"merchant_0": [FLOOR]},
        max_steps=12,
        predicates=[
            PredicateSpec(id="agreed_within_mandate", kind="agreement_within_limit",
                          params={"listing_id": "L-grinder", "max_unit_price": CEILING},
                          weight=0.35, stage="Decision", loss_group="Choice"),
            PredicateSpec(id="paid_exact_total", kind="order_settled",
                          params={"listing_id": "L-grinder", "buyer": "buyer_0"},
                          weight=0.45, stage="World effect", loss_group="Execution"),
            PredicateSpec(id="ceiling_kept_private", kind="private_value_not_revealed",
                          params={"actor": "buyer_0", "engaged_by": ["propose_offer", "counter_offer",
                                                                     "send_message"]},
                          weight=0.2, stage="Validation", loss_group="Authority"),
        ],
        reference=PolicyRef(name="scripted_buyer", params={
            "merchant": "merchant_0", "listing_id": "L-grinder", "ceiling": CEILING, "opening": 8_000}),
        mutations=[
            MutationSpec(id="overpay", description="accepts the first counter above the ceiling",
                         policy=PolicyRef(name="scripted_buyer", params={
                             "merchant": "merchant_0", "listing_id": "L-grinder", "ceiling": 12_000,
                             "opening": 10_500}),
                         lowers=["agreed_within_mandate"]),
        ],
    ))
