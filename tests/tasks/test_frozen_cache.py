"""Frozen task specs are read once per process and shared: nothing an episode does may change them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import acworld_env
from acworld_env.envs import decode_observation
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy
from acworld_env.tasks import frozen
from acworld_env.tasks.frozen import frozen_path, load_frozen


def _dumps(tasks: list) -> list[dict]:
    return [t.model_dump(mode="json") for t in tasks]


def test_two_loads_share_the_specs_and_every_episode_leaves_them_as_read() -> None:
    first, second = load_frozen("capability-v1"), load_frozen("capability-v1")
    assert first is not second and len(first) == 200 and all(a is b for a, b in zip(first, second, strict=True))
    envs = [acworld_env.make("capability-v1"), acworld_env.make("capability-v1", counterparties="agents")]
    assert all(a is b for a, b in zip(envs[0].unwrapped.tasks, first, strict=True))
    for task in first:
        for env in envs:  # every reference through both envs, the other actors scripted or idle
            env.reset(seed=0, options={"task_id": task.task_id})
            policy = make_policy(task.reference)
            policy.reset(0)
            for agent in env.agent_iter(max_iter=400):
                obs, _, term, trunc, _ = env.last()
                act = None if term or trunc or agent != task.actor else policy.act(decode_observation(obs))
                env.step(act)
        for mutation in task.mutations:
            run_episode(task, make_policy(mutation.policy))
    assert _dumps(first) == _dumps(frozen._read_tasks(frozen_path("capability-v1")))


def test_a_file_that_changes_on_disk_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = frozen_path("capability-v1").read_text(encoding="utf-8").splitlines(keepends=True)
    fake = tmp_path / "suite.jsonl"
    fake.write_text("".join(lines[:3]), encoding="utf-8")
    monkeypatch.setattr(frozen, "frozen_path", lambda suite: fake)
    assert [t.task_id for t in load_frozen("x")] == [json.loads(line)["task_id"] for line in lines[:3]]
    fake.write_text("".join(lines[:5]), encoding="utf-8")
    assert len(load_frozen("x")) == 5
    fake.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1: not a task spec"):
        load_frozen("x")
