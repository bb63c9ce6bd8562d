"""Issue 11 §5: an API key never reaches an artifact or the response cache, even when a 200 reply
echoes it (the real openai/anthropic SDKs against ``tests/fake_chat.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_chat import FakeChat
from llm_kit import files_containing

from acworld_env.eval.runner import EvalConfig, run_eval
from acworld_env.policies.llm.credentials import redact, redact_value, secrets_in_use

KEYS = {"openai": "sk-proj-Echo0penAIkey7f3c9b2e41d8a6", "anthropic": "sk-ant-api03-EchoAnthropicKey5e2d8c1b9a"}
BASE = {"openai": lambda fake: fake.url, "anthropic": lambda fake: fake.root}


@pytest.fixture
def fake():
    server = FakeChat(echo_key=True)
    yield server
    server.close()


def evaluate(wire: str, fake: FakeChat, out: Path, cache: Path) -> dict:
    options = {"base_url": BASE[wire](fake), "cache_dir": str(cache), "max_retries": 0, "timeout": 10}
    config = EvalConfig(env_id="capability-v1", policy=f"{wire}:fake-model", out=out, policy_options=options,
                        tasks="*/T4/buyer/zopa/0[12]", concurrency=2)
    return run_eval(config, progress=False)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_echoed_key_reaches_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeChat,
                                    wire: str) -> None:
    for provider, key in KEYS.items():
        monkeypatch.setenv(f"{provider.upper()}_API_KEY", key)
    key = KEYS[wire]
    first = evaluate(wire, fake, tmp_path / "first", tmp_path / "cache")
    assert first["scored"] == 2 and fake.keys_seen == {key}  # the provider did see and echo the key
    calls = fake.requests
    second = evaluate(wire, fake, tmp_path / "second", tmp_path / "cache")
    assert second["scored"] == 2 and fake.requests == calls  # answered from the cache
    for secret in (key, key[-8:], KEYS["openai" if wire == "anthropic" else "anthropic"]):
        assert files_containing(tmp_path, secret) == [], secret
    traces = "".join(p.read_text() for p in (tmp_path / "second").rglob("trace.jsonl"))
    assert "done (auth ***)" in traces  # the echo was there, redacted


def test_redaction_covers_every_configured_key_at_any_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["openai"])
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["anthropic"])
    secrets = secrets_in_use()
    assert set(KEYS.values()) <= set(secrets)
    value = {"a": [f"x {KEYS['openai']} y", {"b": KEYS["anthropic"][-8:]}], KEYS["openai"]: 3, "n": 5}
    clean = redact_value(value, secrets)
    assert KEYS["openai"] not in repr(clean) and KEYS["anthropic"][-8:] not in repr(clean)
    assert clean["n"] == 5 and clean["a"][0] == "x *** y"
    escaped = '{"summary": "\\u0073' + KEYS["openai"][1:] + '"}'
    assert KEYS["openai"] not in redact(escaped, secrets).encode().decode("unicode_escape")
