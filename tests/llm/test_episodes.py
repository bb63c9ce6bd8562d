"""Whole demo episodes played by LLM policies through the real SDKs against the fake server."""

from __future__ import annotations

import json

import pytest
from llm_kit import DEMO_BUYER, FAKE_KEY, an_tool, files_containing, oa_text, oa_tool

from acworld_env.artifacts import verify_run
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.llm import policy_from_spec
from acworld_env.tasks.families.demo import build_demo_task


def make(fake, wire: str, **kw):
    spec = "anthropic:claude-haiku-4-5" if wire == "anthropic" else "openai:gpt-4o-mini"
    base = fake.url if wire == "anthropic" else fake.openai_url
    return policy_from_spec(spec, base_url=base, timeout=5, backoff_base=0.001, **kw)


def buyer_records(rollout):
    return [r for r in rollout.episode.market.trace.records if r["actor"] == "buyer_0"]


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_tool_calls_play_the_demo_to_full_score(fake_llm, tmp_path, wire, caplog):
    build = an_tool if wire == "anthropic" else oa_tool
    fake_llm.script(wire, *(build(name, args) for name, args in DEMO_BUYER))
    rollout = run_episode(build_demo_task(), make(fake_llm, wire), out_dir=tmp_path / "run")

    assert rollout.score.score == pytest.approx(1.0), rollout.score.credits
    assert verify_run(tmp_path / "run").ok
    assert fake_llm.count(wire) == len(DEMO_BUYER)
    records = buyer_records(rollout)
    assert [r["action"]["kind"] for r in records] == [n for n, _ in DEMO_BUYER]
    meta = records[0]["meta"]
    assert meta["provider"] == wire and meta["read"] == "tool_call" and meta["retries"] == 0
    assert meta["cache_hit"] is False and meta["latency_s"] >= 0
    assert meta["input_tokens"] > 0 and meta["output_tokens"] > 0 and meta["cost_usd"] > 0
    # the trace on disk carries the same metadata, and never the key
    on_disk = [json.loads(line) for line in (tmp_path / "run" / "trace.jsonl").read_text().splitlines()]
    assert any(r.get("meta", {}).get("model") == meta["model"] for r in on_disk)
    assert files_containing(tmp_path, FAKE_KEY) == []
    assert FAKE_KEY not in caplog.text


def test_openai_conversation_memory(fake_llm):
    fake_llm.script("openai", *(oa_tool(n, a) for n, a in DEMO_BUYER))
    run_episode(build_demo_task(), make(fake_llm, "openai"))
    first, second = fake_llm.requests[0]["body"], fake_llm.requests[1]["body"]
    assert first["messages"][0]["role"] == "system" and "buyer" in first["messages"][0]["content"]
    assert "max_unit_price" in first["messages"][1]["content"]  # the private mandate, for the policy only
    assert {t["function"]["name"] for t in first["tools"]} >= {"propose_offer", "place_order", "finish"}
    assert "temperature" not in first and "max_tokens" not in first  # provider defaults
    roles = [m["role"] for m in second["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "user"]
    assert second["messages"][2]["tool_calls"][0]["function"]["name"] == "propose_offer"
    tool_msg = second["messages"][3]
    assert tool_msg["tool_call_id"] == second["messages"][2]["tool_calls"][0]["id"]
    assert "thr-0001" in tool_msg["content"]
    assert "Counter-offer on thread thr-0001" in second["messages"][4]["content"]  # the inbox
    last = fake_llm.requests[-1]["body"]["messages"]
    assert len(last) == 1 + 5 * 3 - 2  # system + (user, assistant, tool) x 4 + user


def test_anthropic_conversation_memory(fake_llm):
    fake_llm.script("anthropic", *(an_tool(n, a, text="Thinking aloud.") for n, a in DEMO_BUYER))
    run_episode(build_demo_task(), make(fake_llm, "anthropic"))
    first, second = fake_llm.requests[0]["body"], fake_llm.requests[1]["body"]
    assert "buyer" in first["system"] and first["max_tokens"] == 4096
    assert {t["name"] for t in first["tools"]} >= {"propose_offer", "finish"}
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assistant = second["messages"][1]["content"]
    assert [b["type"] for b in assistant] == ["text", "tool_use"]
    result, text = second["messages"][2]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == assistant[1]["id"]
    assert "thr-0001" in result["content"] and text["type"] == "text"


def test_tolerant_reading_and_protocol_errors_are_recorded(fake_llm, tmp_path):
    fake_llm.script(
        "openai",
        oa_text('I will open low. {"kind": "propose_offer", "to": "merchant_0", "listing_id": "L-grinder", '
                '"unit_price": 8000}'),
        oa_text('```json\n{"kind": "counter_offer", "thread_id": "thr-0001", "unit_price": 9500\n```'),  # broken
        oa_text('Here you go:\n```json\n{"kind": "counter_offer", "thread_id": "thr-0001", '
                '"unit_price": 9500}\n```'),
        oa_tool("buy_now", {"listing_id": "L-grinder"}),  # not a tool
        oa_text('{"name": "place_order", "arguments": {"thread_id": "thr-0001"}}'),
        oa_tool("authorize_payment", '{"order_id": "ord-0001", "amount": 95'),  # cut-off arguments
        oa_tool("authorize_payment", {"order_id": "ord-0001", "amount": 9500}),
        oa_text("Sure, the weather is lovely today."),
        oa_tool("finish", {"summary": "done"}),
    )
    rollout = run_episode(build_demo_task(), make(fake_llm, "openai"), out_dir=tmp_path / "run")
    records = buyer_records(rollout)
    codes = [r["validation"]["code"] for r in records]
    reads = [r["meta"]["read"] for r in records]
    assert codes == ["ok", "malformed_json", "ok", "unknown_tool", "ok", "malformed_json", "ok",
                     "malformed_json", "ok"]
    assert reads == ["json_text", "raw", "json_text", "tool_call", "json_text", "tool_call_malformed",
                     "tool_call", "raw", "tool_call"]
    assert rollout.score is not None and rollout.score.score == pytest.approx(1.0)
    assert verify_run(tmp_path / "run").ok
    # a rejection is reported back to the model as the tool result / observation
    after_unknown = fake_llm.requests[4]["body"]["messages"]
    assert "unknown_tool" in after_unknown[-2]["content"]
    after_raw = fake_llm.requests[2]["body"]["messages"]
    assert "malformed_json" in after_raw[-1]["content"]


def test_prose_refusal_is_an_abstain_and_the_run_is_scored(fake_llm, tmp_path):
    fake_llm.script("openai", oa_text("I'm sorry, but I can't help with buying this grinder."))
    rollout = run_episode(build_demo_task(), make(fake_llm, "openai"), out_dir=tmp_path / "run")
    (record,) = buyer_records(rollout)
    assert record["action"]["kind"] == "abstain" and "can't help" in record["action"]["reason"]
    assert record["validation"]["accepted"] and record["meta"]["read"] == "refusal"
    assert rollout.episode.finished("buyer_0")
    assert rollout.score.score < 1.0
    assert verify_run(tmp_path / "run").ok


def test_cache_makes_a_rerun_free_and_identical(fake_llm, tmp_path):
    cache = tmp_path / "cache"
    fake_llm.script("openai", *(oa_tool(n, a) for n, a in DEMO_BUYER))
    first = run_episode(build_demo_task(), make(fake_llm, "openai", cache_dir=cache), out_dir=tmp_path / "a")
    calls = fake_llm.count()
    assert calls == len(DEMO_BUYER) and len(list(cache.rglob("*.json"))) == calls

    second = run_episode(build_demo_task(), make(fake_llm, "openai", cache_dir=cache), out_dir=tmp_path / "b")
    assert fake_llm.count() == calls  # zero HTTP requests
    metas = [r["meta"] for r in buyer_records(second)]
    assert all(m["cache_hit"] for m in metas) and all(m["cost_usd"] == 0.0 for m in metas)
    assert all(m["cached_cost_usd"] > 0 for m in metas)
    w1, w2 = first.episode.market.world, second.episode.market.world
    assert (w1.state_digest(), w1.event_digest) == (w2.state_digest(), w2.event_digest)
    assert second.score.score == first.score.score
    assert verify_run(tmp_path / "b").ok
    assert files_containing(tmp_path, FAKE_KEY) == []


def test_key_file_is_used_and_never_written(fake_llm, tmp_path, monkeypatch, caplog):
    monkeypatch.delenv("OPENAI_API_KEY")
    key_file = tmp_path / "secrets" / "key.txt"
    key_file.parent.mkdir()
    key_file.write_text(FAKE_KEY + "\n")
    fake_llm.script("openai", *(oa_tool(n, a) for n, a in DEMO_BUYER))
    policy = make(fake_llm, "openai", api_key_file=key_file, cache_dir=tmp_path / "run" / "cache")
    run_episode(build_demo_task(), policy, out_dir=tmp_path / "run")
    assert fake_llm.requests[0]["auth"] == f"Bearer {FAKE_KEY}"
    assert files_containing(tmp_path / "run", FAKE_KEY) == []
    assert FAKE_KEY not in caplog.text and FAKE_KEY not in repr(policy)
    assert FAKE_KEY not in json.dumps(policy.last_meta)
