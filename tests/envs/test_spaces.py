"""Observation and action spaces: text charset, JSON round trip, action validation and sampling."""

from __future__ import annotations

import json

import numpy as np

import acworld_env
from acworld_env.envs import VCPActionSpace, decode_observation
from acworld_env.envs.spaces import (
    CHARSET,
    MAX_TEXT,
    NUMERIC_FIELDS,
    clean_text,
    encode_observation,
)
from acworld_env.vcp import TOOLS, parse_action


def test_contains_validates_with_the_protocol_and_the_role():
    space = VCPActionSpace("buyer")
    offer = {"kind": "propose_offer", "to": "merchant_0", "listing_id": "L-1", "unit_price": 500}
    assert space.contains(offer)
    assert space.contains(json.dumps(offer))
    assert space.contains(parse_action(offer))
    assert not space.contains({"kind": "ship_order", "order_id": "ord-0001"})  # merchant only
    assert not space.contains({**offer, "unit_price": -1})
    assert not space.contains("not json")
    assert not space.contains(3)
    assert VCPActionSpace("merchant").contains({"kind": "ship_order", "order_id": "ord-0001"})


def test_samples_are_valid_role_appropriate_and_use_seen_ids():
    env = acworld_env.make("capability-v1", counterparties="agents")
    kinds, mentioned = set(), 0
    for seed in range(25):
        env.reset(seed=seed)
        for agent in env.agent_iter(200):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            space = env.action_space(agent)
            action = space.sample()
            assert space.contains(action), action
            kinds.add(action["kind"])
            ids = [v for k, v in action.items() if k.endswith("_id") and isinstance(v, str)]
            mentioned += bool(ids)
            known = env.unwrapped.known(agent)  # everything the agent saw in earlier observations
            seen = obs["json"] + json.dumps([known.records, known.actors, known.request])
            assert all(i in seen for i in ids), (action, seen)
            env.step(action)
    assert len(kinds) >= 15 and mentioned > 50
    assert kinds <= set(TOOLS)


def test_sample_is_deterministic_per_seed():
    env = acworld_env.make("capability-v1")
    draws = []
    for _ in range(2):
        env.reset(seed=4)
        agent = env.agents[0]
        env.last()
        env.action_space(agent).seed(9)
        draws.append([env.action_space(agent).sample() for _ in range(20)])
    assert draws[0] == draws[1]


def test_text_is_sanitised_and_json_round_trips():
    raw = {"actor": "buyer_0", "role": "buyer", "round": 1, "step": 1, "max_steps": 5,
           "request": "Café crème grinder — 50% off 😀", "mandate": {"max_unit_price": 100}, "inbox": [],
           "last_result": None, "balance": 10**15}
    obs = encode_observation(raw, raw["request"])
    space = acworld_env.make("demo-v1").unwrapped.observation_space("buyer_0")
    assert space.contains(obs)
    assert obs["text"] == "Café crème grinder — 50% off \ufffd"
    assert decode_observation(obs) == raw  # emoji survive in ASCII JSON
    assert obs["balance"][0] == 10**12  # clipped into the box
    assert len(clean_text("x" * (MAX_TEXT + 10))) == MAX_TEXT
    assert "\u00e9" in CHARSET and "\u4e2d" in CHARSET and "\x00" not in CHARSET


def test_observations_are_role_private():
    env = acworld_env.make("capability-v1", counterparties="agents")
    for task in env.unwrapped.tasks:
        env.reset(seed=0, options={"task_id": task.task_id})
        for agent in env.agents:
            raw = decode_observation(env.observe(agent))
            mine = task.mandate if agent == task.actor else task.counterparty_mandates.get(agent, {})
            assert raw["mandate"] == mine
            for other, mandate in {task.actor: task.mandate, **task.counterparty_mandates}.items():
                if other != agent and mandate:
                    assert json.dumps(mandate, sort_keys=True) not in json.dumps(raw, sort_keys=True)


def test_numeric_fields():
    env = acworld_env.make("demo-v1")
    env.reset(seed=0)
    obs = env.observe("buyer_0")
    assert obs["step"].dtype == np.int64 and obs["steps_left"][0] == 12 and obs["last_accepted"] == 0
    env.step({"kind": "get_listing", "listing_id": "nope"})
    obs = env.observe("buyer_0")
    assert obs["step"][0] == 1 and obs["last_accepted"] == 2 and "REJECTED" in obs["text"]
    assert env.infos["buyer_0"]["validation"]["code"] == "unknown_listing"


def test_annotate_attaches_metadata_to_the_next_record():
    env = acworld_env.make("demo-v1")
    env.reset(seed=0)
    env.unwrapped.annotate({"model": "test-model", "latency_ms": 12})
    env.step({"kind": "get_balance"})
    env.step({"kind": "get_balance"})
    records = [r for r in env.unwrapped.episode.market.trace.records if r["actor"] == "buyer_0"]
    assert records[0]["meta"] == {"model": "test-model", "latency_ms": 12} and "meta" not in records[1]


def test_numeric_fields_are_clipped_to_their_declared_bounds():
    """Each numeric field is its value clipped into its ``NUMERIC_FIELDS`` box, below and above, in that order."""
    for sign in (-1, 1):
        huge = sign * 10**15
        raw = {"actor": "buyer_0", "role": "buyer", "round": huge, "step": huge, "max_steps": -huge, "request": "",
               "mandate": {}, "inbox": [{"message_id": str(i)} for i in range(10_001 if sign > 0 else 0)],
               "last_result": None, "balance": huge}
        obs = encode_observation(raw, "")
        values = {"step": huge, "steps_left": -2 * huge, "round": huge, "balance": huge, "inbox_size": len(raw["inbox"])}
        assert list(obs)[2:7] == list(NUMERIC_FIELDS)
        for name, (low, high) in NUMERIC_FIELDS.items():
            assert obs[name].shape == (1,) and obs[name].dtype == np.int64 and obs[name].strides == (8,)
            assert obs[name][0] == min(high, max(low, values[name])), name


def test_numeric_fields_of_other_number_types_are_their_int():
    """A step, round or balance given as a numpy integer, a float or a bool is read as ``int()`` of it."""
    base = {"actor": "buyer_0", "role": "merchant", "request": "", "mandate": {}, "inbox": [], "last_result": None}
    plain = encode_observation({**base, "round": 4, "step": 3, "max_steps": 9, "balance": -7}, "")
    for round_, step, max_steps, balance in [(np.int64(4), 3.9, 9, -7.5), (4.2, np.int32(3), 9.0, np.int64(-7)),
                                             (4, True + 2, 9, -7)]:
        obs = encode_observation({**base, "round": round_, "step": step, "max_steps": max_steps, "balance": balance}, "")
        for name in NUMERIC_FIELDS:
            assert obs[name].tolist() == plain[name].tolist() and obs[name].dtype == np.int64, name
    assert plain["steps_left"].tolist() == [6] and plain["balance"].tolist() == [-7] and plain["role"] == 1
