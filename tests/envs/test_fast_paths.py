"""The step's shortcuts give what the plain calls they replace give (same dicts, same text, same checks)."""

from __future__ import annotations

import random

import pytest

from acworld_env.cip.checks import check_third_party
from acworld_env.cip.context import MarketView, RuleContext, RuleSettings
from acworld_env.cip.third_party import judge, others_own
from acworld_env.envs.spaces import _OUTSIDE, clean_text
from acworld_env.market import envelope_json
from acworld_env.trace import Trace, Validation, verify_trace
from acworld_env.vcp import Envelope, parse_action


@pytest.mark.parametrize("role", ["buyer", "merchant", None])
def test_envelope_json_is_the_models_json_dump(role):
    env = Envelope(envelope_id="env-0-00007", actor="buyer_0", role=role, round=3, seq=7, thread_id="thr-1",
                   in_reply_to=None, idempotency_key="k1")
    dumped = env.model_dump(mode="json")
    assert envelope_json(env) == dumped
    assert list(envelope_json(env)) == list(dumped)


def test_clean_text_shortcut_matches_the_full_replacement():
    rng = random.Random(3)
    chars = [chr(i) for i in range(0x250)] + ["\n"] * 20 + ["\t", "\ud800", "\uffff", "\U0001F600", "\x7f"]
    for _ in range(5000):
        text = "".join(rng.choice(chars) for _ in range(rng.randint(0, 16)))
        assert clean_text(text) == _OUTSIDE.sub("\ufffd", text), repr(text)


def test_trace_records_hash_their_own_json_form():
    trace = Trace()
    val = Validation("val-00001", "env-0-00001", "buyer_0", "search_listings", True, "ok", "")
    trace.append(round=0, actor="buyer_0", role="buyer", envelope={"envelope_id": "env-0-00001"},
                 action={"kind": "search_listings", "query": "grinder"}, validation=val, result={"items": []})
    trace.append(round=1, actor="buyer_0", role="buyer", envelope=None, action={"kind": "x"}, validation=val,
                 original_validation="val-00001", meta={"model": "m"})
    assert verify_trace(trace.records) == trace.digest
    assert trace.records[1].to_dict()["meta"] == {"model": "m"}
    assert "original_validation" in trace.records[1] and "meta" not in trace.records[0]


def test_recorded_action_is_dumped_once_and_equals_the_dump():
    action = parse_action({"kind": "send_message", "to": "merchant_0", "text": "hello"})
    env = Envelope(envelope_id="e", actor="buyer_0", role="buyer", round=0, seq=1)
    ctx = RuleContext({"actors": {}, "orders": {}}, env, None, RuleSettings(), MarketView())
    first = ctx.action_json(action)
    assert first == action.model_dump(mode="json", exclude_none=True)
    assert ctx.action_json(action) is first


def test_third_party_precheck_agrees_with_the_judge():
    state = {"orders": {"ORD-1": {"buyer": "buyer_1", "payment": "PAY-1"}, "ORD-2": {"buyer": None}}, "returns": {}}
    action = {"kind": "send_message", "to": "buyer_0", "text": "ORD-1 was paid"}
    assert others_own(state, "merchant_0") and judge(action, "merchant_0", state, {}) is not None
    assert not others_own(state, "buyer_1") and judge(action, "buyer_1", state, {}) is None
    assert not others_own({"orders": {}}, "merchant_0")
    model = parse_action(action)
    env = Envelope(envelope_id="e", actor="merchant_0", role="merchant", round=0, seq=1)
    with pytest.raises(Exception, match="third_party_data"):
        check_third_party(RuleContext(state, env, None, RuleSettings(), MarketView()), model)
