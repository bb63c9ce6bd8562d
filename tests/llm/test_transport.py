"""Calls: retries, timeouts, errors, endpoints, keys, concurrency and text-only tools."""

from __future__ import annotations

import threading

import pytest
from llm_kit import FAKE_KEY, an_text, an_tool, http_error, oa_text, oa_tool, slow

from acworld_env.policies.llm import LLMConfigError, ProviderError, policy_from_spec
from acworld_env.tasks.families.demo import build_demo_task

OBS = {
    "actor": "buyer_0", "role": "buyer", "round": 0, "step": 0, "max_steps": 12,
    "request": build_demo_task().request, "mandate": {"max_unit_price": 10000},
    "inbox": [], "last_result": None, "balance": 50000,
}


def openai_policy(fake, **kw):
    kw.setdefault("backoff_base", 0.001)
    return policy_from_spec("openai:gpt-4o-mini", base_url=fake.openai_url, **kw)


@pytest.mark.parametrize("status", [429, 500, 503, 529])
def test_retryable_status_then_success(fake_llm, status):
    fake_llm.script("openai", http_error(status, headers={"retry-after": "0"}), oa_tool("finish", {}))
    policy = openai_policy(fake_llm)
    assert policy.act(OBS) == {"kind": "finish"}
    assert fake_llm.count() == 2
    assert policy.last_meta["retries"] == 1 and "error" not in policy.last_meta


def test_anthropic_429_then_success(fake_llm):
    fake_llm.script("anthropic", http_error(429), http_error(429), an_tool("get_inbox", {"unread_only": True}))
    policy = policy_from_spec("anthropic:claude-haiku-4-5", base_url=fake_llm.url, backoff_base=0.001)
    assert policy.act(OBS) == {"kind": "get_inbox", "unread_only": True}
    assert policy.last_meta["retries"] == 2 and fake_llm.count("anthropic") == 3


def test_timeouts_raise_provider_error_after_retries(fake_llm):
    fake_llm.script("openai", *(slow(oa_tool("finish", {}), 1.0) for _ in range(3)))
    policy = openai_policy(fake_llm, timeout=0.2, max_retries=2)
    with pytest.raises(ProviderError) as info:
        policy.act(OBS)
    err = info.value
    assert err.reason == "timeout" and err.attempts == 3 and err.provider == "openai"
    assert fake_llm.count() == 3
    assert policy.last_meta["error"].startswith("timeout") and policy.last_meta["retries"] == 2


def test_retries_exhausted_on_server_errors(fake_llm):
    fake_llm.script("anthropic", *(http_error(503) for _ in range(3)))
    policy = policy_from_spec("anthropic:claude-haiku-4-5", base_url=fake_llm.url, backoff_base=0.001,
                              max_retries=2)
    with pytest.raises(ProviderError) as info:
        policy.act(OBS)
    assert info.value.reason == "server_error" and info.value.status == 503 and info.value.attempts == 3


def test_client_errors_are_not_retried_and_never_echo_the_key(fake_llm, caplog):
    fake_llm.script("openai", http_error(401, f"Incorrect API key provided: {FAKE_KEY}."))
    policy = openai_policy(fake_llm)
    with pytest.raises(ProviderError) as info:
        policy.act(OBS)
    assert info.value.reason == "http_401" and info.value.attempts == 1 and fake_llm.count() == 1
    assert FAKE_KEY not in str(info.value) and FAKE_KEY not in str(policy.last_meta)
    assert FAKE_KEY not in caplog.text


def test_a_failed_call_can_be_retried_by_the_caller(fake_llm):
    fake_llm.script("openai", http_error(400), oa_tool("finish", {}))
    policy = openai_policy(fake_llm)
    with pytest.raises(ProviderError):
        policy.act(OBS)
    assert policy.act(OBS) == {"kind": "finish"}
    assert [m["role"] for m in fake_llm.requests[-1]["body"]["messages"]] == ["system", "user"]


def test_sdk_environment_variables_keep_working(fake_llm, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.openai_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    fake_llm.script("openai", oa_tool("finish", {}))
    fake_llm.script("anthropic", an_tool("finish", {}))
    assert policy_from_spec("openai:gpt-4o-mini").act(OBS) == {"kind": "finish"}
    assert policy_from_spec("anthropic:claude-haiku-4-5").act(OBS) == {"kind": "finish"}
    assert all(FAKE_KEY in (r["auth"] or "") for r in fake_llm.requests)


def test_openai_compatible_endpoint(fake_llm, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    fake_llm.script("openai", oa_text('{"kind": "finish", "summary": "ok"}'))
    policy = policy_from_spec("openai-compatible:qwen2.5:7b-instruct", base_url=fake_llm.openai_url,
                              temperature=0.0, max_tokens=256)
    assert policy.act(OBS) == {"kind": "finish", "summary": "ok"}
    body = fake_llm.requests[0]["body"]
    assert body["model"] == "qwen2.5:7b-instruct" and body["temperature"] == 0.0 and body["max_tokens"] == 256
    assert fake_llm.requests[0]["auth"] == "Bearer EMPTY"
    assert policy.last_meta["cost_usd"] is None  # local model names are never priced
    with pytest.raises(LLMConfigError, match="base_url"):
        policy_from_spec("openai-compatible:qwen2.5")


def test_text_only_tools_for_endpoints_without_tool_calling(fake_llm):
    fake_llm.script("anthropic", an_text('Opening low.\n```json\n{"kind": "propose_offer", "to": "merchant_0", '
                                         '"listing_id": "L-grinder", "unit_price": 8000}\n```'))
    policy = policy_from_spec("anthropic:claude-haiku-4-5", base_url=fake_llm.url, native_tools=False)
    action = policy.act(OBS)
    assert action["kind"] == "propose_offer" and action["unit_price"] == 8000
    body = fake_llm.requests[0]["body"]
    assert "tools" not in body and "propose_offer:" in body["system"]


def test_only_the_first_tool_call_runs(fake_llm):
    fake_llm.script("openai", oa_tool("get_inbox", {}, extra_calls=1), oa_tool("finish", {}))
    policy = openai_policy(fake_llm)
    assert policy.act(OBS) == {"kind": "get_inbox"}
    result = {"kind": "get_inbox", "accepted": True, "code": "ok", "message": "", "result": [], "replayed": False}
    policy.act({**OBS, "step": 1, "last_result": result})
    tools = [m for m in fake_llm.requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert len(tools) == 2 and "Not executed" in tools[1]["content"]


def test_concurrency_limit_is_shared_per_endpoint(fake_llm):
    fake_llm.script("openai", *(slow(oa_tool("finish", {}), 0.15) for _ in range(4)))
    policies = [openai_policy(fake_llm, concurrency=1) for _ in range(4)]
    threads = [threading.Thread(target=p.act, args=(OBS,)) for p in policies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fake_llm.count() == 4 and fake_llm.max_in_flight == 1


def test_configuration_errors(tmp_path, monkeypatch):
    with pytest.raises(LLMConfigError, match="unknown policy spec"):
        policy_from_spec("gemini:flash")
    with pytest.raises(LLMConfigError, match="names no model"):
        policy_from_spec("openai:")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(LLMConfigError, match="ANTHROPIC_API_KEY"):
        policy_from_spec("anthropic:claude-haiku-4-5")
    empty = tmp_path / "key"
    empty.write_text("\n")
    with pytest.raises(LLMConfigError, match="empty"):
        policy_from_spec("anthropic:claude-haiku-4-5", api_key_file=empty)
    with pytest.raises(LLMConfigError, match="cannot read"):
        policy_from_spec("openai:gpt-4o", api_key_file=tmp_path / "missing")
    monkeypatch.setenv("MY_ROUTER_KEY", "sk-router-0000000000")
    policy = policy_from_spec("anthropic:claude-haiku-4-5", api_key_env="MY_ROUTER_KEY", base_url="http://127.0.0.1:9")
    assert "sk-router" not in repr(policy)
