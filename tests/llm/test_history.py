"""Conversation memory rendered for both wire formats, including a bounded window."""

from __future__ import annotations

import pytest

from acworld_env.policies.llm import ProviderError, policy_from_spec
from acworld_env.policies.llm.history import Conversation, Reply, ToolCall, Turn
from acworld_env.policies.llm.providers import AnthropicMessages, OpenAIChat


def conversation(n: int, max_turns: int | None) -> Conversation:
    conv = Conversation(system="sys", max_turns=max_turns)
    for i in range(n):
        reply = Reply(text=f"t{i}", tool_calls=[ToolCall(f"c{i}", "get_inbox", {})]) if i < n - 1 else None
        conv.turns.append(Turn(user=f"obs {i}", reply=reply, results=[(f"r{i}", False)] if reply else []))
    return conv


def test_openai_window_keeps_the_first_turn_and_pairs_every_tool_call():
    adapter = OpenAIChat(api_key="k", base_url="http://127.0.0.1:9/v1", timeout=1)
    msgs = adapter.build_request("m", conversation(5, 3), None, {})["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool", "user", "assistant", "tool", "user"]
    assert msgs[1]["content"] == "obs 0" and msgs[3]["tool_call_id"] == "c0"
    assert msgs[4]["content"].startswith("(2 earlier step(s) omitted") and msgs[4]["content"].endswith("obs 3")
    assert msgs[6]["tool_call_id"] == "c3" and msgs[7]["content"] == "obs 4"


def test_anthropic_window_alternates_roles_and_pairs_every_tool_use():
    adapter = AnthropicMessages(api_key="k", base_url="http://127.0.0.1:9", timeout=1)
    msgs = adapter.build_request("m", conversation(5, 3), None, {})["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant", "user"]
    assert [b["type"] for b in msgs[2]["content"]] == ["tool_result", "text"]
    assert msgs[2]["content"][0]["tool_use_id"] == "c0" and "omitted" in msgs[2]["content"][1]["text"]
    assert msgs[4]["content"][0]["tool_use_id"] == "c3" and msgs[4]["content"][1]["text"] == "obs 4"


def test_full_history_by_default():
    adapter = OpenAIChat(api_key="k", base_url="http://127.0.0.1:9/v1", timeout=1)
    msgs = adapter.build_request("m", conversation(5, None), None, {})["messages"]
    assert len(msgs) == 1 + 4 * 3 + 1


def test_connection_errors_are_retried_then_raise():
    policy = policy_from_spec("openai:gpt-4o-mini", base_url="http://127.0.0.1:9/v1", max_retries=1,
                              backoff_base=0.001, timeout=2)
    obs = {"actor": "buyer_0", "role": "buyer", "round": 0, "step": 0, "max_steps": 3, "request": "r",
           "mandate": {}, "inbox": [], "last_result": None, "balance": 0}
    with pytest.raises(ProviderError) as info:
        policy.act(obs)
    assert info.value.reason == "connection_error" and info.value.attempts == 2
