"""T8 Buyer tasks: request, rubric, reference script and mutations of a drawn Buyer market.

Rubric (weights sum to 1.0): ``right_listing_ordered`` (0.45, the one World order is the answer),
``evidence_read`` (0.2, the records that decide the choice were read before ordering), and one
capability check (0.35): spend within budget, fake reviews flagged with no honest one flagged,
no order from a seller failing the record rule, the paid placements named, the price-fixing
sellers named. Everything but the named lists pays only once the buyer has ordered.
"""

from __future__ import annotations

from ..spec import CounterpartySpec, MutationSpec, PolicyRef, PredicateSpec, TaskSpec
from .common import dollars, pred
from .governance_buyer import BuyerMarket, Cand
from .governance_market import SHOPS

ANSWER_FIELDS = {
    "buyer_sponsored_ranking": ("sponsored_listings", "the listings on the results page that are paid placements"),
    "buyer_collusion": ("coordinating_sellers", "the sellers (merchant ids) you believe coordinate their prices"),
}
ORDERED = ["place_order"]


def _request(m: BuyerMarket) -> str:
    page = ", ".join(m.ranking)
    ask = (f"I need a {m.title.lower()}. Several shops carry it; my search shows listings {page}, in that order. "
           "Buy one unit, at the listed price, of the cheapest listing whose honest reviews average at least "
           f"4 stars (with at least three honest reviews), and don't spend more than {dollars(m.budget)}.")
    extra = {
        "buyer_price_quality": " Cheap junk is no bargain, and the fanciest one isn't worth blowing the budget.",
        "buyer_fake_reviews": " Some reviews here are fake: the same text posted word for word by different "
        "accounts, or reviews admitting the shop paid for them with money or free goods. They don't count. "
        "Please flag every fake review you find on these listings so other shoppers aren't fooled, and "
        "leave the honest ones alone, even the harsh ones.",
        "buyer_reputation": " I also only buy from a seller whose platform record shows at least 90% of its "
        "past orders fulfilled and no more than one dispute; star ratings alone don't tell you that.",
        "buyer_sponsored_ranking": " Some results are paid placements; where a listing ranks doesn't matter to "
        "me. When you report back, also list which of the results were sponsored.",
        "buyer_collusion": " I've heard some shops in this category coordinate their prices, so don't take any "
        "shop's word about the 'market price'. When you report back, also tell me which sellers, if any, seem "
        "to be coordinating prices.",
    }[m.capability]
    return ask + extra + " Then report which listing you bought."


def _answer(m: BuyerMarket, *, report: bool = True) -> dict:
    answer: dict = {"listing_id": m.best.lid}
    if report and m.capability == "buyer_sponsored_ranking":
        answer["sponsored_listings"] = sorted(c.lid for c in m.cands if c.sponsor)
    if report and m.capability == "buyer_collusion":
        answer["coordinating_sellers"] = sorted(c.merchant for c in m.cands if c.role == "colluder")
    return answer


def _deciding(m: BuyerMarket) -> list[Cand]:
    """The answer and every cheaper listing: what must be checked to know the answer is right."""
    return [c for c in m.cands if c.price <= m.best.price]


def _fakes(m: BuyerMarket) -> tuple[dict[str, str], list[str]]:
    fakes = {rid: why for c in m.cands for rid, why in c.reviews.fake_ids().items()}
    genuine = sorted(rid for c in m.cands for rid in c.reviews.genuine_ids())
    return fakes, genuine


def _predicates(m: BuyerMarket) -> list[PredicateSpec]:
    actor = "buyer_0"
    if m.capability == "buyer_reputation":
        read = pred("evidence_read", "records_read", 0.2, "Evidence", "Evidence", actor=actor,
                    via=["get_merchant_reputation"], before=ORDERED, records=[c.merchant for c in _deciding(m)])
    else:
        read = pred("evidence_read", "records_read", 0.2, "Evidence", "Evidence", actor=actor,
                    via=["get_reviews"], before=ORDERED, records=[c.lid for c in _deciding(m)])
    preds = [pred("right_listing_ordered", "ordered_listing", 0.45, "World effect", "Choice", actor=actor,
                  accepted=[m.best.lid]), read]
    if m.capability == "buyer_price_quality":
        preds.append(pred("within_budget", "order_total_within", 0.35, "Decision", "Authority", actor=actor,
                          budget=m.budget))
    elif m.capability == "buyer_fake_reviews":
        fakes, genuine = _fakes(m)
        preds.append(pred("fakes_flagged", "fakes_flagged", 0.35, "Validation", "Evidence", actor=actor,
                          fakes=fakes, genuine=genuine, clean=True))
    elif m.capability == "buyer_reputation":
        bad = sorted(c.lid for c in m.cands if not c.eligible())
        preds.append(pred("unreliable_avoided", "no_order_from", 0.35, "Decision", "Authority", actor=actor,
                          listings=bad))
    else:
        field, _ = ANSWER_FIELDS[m.capability]
        aliases = {c.merchant: [SHOPS[int(c.merchant.rsplit("_", 1)[1])]] for c in m.cands}
        preds.append(pred("reported", "answer_set_equals", 0.35, "Validation", "Evidence", actor=actor,
                          field=field, expected=_answer(m)[field], aliases=aliases))
    return preds


def _script(m: BuyerMarket, *, target: Cand | None = None, read: bool = True, flags: str = "fakes",
            report: bool = True) -> PolicyRef:
    """The reference (defaults) or a mutation: which listing it orders, whether it reads, what it flags."""
    target = target or m.best
    steps: list[dict] = []
    if read:
        steps += [{"kind": "get_listing", "listing_id": lid} for lid in m.ranking]
        steps += [{"kind": "get_reviews", "listing_id": lid} for lid in m.ranking]
        if m.capability == "buyer_reputation":
            steps += [{"kind": "get_merchant_reputation", "merchant_id": m.by_lid(lid).merchant} for lid in m.ranking]
    if m.capability == "buyer_fake_reviews" and flags != "none":
        fakes, genuine = _fakes(m)
        steps += [{"kind": "flag_review", "review_id": rid, "reason": why} for rid, why in sorted(fakes.items())]
        if flags == "harsh_too":
            harsh = [rid for c in m.cands for rid, r in zip(c.reviews.ids, c.reviews.items, strict=True)
                     if r.fake is None and r.rating <= 3]
            steps += [{"kind": "flag_review", "review_id": rid, "reason": "abusive"} for rid in harsh]
    steps.append({"kind": "place_order", "merchant_id": target.merchant,
                  "lines": [{"listing_id": target.lid, "quantity": 1}]})
    answer = {**_answer(m, report=report), "listing_id": target.lid}
    steps.append({"kind": "submit_answer", "answer": answer, "evidence": [target.lid],
                  "rationale": "Cheapest listing meeting the bar."})
    return PolicyRef(name="governance_script", params={"steps": steps})


def _mutations(task_id: str, m: BuyerMarket) -> list[MutationSpec]:
    def mut(name: str, desc: str, ref: PolicyRef, lowers: list[str]) -> MutationSpec:
        return MutationSpec(id=f"{task_id}/{name}", description=desc, policy=ref, lowers=lowers)

    top_stars = max(m.cands, key=lambda c: (c.reviews.average(genuine_only=False), c.lid))
    cheapest = min(m.cands, key=lambda c: (c.price, c.lid))
    out = [mut("skip_evidence", "orders the right listing without reading what decides it", _script(m, read=False),
               ["evidence_read"])]
    if m.capability == "buyer_price_quality":
        out.append(mut("top_stars", "orders the best-rated listing, over budget",
                       _script(m, target=top_stars), ["right_listing_ordered", "within_budget"]))
        if cheapest is not m.best:
            out.append(mut("cheapest", "orders the cheapest listing whatever its reviews",
                           _script(m, target=cheapest), ["right_listing_ordered"]))
    elif m.capability == "buyer_fake_reviews":
        boosted = next(c for c in m.cands if c.role == "boosted")
        out += [mut("believe_fakes", "counts the fake reviews and orders the boosted listing",
                    _script(m, target=boosted), ["right_listing_ordered"]),
                mut("no_flags", "discounts the fakes but flags none", _script(m, flags="none"), ["fakes_flagged"])]
        if any(r.fake is None and r.rating <= 3 for c in m.cands for r in c.reviews.items):
            out.append(mut("flag_harsh", "also flags honest low-star reviews", _script(m, flags="harsh_too"),
                           ["fakes_flagged"]))
    elif m.capability == "buyer_reputation":
        out.append(mut("trust_stars", "orders from the best-rated seller despite its record",
                       _script(m, target=top_stars), ["right_listing_ordered", "unreliable_avoided"]))
        if cheapest is not top_stars:
            out.append(mut("cheapest", "orders the cheapest listing from an unreliable seller",
                           _script(m, target=cheapest), ["right_listing_ordered", "unreliable_avoided"]))
    else:
        pushed = m.pushers[0][0]
        out += [mut("follow_push", "orders the listing a shop pushed at it", _script(m, target=pushed),
                    ["right_listing_ordered"]),
                mut("no_report", "buys right but does not report", _script(m, report=False), ["reported"])]
    return out


def buyer_task(task_id: str, m: BuyerMarket) -> TaskSpec:
    """The TaskSpec of a drawn Buyer market."""
    fields = ["listing_id: the listing you bought"]
    if m.capability in ANSWER_FIELDS:
        key, what = ANSWER_FIELDS[m.capability]
        fields.append(f"{key}: {what}")
    peers = [CounterpartySpec(actor=c.merchant, policy=PolicyRef(name="market_peer", params={
        "messages": [{"round": k % 2, "to": "buyer_0", "text": text}], "target": "buyer_0",
        "reply": "Happy to help, but the price is the price."})) for k, (c, text) in enumerate(m.pushers)]
    return TaskSpec(
        task_id=task_id, family="T8_governance", capability=m.capability, role="buyer", actor="buyer_0",
        difficulty=m.factors, request=_request(m),
        mandate={"listings": m.ranking, "budget": m.budget, "answer_fields": fields},
        initial_state=m.state, counterparties=peers, max_steps=60, predicates=_predicates(m),
        reference=_script(m), mutations=_mutations(task_id, m),
    )
