"""Reading an observation changes nothing; messages are taken when the actor acts (issue 13 §6)."""

from __future__ import annotations

import pytest

from acworld_env.catalog import CatalogError, open_catalog
from acworld_env.envs.aec import AcworldAECEnv
from acworld_env.episode import Episode
from acworld_env.tasks.suites import load_suite

IDLE = {"kind": "get_inbox", "unread_only": True}


def _task_with_messages():
    for t in load_suite("capability-v1", "frozen", 0):
        ep = Episode(t)
        if ep.market.inbox(t.actor):
            return t
    pytest.skip("no task delivers a message before the first action")


def test_observing_twice_gives_the_same_and_acting_takes_the_messages():
    task = _task_with_messages()
    ep = Episode(task)
    first = ep.observe(task.actor)
    assert first["inbox"] and ep.observe(task.actor) == first
    ep.act(task.actor, IDLE)
    assert {m["message_id"] for m in first["inbox"]}.isdisjoint(
        m["message_id"] for m in ep.observe(task.actor)["inbox"])


def test_env_observe_is_a_pure_read_and_a_blind_step_keeps_the_messages():
    task = _task_with_messages()
    env = AcworldAECEnv(tasks=[task])
    env.reset(seed=0)
    a = env.agent_selection
    before = env.raw_observation(a)["inbox"]
    assert before and env.raw_observation(a)["inbox"] == before
    env.step(IDLE)  # observed before acting: the messages were delivered
    shown = {m["message_id"] for m in before}
    assert shown.isdisjoint(m["message_id"] for m in env.raw_observation(a)["inbox"])
    env.reset(seed=0)
    env.step(IDLE)  # acted without observing: the messages stay new
    assert shown <= {m["message_id"] for m in env.raw_observation(a)["inbox"]}


def test_a_task_catalog_opens_once_by_name():
    assert open_catalog("capability-v1") is open_catalog("capability-v1")
    with pytest.raises(CatalogError, match="no catalog named 'nope'"):
        open_catalog("nope")
