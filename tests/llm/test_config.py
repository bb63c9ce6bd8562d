"""Specs, keys, prices, backoff and the response cache (no network)."""

from __future__ import annotations

import random

import pytest

from acworld_env.policies.llm import LLMConfigError, is_llm_spec, parse_spec
from acworld_env.policies.llm.cache import ResponseCache, request_key
from acworld_env.policies.llm.credentials import redact, resolve_api_key
from acworld_env.policies.llm.pricing import cost_usd, price_of
from acworld_env.policies.llm.retry import RetrySettings


def test_parse_spec():
    assert parse_spec("openai:gpt-4o-mini").wire == "openai"
    s = parse_spec("anthropic:claude-haiku-4-5")
    assert (s.provider, s.model, s.base_url, s.wire) == ("anthropic", "claude-haiku-4-5", None, "anthropic")
    s = parse_spec("openai-compatible:llama3.1:8b", "http://localhost:11434/v1")
    assert (s.model, s.base_url, str(s)) == ("llama3.1:8b", "http://localhost:11434/v1",
                                             "openai-compatible:llama3.1:8b")
    assert is_llm_spec("openai:gpt-4o") and not is_llm_spec("scripted_buyer") and not is_llm_spec("x:y")


def test_openai_compatible_accepts_the_sdk_variable(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
    assert parse_spec("openai-compatible:m").base_url is None  # the SDK reads the variable itself


def test_key_precedence(tmp_path, monkeypatch):
    f = tmp_path / "k"
    f.write_text("  from-file-key  \n")
    monkeypatch.setenv("OTHER", "from-other")
    assert resolve_api_key("openai", api_key_file=str(f), api_key_env="OTHER") == "from-file-key"
    assert resolve_api_key("openai", api_key_env="OTHER") == "from-other"
    assert resolve_api_key("openai") == "sk-test-SECRET123"
    monkeypatch.delenv("OPENAI_API_KEY")
    assert resolve_api_key("openai-compatible") == "EMPTY"
    with pytest.raises(LLMConfigError):
        resolve_api_key("openai")


def test_redact():
    assert redact("bad key sk-test-SECRET123 (..SECRET123)", ("sk-test-SECRET123",)) == "bad key *** (..S***)"
    assert redact("EMPTY stays", ("EMPTY",)) == "EMPTY stays"


def test_prices():
    assert price_of("openai", "gpt-4o-mini") == (0.15, 0.60)
    assert price_of("openai", "gpt-4o-mini-2024-07-18") == (0.15, 0.60)
    assert price_of("openai", "gpt-4o-2024-08-06") == (2.50, 10.00)
    assert price_of("anthropic", "claude-sonnet-4-20250514") == (3.00, 15.00)
    assert price_of("anthropic", "claude-3-5-haiku-latest") == (0.80, 4.00)
    assert price_of("openai", "gpt-4o-mini-audio-preview") is None
    assert price_of("openai", "some-new-model") is None
    assert price_of("openai-compatible", "gpt-4o") is None
    assert cost_usd((0.15, 0.60), 1000, 50) == pytest.approx(0.00018)
    assert cost_usd(None, 1000, 50) is None and cost_usd((1.0, 1.0), None, 5) is None


def test_backoff_grows_exponentially_with_jitter_and_cap():
    s = RetrySettings(backoff_base=1.0, backoff_max=10.0, rng=random.Random(1))
    delays = [s.delay(n) for n in range(6)]
    for n, d in enumerate(delays):
        ceiling = min(10.0, 2 ** n)
        assert ceiling / 2 <= d <= ceiling
    assert s.delay(0, retry_after=5.0) == 5.0 and s.delay(0, retry_after=99.0) == 10.0


def test_cache_roundtrip_and_key(tmp_path):
    k1 = request_key({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    k2 = request_key({"messages": [{"content": "hi", "role": "user"}], "model": "m"})
    k3 = request_key({"model": "m", "messages": [{"role": "user", "content": "hi!"}]})
    assert k1 == k2 != k3 and len(k1) == 64
    cache = ResponseCache(tmp_path)
    assert cache.get(k1) is None
    cache.put(k1, {"response": {"x": 1}})
    assert cache.get(k1)["response"] == {"x": 1}
    (tmp_path / k1[:2] / f"{k1}.json").write_text("{broken")
    assert cache.get(k1) is None
