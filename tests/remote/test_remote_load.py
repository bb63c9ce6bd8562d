"""Under load: 64 concurrent HTTP episodes from one client process, every run verified and equal to its local run."""

from __future__ import annotations

from typing import Any

import pytest

import acworld_env
from acworld_env.artifacts import verify_run
from acworld_env.policies.make import make_policy
from acworld_env.remote.load import run_load, run_load_threads
from acworld_env.remote.parity import play

CONCURRENT = 64


@pytest.mark.timeout(400)
@pytest.mark.parametrize("load", [run_load, run_load_threads], ids=["asyncio-httpx", "threads"])
def test_64_concurrent_episodes_all_verified(server: tuple[str, Any], tasks: list[Any], load: Any) -> None:
    chosen = [tasks[(i * 7) % len(tasks)] for i in range(CONCURRENT)]
    report = load(server[0], chosen)
    assert len(report.summaries) == CONCURRENT
    assert len({s["episode_id"] for s in report.summaries}) == CONCURRENT
    local: dict[str, str] = {}
    env = acworld_env.make("capability-v1")
    for task in {t.task_id: t for t in chosen}.values():
        play(env, task, make_policy(task.reference))
        local[task.task_id] = env.unwrapped.episode.market.trace.digest
    for task, summary in zip(chosen, report.summaries, strict=True):
        assert summary["status"] == "scored" and summary["score"] == 1.0, summary
        assert summary["trace_digest"] == local[task.task_id]
        check = verify_run(summary["run_dir"])
        assert check.ok, check.message
    assert report.actions > CONCURRENT and report.wall > 0
