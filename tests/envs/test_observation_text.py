"""The text an LLM reads shows every search hit, compactly, within the result limit."""

from __future__ import annotations

import json

from acworld_env.episode import Episode
from acworld_env.observe import compact_result, render_text
from acworld_env.policies.llm.prompt import RESULT_LIMIT, result_text
from acworld_env.tasks.frozen import load_frozen


def test_a_full_page_of_search_hits_reaches_the_model_untruncated():
    task = next(t for t in load_frozen("capability-v1") if t.family == "T1_discovery")
    ep = Episode(task)
    step = ep.act(task.actor, {"kind": "search_listings", "page_size": 20})
    assert len(step.result["items"]) == 20
    text = render_text(ep.observe(task.actor))
    tool_text, is_error = result_text(step.to_dict())
    assert not is_error and len(tool_text) <= RESULT_LIMIT and "truncated" not in tool_text
    for item in step.result["items"]:
        assert item["listing_id"] in text and item["listing_id"] in tool_text
        assert json.dumps(item["price"]) in tool_text
    brief = compact_result(step.result)["items"][0]
    assert "description" not in brief and "url" not in brief
    assert {"listing_id", "title", "price", "in_stock", "options", "attributes"} <= set(brief)


def test_compacting_drops_the_named_fields_and_only_none_and_empty_dicts_and_lists():
    item = {"listing_id": "L-1", "description": "long", "url": "u", "product_id": "p", "currency": "USD",
            "tags": ["t"], "status": "active", "options": {}, "bundle": [], "note": None, "stock": 0, "title": "",
            "sale": False, "dims": (), "attributes": {"a": None}, "price": 0.0}
    out = compact_result({"total": 1, "items": [item, "raw"], "page": 1})
    assert out == {"total": 1, "items": [{"listing_id": "L-1", "stock": 0, "title": "", "sale": False, "dims": (),
                                          "attributes": {"a": None}, "price": 0.0}, "raw"], "page": 1}
    assert list(out) == ["total", "items", "page"] and item["options"] == {} and compact_result([item]) == [item]
