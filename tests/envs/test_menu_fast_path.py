"""The action menu's fast path (role mask computed once, the i-th record without copying keys) gives
exactly the slot-by-slot menu, at every turn of reference episodes of every family, for both sides."""

from __future__ import annotations

from typing import Any

import pytest

import acworld_env
from acworld_env.envs.candidates import SLOTS, menu_actions
from acworld_env.envs.spaces import decode_observation
from acworld_env.policies.make import make_policy
from acworld_env.tasks.suites import load_suite

TASKS = load_suite("capability-v1")
ONE_PER_FAMILY_AND_ROLE = list({(t.family, t.role): t for t in TASKS}.values())


@pytest.mark.parametrize("task", ONE_PER_FAMILY_AND_ROLE, ids=lambda t: t.task_id)
def test_menu_equals_the_slot_by_slot_menu_at_every_turn(task: Any) -> None:
    env = acworld_env.make("capability-v1", task_id=task.task_id)
    env.reset(seed=0)
    policy = make_policy(task.reference)
    policy.reset(0)
    checked = available = 0
    for agent in env.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        known = env.unwrapped.known(agent)
        fast = menu_actions(known)
        assert fast == [slot.action(known) for slot in SLOTS]
        checked += 1
        available += sum(a is not None for a in fast)
        env.step(policy.act(decode_observation(obs)))
    assert checked >= 2 and available > checked  # real menus, not only idle slots
