"""Wrappers: discrete action menu with masks, LLM view, trace recorder, parallel conversion."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import acworld_env
from acworld_env.artifacts import verify_run
from acworld_env.envs import decode_observation
from acworld_env.envs.aec import AcworldAECEnv
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy
from acworld_env.vcp import VCPAction, parse_action
from acworld_env.wrappers import (
    LABELS,
    N_ACTIONS,
    ActionMenu,
    GymActionMenu,
    GymRecordTrace,
    LLMView,
    RecordTrace,
    tool_call_to_action,
)


def test_menu_passes_the_pettingzoo_tests():
    api_test(ActionMenu(acworld_env.make("capability-v1")), num_cycles=300)
    api_test(ActionMenu(acworld_env.make("capability-v1", counterparties="agents")), num_cycles=300)
    seed_test(lambda: ActionMenu(acworld_env.make("capability-v1", counterparties="agents")), num_cycles=100)


def test_menu_masks_only_valid_role_appropriate_actions():
    env = ActionMenu(acworld_env.make("capability-v1", counterparties="agents"))
    for seed in range(10):
        env.reset(seed=seed)
        env.action_space(env.agents[0]).seed(seed)
        for agent in env.agent_iter(120):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.shape == (N_ACTIONS,) and mask.dtype == np.int8 and mask.any()
            role = env.unwrapped.action_space(agent).role
            for _, _, action in env.describe(agent):
                parsed = parse_action(action)
                assert isinstance(parsed, VCPAction) and role in parsed.roles, action
            assert obs["observation"].shape == env.observation_space(agent)["observation"].shape
            env.step(env.action_space(agent).sample(mask))


def test_menu_can_play_the_demo_to_full_credit():
    env = ActionMenu(acworld_env.make("demo-v1"))
    env.reset(seed=0)
    plan = ["listing[0].get", "listing[0].offer@85%", "thread[0].order", "order[0].pay", "inbox", "finish"]
    for label in plan:
        available = {lab: i for i, lab, _ in env.describe("buyer_0")}
        assert label in available, (label, sorted(available))
        env.step(available[label])
    score = env.unwrapped.score
    assert score.full_credit
    assert "order[0].pay" not in {lab for _, lab, _ in env.describe("buyer_0")}  # paid once: masked
    assert len(LABELS) == N_ACTIONS


def test_masked_choice_submits_the_idle_action():
    env = ActionMenu(acworld_env.make("demo-v1"))
    env.reset(seed=0)
    env.last()
    masked = int(np.flatnonzero(env.observe("buyer_0")["action_mask"] == 0)[0])
    env.step(masked)
    assert env.unwrapped.infos["buyer_0"]["validation"]["kind"] == "get_inbox"


def test_gym_menu_passes_check_env_and_exposes_masks():
    env = GymActionMenu(gymnasium.make("acworld/capability-v1").unwrapped, text=True)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert env.action_masks().dtype == bool and env.action_masks().any()
    assert "text" in obs and env.observation_space.contains(obs)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_llm_view_messages_tools_and_tool_calls(provider):
    env = LLMView(acworld_env.make("demo-v1"), provider=provider)
    api_test(LLMView(acworld_env.make("capability-v1"), provider=provider), num_cycles=100)
    env.reset(seed=0)
    obs = env.observe("buyer_0")
    names = {t["name"] if provider == "anthropic" else t["function"]["name"] for t in obs["tools"]}
    assert {"propose_offer", "finish"} <= names and "ship_order" not in names
    assert "conical burr grinder" in json.dumps(obs["messages"])
    args = {"to": "merchant_0", "listing_id": "L-grinder", "unit_price": 8000}
    call = ({"type": "tool_use", "id": "x", "name": "propose_offer", "input": args} if provider == "anthropic"
            else {"id": "x", "type": "function", "function": {"name": "propose_offer", "arguments": json.dumps(args)}})
    env.step(call)
    msgs = env.observe("buyer_0")["messages"]
    assert env.unwrapped.infos["buyer_0"]["validation"]["code"] == "ok"
    if provider == "openai":
        assert msgs[0]["role"] == "system" and msgs[-2]["tool_calls"] and msgs[-1]["role"] == "tool"
        assert "Counter-offer" in msgs[-1]["content"]
    else:
        assert msgs[-2]["content"][0]["type"] == "tool_use" and msgs[-1]["content"][0]["type"] == "tool_result"
    env.step("I would rather chat than call a tool.")
    assert env.unwrapped.infos["buyer_0"]["validation"]["code"] == "malformed_json"


def test_tool_call_to_action_forms():
    want = {"kind": "finish", "summary": "ok"}
    assert tool_call_to_action({"name": "finish", "arguments": '{"summary": "ok"}'}) == want
    assert tool_call_to_action([{"function": {"name": "finish", "arguments": {"summary": "ok"}}}]) == want
    assert tool_call_to_action(json.dumps({"name": "finish", "input": {"summary": "ok"}})) == want
    assert tool_call_to_action(want) == want
    assert tool_call_to_action({"name": "finish", "arguments": "{oops"}) == "{oops"


def test_recorder_writes_the_same_artifacts_as_the_cli(tmp_path):
    env = RecordTrace(acworld_env.make("demo-v1"), tmp_path / "runs")
    env.reset(seed=0)
    task = env.unwrapped.task
    policy = make_policy(task.reference)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else policy.act(decode_observation(obs)))
    env.reset(seed=1)
    env.step({"kind": "get_balance"})
    env.close()
    assert len(env.saved) == 2
    cli = run_episode(task, make_policy(task.reference), seed=0, out_dir=tmp_path / "cli").out_dir
    for name in ("run.json", "trace.jsonl", "task.json", "score.json"):
        assert (env.saved[0] / name).read_bytes() == (cli / name).read_bytes(), name
    assert verify_run(env.saved[0]).ok and verify_run(env.saved[1]).ok
    assert json.loads((env.saved[1] / "run.json").read_text())["complete"] is False


def test_gym_recorder(tmp_path):
    env = GymRecordTrace(gymnasium.make("acworld/demo-v1").unwrapped, tmp_path)
    env.reset(seed=0)
    env.step({"kind": "abstain", "reason": "no thanks"})
    assert len(env.saved) == 1 and verify_run(env.saved[0]).ok
    assert isinstance(env.unwrapped.aec, AcworldAECEnv)


def test_menu_can_answer_a_market_notice_citing_it():
    """T10 credits an effect only when it cites the notice it answers: the menu offers exactly that."""
    env = ActionMenu(acworld_env.make("capability-v1", task_id="capability-v1/T10/buyer/duplicate_payment/01"))
    env.reset(seed=0)
    env.last()
    available = {lab: (i, a) for i, lab, a in env.describe("buyer_0")}
    label = "event[0].answer:authorize_payment"
    assert label in available, sorted(available)
    index, action = available[label]
    assert action["event_id"] and action["kind"] == "authorize_payment" and action["amount"] > 0
    assert "event[0].answer:issue_refund" not in available  # a payment notice asks for a payment only
    env.step(index)
    validation = env.unwrapped.infos["buyer_0"]["validation"]
    assert validation["kind"] == "authorize_payment" and validation["accepted"], validation
