"""Tolerant reading of replies into actions (no network)."""

from __future__ import annotations

import pytest

from acworld_env.market import Market
from acworld_env.policies.llm.history import Reply, ToolCall
from acworld_env.policies.llm.reading import action_from_text, is_refusal, read_reply
from acworld_env.tasks.families.demo import build_demo_task


def text(t: str):
    return read_reply(Reply(text=t))


def test_tool_call_wins_and_its_name_is_the_kind():
    r = read_reply(Reply(text="ignored {\"kind\": \"finish\"}",
                         tool_calls=[ToolCall("c1", "get_listing", {"listing_id": "L-1", "kind": "x"})]))
    assert r.action == {"kind": "get_listing", "listing_id": "L-1"} and r.how == "tool_call"


def test_tool_call_with_broken_arguments_passes_the_raw_text():
    r = read_reply(Reply(tool_calls=[ToolCall("c1", "finish", '{"summary": "do')]))
    assert r.action == '{"summary": "do' and r.how == "tool_call_malformed"


@pytest.mark.parametrize("reply, expected", [
    ('{"kind": "finish"}', {"kind": "finish"}),
    ('Sure!\n```json\n{"kind": "get_inbox", "unread_only": true}\n```\nDone.', {"kind": "get_inbox", "unread_only": True}),
    ('```\n{"kind": "finish", "summary": "a {nested} brace"}\n```', {"kind": "finish", "summary": "a {nested} brace"}),
    ('{"name": "get_listing", "arguments": {"listing_id": "L-1"}}', {"kind": "get_listing", "listing_id": "L-1"}),
    ('{"name": "get_listing", "arguments": "{\\"listing_id\\": \\"L-1\\"}"}', {"kind": "get_listing", "listing_id": "L-1"}),
    ('{"tool": "get_listing", "input": {"listing_id": "L-1"}}', {"kind": "get_listing", "listing_id": "L-1"}),
    ('{"action": "finish", "summary": "ok"}', {"kind": "finish", "summary": "ok"}),
    ('{"function": {"name": "finish", "arguments": {}}}', {"kind": "finish"}),
    ('Thinking {not json} then {"kind": "abstain", "reason": "none"}', {"kind": "abstain", "reason": "none"}),
])
def test_json_actions_in_text(reply, expected):
    r = text(reply)
    assert r.action == expected and r.how == "json_text"


@pytest.mark.parametrize("reply", [
    "I can't find anything that fits.",
    "I'm sorry, but I cannot help with that purchase.",
    "Unfortunately, nothing matches your requirements.",
    "No listings match the requested size.",
    "I will not complete this order.",
    "I\u2019m unable to proceed with this request.",
    "After searching: there are no products that satisfy the budget.",
])
def test_refusals_become_abstain(reply):
    r = text(reply)
    assert r.how == "refusal" and r.action == {"kind": "abstain", "reason": reply}


@pytest.mark.parametrize("reply", [
    "I will not reveal my budget, but let me think.",
    "Let's negotiate a better price.",
    "",
    "The merchant said: I can't go lower.",
])
def test_other_prose_passes_through_raw(reply):
    r = text(reply)
    assert r.how == "raw" and r.action == reply


def test_broken_fenced_json_passes_its_body():
    assert action_from_text('```json\n{"kind": "finish", "summary": "x"\n```') == '{"kind": "finish", "summary": "x"'
    assert action_from_text('{"kind": "finish", "summary": "x') == '{"kind": "finish", "summary": "x'
    assert action_from_text("no json here") is None


def test_long_refusal_reason_is_capped():
    r = text("I can't do this. " + "x" * 5000)
    assert r.how == "refusal" and len(r.action["reason"]) == 2000


def test_is_refusal_ignores_confidentiality_statements():
    assert not is_refusal("I won't share my ceiling.")
    assert is_refusal("I won't buy this.")


@pytest.mark.parametrize("raw, code", [
    ("Let's negotiate a better price.", "malformed_json"),
    ('{"kind": "finish", "summary": "x', "malformed_json"),
    ({"kind": "buy_now"}, "unknown_tool"),
])
def test_unreadable_replies_are_recorded_rejections(raw, code):
    task = build_demo_task()
    market = Market(task.initial_state, mandates={"buyer_0": dict(task.mandate)})
    result = market.submit("buyer_0", raw, {"model": "m"})
    assert not result.accepted and result.code == code
    assert market.trace.records[-1]["meta"] == {"model": "m"}
