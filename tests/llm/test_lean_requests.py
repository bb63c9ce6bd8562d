"""The lean request path sends what the SDK would: the same body, tool schemas encoded once, same skills."""

from __future__ import annotations

import json
import re

from llm_kit import oa_tool

from acworld_env.policies.llm import policy_from_spec
from acworld_env.policies.llm.policy import tool_schemas
from acworld_env.policies.llm.providers.openai_chat import encode_request
from acworld_env.policies.llm.skills import _matches, load_skills, select_skills, situation_text
from acworld_env.tasks.families.demo import build_demo_task
from acworld_env.tasks.frozen import load_frozen
from acworld_env.vcp import anthropic_tools, openai_tools

OBS = {
    "actor": "buyer_0", "role": "buyer", "round": 0, "step": 0, "max_steps": 12,
    "request": build_demo_task().request, "mandate": {"max_unit_price": 10000},
    "inbox": [], "last_result": None, "balance": 50000,
}


def sdk_bytes(body: dict) -> bytes:
    """How the ``openai`` SDK encodes a JSON body (``openai._utils._json.openapi_dumps``)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def test_tool_schemas_are_built_once_per_wire_and_role():
    for role in ("buyer", "merchant"):
        assert tool_schemas("openai", role) is tool_schemas("openai", role)
        assert tool_schemas("openai", role) == openai_tools(role)
        assert tool_schemas("anthropic", role) == anthropic_tools(role)


def test_encoded_request_is_the_sdk_encoding_with_the_tools_last():
    tools = tool_schemas("openai", "merchant")
    request = {"model": "m", "messages": [{"role": "user", "content": "prix: 9 500 ¢ \u2014 \"quoted\""}],
               "tools": tools, "temperature": 0.0}
    body = encode_request(request)
    assert body == sdk_bytes({"model": "m", "messages": request["messages"], "temperature": 0.0, "tools": tools})
    assert json.loads(body) == request
    assert encode_request(request) == body  # the kept encoding of the tools is reused as is
    no_tools = {"model": "m", "messages": []}
    assert encode_request(no_tools) == sdk_bytes(no_tools)


def test_an_equal_but_different_tool_list_is_encoded_afresh():
    tools = [dict(t) for t in tool_schemas("openai", "buyer")]
    tools[0] = {**tools[0], "function": {**tools[0]["function"], "description": "changed"}}
    request = {"model": "m", "messages": [], "tools": tools}
    assert json.loads(encode_request(request)) == request


def test_the_endpoint_receives_the_request_the_adapter_built(fake_llm):
    fake_llm.script("openai", oa_tool("get_inbox", {"unread_only": True}), oa_tool("finish", {}))
    policy = policy_from_spec("openai:gpt-4o-mini", base_url=fake_llm.openai_url, temperature=0.5)
    sent = []
    build = policy.adapter.build_request

    def recording(*args, **kw):
        sent.append(build(*args, **kw))
        return sent[-1]

    policy.adapter.build_request = recording
    policy.act(OBS)
    policy.act({**OBS, "step": 1, "last_result": {"accepted": True, "code": "ok", "result": {"messages": []}}})
    received = [r["body"] for r in fake_llm.requests]
    assert received == sent and len(sent) == 2
    assert received[0]["tools"] == openai_tools("buyer") and received[0]["temperature"] == 0.5


def _matches_by_regex_only(skill, text):
    """Skill matching as it was before the substring pre-check."""
    hits = sum(1 for k in skill.keywords if re.search(rf"(?<![a-z0-9]){re.escape(k)}", text))
    return hits + sum(1 for t in skill.tools if t.replace("_", " ") in text)


def test_skill_matching_is_unchanged_on_every_frozen_task():
    skills = load_skills()
    texts = [situation_text({"request": task.request, "mandate": dict(task.mandate or {})})
             for task in load_frozen("capability-v1")]
    texts += [s.body.lower().replace("_", " ") for s in skills]  # texts full of keywords, in and out of words
    for text in texts:
        for skill in skills:
            assert _matches(skill, text) == _matches_by_regex_only(skill, text), (text[:60], skill.name)
        for role in ("buyer", "merchant"):
            select_skills(skills, role, text)  # runs without error on every task
