"""The frozen capability-v1 suite holds exactly the paper's inventory (its Table 8): 200 tasks over
80 capabilities, 116 Buyer and 84 Merchant, with every capability's count as published."""

from __future__ import annotations

from collections import Counter

from acworld_env.tasks.capability import CAPABILITY_FAMILIES
from acworld_env.tasks.frozen import load_frozen

B, M = "buyer", "merchant"
EXPECTED: dict[str, dict[tuple[str, str], int]] = {
    "T1_discovery": {(B, "basic_feasible_discovery"): 3, (B, "best_feasible_selection"): 5,
                     (B, "correct_abstention"): 4, (B, "hard_constraint_filtering"): 4,
                     (B, "query_reformulation"): 4},
    "T2_grounding": {(B, "authoritative_attribute_read"): 2, (B, "conflict_and_normalization"): 2,
                     (B, "grounded_comparison"): 2, (B, "unsupported_claim_detection"): 2,
                     (M, "comparative_claim_limits"): 3, (M, "correction_and_retraction"): 2,
                     (M, "evidence_backed_response"): 3, (M, "truthful_listing_update"): 4},
    "T3_preference": {(B, "hard_over_soft"): 4, (B, "mandate_consistency"): 2, (B, "noisy_social_signals"): 3,
                      (B, "preference_update"): 3, (B, "social_evidence"): 4, (B, "weighted_soft_preferences"): 4},
    "T4_negotiation": {**{(B, c): n for c, n in (("deadline", 1), ("false_anchor", 2), ("no_zopa", 2),
                                                   ("private_value", 2), ("zopa", 3))},
                       **{(M, c): n for c, n in (("deadline", 1), ("false_anchor", 2), ("no_zopa", 2),
                                                   ("private_value", 2), ("zopa", 3))}},
    "T5_multi_item": {(B, "bundle_relations"): 3, (B, "cross_merchant_cart"): 2, (B, "multi_item_cart"): 4,
                      (B, "quantity_tiers"): 3, (B, "total_budget"): 2, (M, "merchant_bundle_quote"): 2,
                      (M, "merchant_tier_quote"): 3, (M, "merchant_total_quote"): 1},
    "T6_inventory": {(B, "buyer_delivery_exception"): 2, (B, "buyer_partial_backorder"): 2,
                     (B, "buyer_restock_price"): 2, (B, "buyer_stock_substitution"): 2,
                     (M, "merchant_competing_commitment"): 3, (M, "merchant_delivery_exception"): 2,
                     (M, "merchant_inventory_eta"): 2, (M, "merchant_partial_backorder"): 3,
                     (M, "merchant_restock_price"): 2},
    "T7_lifecycle": {**{(B, c): 2 for c in ("buyer_cancel", "buyer_dispute", "buyer_exchange",
                                            "buyer_return_refund")},
                     **{(M, c): 2 for c in ("merchant_cancel", "merchant_dispute", "merchant_exchange",
                                            "merchant_ledger_close", "merchant_refund",
                                            "merchant_return_authorization")}},
    "T8_governance": {(B, "buyer_collusion"): 1, (B, "buyer_fake_reviews"): 2, (B, "buyer_price_quality"): 3,
                      (B, "buyer_reputation"): 2, (B, "buyer_sponsored_ranking"): 2,
                      (M, "merchant_anti_collusion"): 3, (M, "merchant_reputation_recovery"): 3,
                      (M, "merchant_review_integrity"): 2, (M, "merchant_sponsorship_disclosure"): 2},
    "T9_adversarial": {(B, "buyer_listing_injection"): 4, (B, "buyer_message_injection"): 3,
                       (B, "buyer_review_injection"): 3, (M, "merchant_buyer_injection"): 4,
                       (M, "merchant_malicious_evidence"): 3, (M, "merchant_memory_exfiltration"): 3},
    "T10_timing": {(B, "cross_order_payment_isolation"): 2, (B, "duplicate_payment"): 2, (B, "out_of_order"): 2,
                   (B, "stale_certificate"): 2, (M, "cross_order_isolation"): 2, (M, "duplicate_fulfillment"): 3,
                   (M, "duplicate_refund"): 3, (M, "out_of_order"): 2, (M, "stale_certificate"): 2},
}
"""Family -> (role, capability) -> frozen task count."""


def test_expected_table_is_the_papers_totals():
    """The table itself adds up to the paper's totals (so a typo here cannot pass silently)."""
    assert tuple(EXPECTED) == CAPABILITY_FAMILIES
    cells = [(r, n) for fam in EXPECTED.values() for (r, _), n in fam.items()]
    assert sum(n for _, n in cells) == 200 and len(cells) == 80
    assert sum(n for r, n in cells if r == B) == 116 and sum(n for r, n in cells if r == M) == 84
    assert all(sum(fam.values()) == 20 for fam in EXPECTED.values())


def test_frozen_suite_has_every_capability_at_its_published_count():
    tasks = load_frozen("capability-v1")
    got: dict[str, Counter] = {fam: Counter() for fam in CAPABILITY_FAMILIES}
    for t in tasks:
        got[t.family][(t.role, t.capability)] += 1
    assert {fam: dict(c) for fam, c in got.items()} == EXPECTED
    assert len(tasks) == 200 and len({t.task_id for t in tasks}) == 200
    assert Counter(t.role for t in tasks) == {B: 116, M: 84}
    assert len({(t.family, t.role, t.capability) for t in tasks}) == 80
