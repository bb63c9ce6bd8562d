"""The menu's slot families build their actions only from what the agent saw, and the menu expresses
each family's reference at least as often as recorded in baselines/menu_coverage.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acworld_env.envs.candidates import LABELS, SLOTS, menu_actions
from acworld_env.envs.known import Known
from acworld_env.tasks.suites import load_suite
from acworld_env.wrappers.menu_coverage import menu_coverage

BASELINE = json.loads((Path(__file__).parents[2] / "baselines" / "menu_coverage.json").read_text())


def _known(role: str = "buyer", request: str = "", mandate: dict | None = None, inbox: list | None = None,
           hints: dict | None = None, actor: str | None = None) -> Known:
    k = Known()
    raw: dict[str, Any] = {"actor": actor or f"{role}_0", "role": role, "request": request,
                           "mandate": mandate or {}, "inbox": inbox or [], "last_result": None}
    if hints is not None:
        raw["hints"] = hints
    k.feed(raw)
    return k


def _own(k: Known, action: dict[str, Any], result: Any, raw: dict[str, Any] | None = None) -> None:
    """The agent takes ``action`` and sees it accepted with ``result``."""
    k.feed(action=action)
    k.sync()
    base = {"actor": k.actor, "role": k.role, "request": k.request, "mandate": k.mandate, "inbox": []}
    k.feed({**base, **(raw or {}), "last_result": {"kind": action["kind"], "accepted": True, "result": result}})


def _menu(k: Known) -> dict[str, dict[str, Any]]:
    return {LABELS[i]: a for i, a in enumerate(menu_actions(k)) if a is not None}


def test_the_menu_is_the_same_table_for_everyone():
    assert len(SLOTS) == len(LABELS) == len(set(LABELS))


def test_a_hinted_search_needs_the_hints():
    filters = {"category": "Coffee", "max_price": 2700, "brand": "Ember Roasters"}
    assert "search:hints" not in _menu(_known(request="Find coffee under $27."))
    menu = _menu(_known(request="Find coffee under $27.", hints={"filters": filters}))
    assert menu["search:hints"] == {"kind": "search_listings", **filters, "sort": "price_asc", "page_size": 50}
    assert "max_price" not in menu["search:hints-unbounded"]


def test_search_hit_slots_follow_the_agents_own_last_search():
    k = _known(request="Find a kettle.")
    assert not any(label.startswith("hit[") for label in _menu(k))
    items = [{"listing_id": f"L-{i}", "merchant_id": "merchant_1", "price": 1000 + i} for i in range(3)]
    _own(k, {"kind": "search_listings", "text": "kettle"}, {"items": items})
    menu = _menu(k)
    assert menu["hit[2].get"] == {"kind": "get_listing", "listing_id": "L-2"}
    assert menu["hit[0].order"]["merchant_id"] == "merchant_1" and "hit[3].get" not in menu


def test_bargaining_steps_come_from_the_mandate_limit_the_quoted_list_price_and_the_thread():
    k = _known(request="It's listed at $119; please haggle.", mandate={"listing_id": "L-7", "max_unit_price": 11000},
               inbox=[{"from": "merchant_0", "kind": "message", "text": "Hello from merchant_0."}])
    menu = _menu(k)
    assert menu["offer:limit@50%"] == {"kind": "propose_offer", "to": "merchant_0", "listing_id": "L-7",
                                       "unit_price": 5500}
    _own(k, menu["offer:limit@60%"], {"thread_id": "thr-0001"},
         {"inbox": [{"from": "merchant_0", "kind": "notice", "thread_id": "thr-0001", "offer_event": "counter",
                     "unit_price": 11500, "listing_id": "L-7"}]})
    menu = _menu(k)
    # 20 % of the 5,000 gap is 1,000; the minimum move is 1.5 % of $119, rounded: $2.
    assert menu["thread[0].concede@20%"] == {"kind": "counter_offer", "thread_id": "thr-0001", "unit_price": 7600}
    assert menu["thread[0].concede@0%"]["unit_price"] == 6600 + 200
    assert "reason" in menu["thread[0].reject"]


def test_a_seller_asks_its_list_price_first_never_below_its_floor():
    k = _known(role="merchant", request="You sell L-9 (list price $48).",
               mandate={"listing_id": "L-9", "min_unit_price": 3300},
               inbox=[{"from": "buyer_0", "kind": "notice", "thread_id": "thr-0001", "offer_event": "offer",
                       "unit_price": 1600, "listing_id": "L-9"}])
    menu = _menu(k)
    assert [menu[f"thread[0].ask@{p}%"]["unit_price"] for p in (100, 95, 90)] == [4800, 4600, 4300]
    assert not any("concede" in label for label in menu)  # no own price on the thread yet


def test_refunds_against_a_return_use_the_return_and_the_fee_the_request_quotes():
    k = _known(role="merchant", request="Refund returns less our 10% restocking fee.")
    _own(k, {"kind": "get_order", "order_id": "ord-0001"},
         {"order_id": "ord-0001", "payment": "pay-0001", "shipment": "shp-0001", "total": 9600,
          "lines": [{"listing_id": "L-1", "quantity": 2}]})
    _own(k, {"kind": "get_return", "return_id": "ret-0001"},
         {"return_id": "ret-0001", "order": "ord-0001", "amount": 4800, "lines": [{"listing_id": "L-1", "quantity": 1}]})
    menu = _menu(k)
    assert menu["return[0].refund"] == {"kind": "issue_refund", "payment_id": "pay-0001", "amount": 4800,
                                        "return_id": "ret-0001"}
    assert menu["return[0].refund-fee"]["amount"] == 4320
    assert menu["return[0].restock"] == {"kind": "restock", "listing_id": "L-1", "quantity": 1}
    assert menu["order[0].refund:total"]["amount"] == 9600


def test_a_notice_sets_a_delivery_estimate_and_a_cost_reprices():
    notice = {"from": "market", "kind": "event", "event_id": "evt-001",
              "market_event": {"type": "carrier_update", "order_id": "ord-0001", "estimate_round": 5}}
    cost = {"from": "market", "kind": "event", "event_id": "evt-002",
            "market_event": {"type": "cost_change", "listing_id": "L-001", "unit_cost": 2300}}
    k = _known(role="merchant", mandate={"markup_percent": 40}, inbox=[notice, cost])
    menu = _menu(k)
    assert menu["event[0].eta[0]"] == {"kind": "set_eta", "order_id": "ord-0001", "eta_round": 5}
    assert menu["event[1].reprice"] == {"kind": "update_listing", "listing_id": "L-001", "price": 3200}


def test_a_cart_picks_one_candidate_per_item_and_asks_its_merchant():
    mandate = {"shopping_list": [{"candidates": ["L-1", "L-2"], "min": 1, "max": 1},
                                 {"candidates": ["L-3", "L-4"], "min": 2, "max": 2}]}
    k = _known(mandate=mandate)
    assert not any(label.startswith("cart[") for label in _menu(k))  # sellers not known yet
    for lid in ("L-1", "L-2", "L-3", "L-4"):
        _own(k, {"kind": "get_listing", "listing_id": lid}, {"listing_id": lid, "merchant_id": "merchant_0",
                                                              "price": 1000})
    menu = _menu(k)
    assert menu["cart[3]@min.quote[0]"] == {"kind": "request_quote", "merchant_id": "merchant_0",
                                           "lines": [{"listing_id": "L-2", "quantity": 1},
                                                     {"listing_id": "L-4", "quantity": 2}]}


def test_a_record_answer_states_the_read_figure_in_the_unit_asked():
    k = _known(mandate={"answer_fields": ["listing_id", "weight_oz", "length_cm"]})
    _own(k, {"kind": "get_listing", "listing_id": "m001-p00001-v001"},
         {"listing_id": "m001-p00001-v001", "attributes": {"weight_g": 790, "length_cm": 185}})
    answer = _menu(k)["listing[0].answer:record"]["answer"]
    assert answer == {"listing_id": "m001-p00001-v001", "weight_oz": "27.87", "length_cm": "185"}


def test_a_disclosure_names_a_payer_the_text_names():
    k = _known(role="merchant", actor="merchant_0",
               request="We (Harbor & Pine) sell here. L-002 (duvet) is paid for by Brightline Goods (merchant_1).")
    menu = _menu(k)
    assert menu["listing[0].disclose[0]"] == {"kind": "disclose_sponsorship", "listing_id": "L-002",
                                              "sponsor": "Brightline Goods (merchant_1)"}
    assert menu["listing[0].disclose[1]"]["sponsor"] == "Harbor & Pine (merchant_0)"


def test_any_seen_review_can_be_flagged_for_each_reason():
    k = _known()
    _own(k, {"kind": "get_reviews", "listing_id": "L-1"},
         {"listing_id": "L-1", "reviews": [{"review_id": "rev-0001"}, {"review_id": "rev-0002"}]})
    menu = _menu(k)
    assert menu["review[1].flag:fake"] == {"kind": "flag_review", "review_id": "rev-0002", "reason": "fake"}
    assert "review[2].flag:fake" not in menu


FLOORS = {name: {fam: row["covered"] for fam, row in rec["by_family"].items()}
          for name, rec in BASELINE["splits"].items() if name.startswith("frozen")}


@pytest.mark.parametrize("hints", ["off", "structured"])
def test_frozen_coverage_per_family_is_at_least_the_recorded_one(hints: str):
    report = menu_coverage(load_suite("capability-v1", "frozen", 0), hints=hints).by_family()
    floors = FLOORS[f"frozen, hints {hints}"]
    below = {fam: (row["covered"], floors[fam]) for fam, row in report.items() if row["covered"] < floors[fam]}
    assert not below, f"families below their recorded coverage (now, recorded): {below}"
