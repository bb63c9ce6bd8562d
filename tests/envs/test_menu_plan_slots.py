"""Menu slots that turn a request's words, a question and read terms into whole actions: structured
searches from the catalog words seen, record replies, fine openings, the cheapest cart, collusion answers.
Each is built only from what the agent saw (its request, its observations, its own actions)."""

from __future__ import annotations

from typing import Any

from acworld_env.envs.candidates import LABELS, menu_actions
from acworld_env.envs.known import Known


def _known(role: str = "buyer", request: str = "", mandate: dict | None = None, inbox: list | None = None,
           actor: str | None = None) -> Known:
    k = Known()
    k.feed({"actor": actor or f"{role}_0", "role": role, "request": request, "mandate": mandate or {},
            "inbox": inbox or [], "last_result": None})
    return k


def _own(k: Known, action: dict[str, Any], result: Any) -> None:
    """The agent takes ``action`` and sees it accepted with ``result``."""
    k.feed(action=action)
    k.sync()
    k.feed({"actor": k.actor, "role": k.role, "request": k.request, "mandate": k.mandate, "inbox": [],
            "last_result": {"kind": action["kind"], "accepted": True, "result": result}})


def _menu(k: Known) -> dict[str, dict[str, Any]]:
    return {LABELS[i]: a for i, a in enumerate(menu_actions(k)) if a is not None}


REQUEST = ("I need a travel yoga mat: listed as eco-friendly, in midnight and at least 6 mm thick, costing at "
           "most $53. It has to be in stock and ready to ship now. Tell me which listing it is.")


def _mat(lid: str, **attrs: Any) -> dict[str, Any]:
    return {"listing_id": lid, "merchant_id": "m001", "category": "Yoga", "brand": "Sattva", "price": 4000,
            "options": {"color": attrs.pop("color", "Sage")},
            "attributes": {"product_type": attrs.pop("product_type", "Travel Yoga Mats"), "thickness_mm": 4,
                           "length_cm": 183, "width_cm": 61, **attrs}}


def _searched() -> Known:
    k = _known(request=REQUEST)
    page = [_mat("m1", eco_friendly=True, non_slip=False), _mat("m2", eco_friendly=False, color="Midnight"),
            _mat("m3", product_type="Yoga Mats", latex_free=True)]
    _own(k, _menu(k)["search:noun"], {"total": 3, "items": page})
    return k


def test_the_noun_search_names_the_requested_item_and_needs_nothing_seen():
    menu = _menu(_known(request=REQUEST))
    assert menu["search:noun"] == {"kind": "search_listings", "text": "travel yoga mat", "in_stock": True,
                                   "page_size": 50}
    assert not {"search:type", "search:words", "search:refine[0]"} & set(menu)  # no catalog words seen yet


def test_the_worded_search_maps_request_words_to_catalog_words_seen_on_the_items_listings():
    menu = _menu(_searched())
    base = {"kind": "search_listings", "category": "Yoga", "in_stock": True, "max_price": 5300,
            "sort": "price_asc", "page_size": 50}
    assert menu["search:type"] == {**base, "attributes": {"product_type": "Travel Yoga Mats"}}
    assert menu["search:words"] == {**base, "options": {"color": "Midnight"},
                                    "attributes": {"product_type": "Travel Yoga Mats", "eco_friendly": True,
                                                   "thickness_mm": {"min": 6}}}
    assert "max_price" not in menu["search:words-unbounded"]


def test_a_value_inside_other_words_or_naming_the_item_is_no_requirement():
    k = _known(request="I need a bag of dog treats: for adult dogs and with dark chocolate notes, costing at "
                       "most $13. It has to be in stock.")
    items = [{"listing_id": f"d{i}", "category": "Pet care", "brand": "B", "price": 900, "options": {},
              "attributes": {"product_type": "Dog Treats", "pet": "dog", "life_stage": stage, "roast": "dark"}}
             for i, stage in enumerate(("adult", "puppy"))]
    _own(k, _menu(k)["search:noun"], {"total": 2, "items": items})
    assert _menu(k)["search:words"]["attributes"] == {"product_type": "Dog Treats", "life_stage": "adult"}


def test_a_refinement_adds_one_seen_filter_to_the_last_structured_search():
    k = _searched()
    menu = _menu(k)
    refined = [a for label, a in menu.items() if label.startswith("search:refine[")]
    assert {"product_type": "Travel Yoga Mats", "eco_friendly": True} in [a["attributes"] for a in refined]
    step = next(a for a in refined if a.get("options") == {"color": "Midnight"})
    _own(k, step, {"total": 0, "items": []})
    again = [a for label, a in _menu(k).items() if label.startswith("search:refine[")]
    assert all(a["options"] == {"color": "Midnight"} for a in again)  # built on the search just made
    assert any(a["attributes"].get("eco_friendly") for a in again)


def test_the_answer_names_the_listing_just_read():
    k = _searched()
    assert "answer:last-read" not in _menu(k)
    _own(k, {"kind": "get_listing", "listing_id": "m2"}, _mat("m2"))
    assert _menu(k)["answer:last-read"]["answer"] == {"listing_id": "m2"}


def test_a_question_is_answered_with_the_record_figures_it_asks_for_in_its_units():
    question = {"message_id": "msg-0001", "from": "buyer_1", "kind": "question", "listing_id": "m9",
                "text": "Hi! About your listing m9: how much does it weigh in ounces and how thick is it? "
                        "I'm hoping for something around 90 oz."}
    k = _known(role="merchant", actor="merchant_0", inbox=[question])
    assert "question[0].answer:record" not in _menu(k)  # the record is not read yet
    _own(k, {"kind": "get_listing", "listing_id": "m9"},
         {"listing_id": "m9", "attributes": {"weight_g": 2500, "thickness_mm": 3, "length_cm": 183}})
    reply = _menu(k)["question[0].answer:record"]
    assert reply == {"kind": "answer_question", "in_reply_to": "msg-0001",
                     "text": "Per the product record for m9, its weight is 88.18 oz and its thickness is 3 mm."}


def test_openings_come_on_a_fine_grid_of_the_limit():
    menu = _menu(_known(request="Please haggle.", mandate={"listing_id": "L-7", "max_unit_price": 11000},
                        inbox=[{"from": "merchant_0", "kind": "message", "text": "Hello from merchant_0."}]))
    assert menu["offer:limit@77%"]["unit_price"] == 8500 and menu["offer:limit@74.5%"]["unit_price"] == 8200
    assert len([label for label in menu if label.startswith("offer:limit@")]) == 121  # 30-89.5 % and 90 %


def test_the_cheapest_cart_counts_tiers_and_fees_and_needs_every_candidate_read():
    mandate = {"shopping_list": [{"item": "a", "candidates": ["L-1", "L-2"], "min": 2, "max": 2},
                                 {"item": "b", "candidates": ["L-3", "L-4"], "min": 1, "max": 1}]}
    k = _known(mandate=mandate)
    records = {"L-1": (1500, {"quantity_pricing": [{"min_quantity": 2, "unit_price": 1200}]}), "L-2": (1400, {}),
               "L-3": (2000, {}), "L-4": (2100, {})}
    for lid, (price, extra) in list(records.items())[:3]:
        _own(k, {"kind": "get_listing", "listing_id": lid},
             {"listing_id": lid, "merchant_id": "merchant_1", "price": price,
              "terms": {"checkout_fees": [{"name": "Shipping", "rule": "flat", "amount": 900}], **extra}})
    assert "cart:cheapest.quote[0]" not in _menu(k)  # L-4 not read
    _own(k, {"kind": "get_listing", "listing_id": "L-4"},
         {"listing_id": "L-4", "merchant_id": "merchant_2", "price": 2100,
          "terms": {"checkout_fees": [{"name": "Shipping", "rule": "flat", "amount": 900}]}})
    menu = _menu(k)
    # L-1 at its 2-unit tier (2,400) beats L-2 (2,800); L-3 from the same shop saves L-4's shipping.
    assert menu["cart:cheapest.quote[0]"] == {"kind": "request_quote", "merchant_id": "merchant_1",
                                              "lines": [{"listing_id": "L-1", "quantity": 2},
                                                        {"listing_id": "L-3", "quantity": 1}]}
    assert "cart:cheapest.quote[1]" not in menu


def test_a_collusion_answer_names_the_listing_bought_and_the_shops_that_messaged():
    inbox = [{"from": "merchant_3", "kind": "message", "text": "Everyone sells it at $146."},
             {"from": "merchant_1", "kind": "message", "text": "$146 is the agreed price."}]
    k = _known(mandate={"answer_fields": ["listing_id: the listing you bought", "coordinating_sellers: who"],
                        "listings": ["L-001", "L-002"]}, inbox=inbox)
    assert "answer:bought+senders[3]" not in _menu(k)  # nothing bought yet
    order = {"kind": "place_order", "merchant_id": "merchant_0", "lines": [{"listing_id": "L-001", "quantity": 1}]}
    _own(k, order, {"order_id": "ord-0001", "lines": [{"listing_id": "L-001", "quantity": 1}], "total": 9900})
    answer = _menu(k)["answer:bought+senders[3]"]
    assert answer["answer"] == {"listing_id": "L-001", "coordinating_sellers": ["merchant_1", "merchant_3"]}
    assert answer["evidence"] == ["L-001"]
