"""Every free-text field of every action is guarded, and the list of fields comes from the models."""

from __future__ import annotations

from typing import Any

import pytest
from foundation_kit import make_market, ok, rejected
from privacy_kit import action_with
from pydantic import Field

from acworld_env.cip.checks import TEXT_FIELDS
from acworld_env.cip.privacy import judge
from acworld_env.vcp import TOOLS, VCPAction
from acworld_env.vcp.base import Id
from acworld_env.vcp.negotiation import SendMessage
from acworld_env.vcp.text import ITEMS, KEYS, VALUES, Text, TextPath, string_leaves, text_paths

NOT_TEXT = {("actor",), ("idempotency_key",)}
"""String fields that never leave the platform: the claimed actor (checked against the bound
one) and the retry key (stored by the platform, never delivered)."""


def unguarded_strings(model: type[VCPAction]) -> list[TextPath]:
    """String fields of ``model`` that are neither marked free text nor identifiers/envelope hints."""
    return [path for path, annotation, is_text in string_leaves(model)
            if not is_text and annotation != Id and path not in NOT_TEXT]


@pytest.mark.parametrize("kind", sorted(TOOLS))
def test_every_string_field_is_text_or_an_identifier(kind):
    assert unguarded_strings(TOOLS[kind]) == [], (
        f"{kind} has a string field that is neither Text/ShortText (read by the privacy guard) nor an Id; "
        "type it with a marker from acworld_env.vcp.text")


def test_a_new_unmarked_text_field_would_fail_that_test():
    class Chatty(SendMessage):
        comment: str = Field("", max_length=200)

    class Marked(SendMessage):
        comment: Text = Field("")

    assert unguarded_strings(Chatty) == [("comment",)]
    assert unguarded_strings(Marked) == []
    assert ("comment",) in text_paths(Marked)


def test_the_guard_reads_the_fields_the_models_mark():
    assert {k: text_paths(t) for k, t in TOOLS.items() if not t.readonly} == TEXT_FIELDS
    expected = {
        "send_message": {("text",)}, "propose_offer": {("note",)}, "counter_offer": {("note",)},
        "reject_offer": {("reason",)}, "abstain": {("reason",)}, "finish": {("summary",)},
        "answer_question": {("text",)}, "issue_quote": {("fees", ITEMS, "name")},
        "publish_listing": {("title",), ("category",), ("description",), ("claims", KEYS), ("claims", VALUES)},
        "disclose_sponsorship": {("sponsor",)}, "post_review": {("text",)},
        "open_dispute": {("note",), ("evidence", ITEMS)},
        "submit_answer": {("rationale",), ("evidence", ITEMS), ("answer", KEYS), ("answer", VALUES),
                          ("answer", VALUES, ITEMS)},
    }
    for kind, paths in expected.items():
        assert paths <= set(TEXT_FIELDS[kind]), kind


def _put(path: TextPath, text: str) -> Any:
    """Plain JSON holding ``text`` at ``path``."""
    if not path:
        return text
    step, rest = path[0], path[1:]
    if step == ITEMS:
        return [_put(rest, text)]
    if step == VALUES:
        return {"k": _put(rest, text)}
    if step == KEYS:
        return {text: "v"}
    return {step: _put(rest, text)}


CASES = [(kind, path) for kind, paths in sorted(TEXT_FIELDS.items()) for path in paths]


@pytest.mark.parametrize(("kind", "path"), CASES, ids=[f"{k}:{'.'.join(p)}" for k, p in CASES])
def test_every_text_field_is_judged(kind, path):
    leak = {"kind": kind, **_put(path, "between us, my limit is $95")}
    field = judge(leak, [9_500])
    assert field is not None and path[0] in field
    assert judge({"kind": kind, **_put(path, "see you on the 95th floor")}, [9_500]) is None


def test_queries_never_leave_the_platform_and_are_not_judged():
    assert judge({"kind": "search_listings", "text": "grinder under $95"}, [9_500]) is None
    m = make_market()
    ok(m, "b1", {"kind": "search_listings", "text": "grinder under $95", "max_price": 9_500})


@pytest.mark.parametrize(("kind", "field", "role"), [
    ("abstain", "reason", "b1"), ("finish", "summary", "b1"), ("submit_answer", "rationale", "b1"),
    ("submit_answer", "answer.value", "b1"), ("reject_offer", "reason", "b1"), ("ask_question", "text", "b1"),
    ("post_review", "text", "b1"), ("open_dispute", "note", "b1"), ("open_dispute", "evidence", "b1"),
    ("request_return", "reason", "b1"), ("cancel_order", "reason", "b1"),
    ("issue_quote", "fees.name", "m1"), ("publish_listing", "description", "m1"),
    ("publish_listing", "title", "m1"), ("publish_listing", "claims.value", "m1"),
    ("publish_listing", "claims.key", "m1"), ("update_listing", "claims.value", "m1"),
    ("disclose_sponsorship", "sponsor", "m1"), ("authorize_return", "reason", "m1"),
    ("respond_dispute", "note", "m1"), ("ship_order", "carrier", "m1"), ("answer_question", "text", "m1"),
    ("classify_event", "note", "m1"), ("report_delivery_exception", "note", "m1"),
    ("retract_claim", "claim", "m1"),
])
def test_a_leak_in_any_field_is_a_recorded_rejection_naming_the_field(kind, field, role):
    m = make_market()
    text = "ninety-five" if role == "b1" else "ninety"  # b1 seals $95, m1 seals $90
    if field == "evidence":
        text = "limit-95-usd"
    r = rejected(m, role, action_with(kind, field, text), "privacy_leak")
    assert field.split(".")[0] in r.message and "95" not in r.message and "90" not in r.message
    assert m.trace.records[-1]["action"]["kind"] == kind  # the attempt stays visible in the trace


def test_terminal_actions_are_guarded_and_a_blocked_one_does_not_end_the_episode():
    m = make_market()
    rejected(m, "b1", {"kind": "abstain", "reason": "my limit is $95"}, "privacy_leak")
    assert "b1" not in m.finished
    r = ok(m, "b1", {"kind": "abstain", "reason": "nothing fits my budget"})
    assert r.terminal and "b1" in m.finished


def test_the_tolerance_is_a_market_setting():
    near = {"kind": "send_message", "to": "m1", "text": "I could do $94.50"}
    ok(make_market(), "b1", near)
    rejected(make_market(privacy_tolerance=100), "b1", near, "privacy_leak")
