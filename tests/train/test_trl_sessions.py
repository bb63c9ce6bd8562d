"""TRL at real batch shapes: 64 rollouts at once over both suites, and a lost call that leaves the next one
correct (issue 43 §4).

The trainer run is ``examples/grpo_trl.py`` with the tiny random model (nothing downloaded): eight tasks
(four of capability-v1, four of large-catalog-v1, routed by TRL's dict of environments), eight generations
each, a generation batch of 64, against a server that allows exactly 64 sessions, for two generations (the
second reuses the first's sessions). The lost call is a step the server answers later than the client waits.
"""

from __future__ import annotations

import importlib.util
import json
import time
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="the train extra is not installed (pip install -e '.[dev,train]')")
pytest.importorskip("torch", reason="the train extra is not installed (pip install -e '.[dev,train]')")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "grpo_trl.py"
TASK = "capability-v1/T4/buyer/private_value/01"


def _example():
    spec = importlib.util.spec_from_file_location("grpo_trl_example_sessions", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


@pytest.fixture
def server_of_64():
    """An OpenEnv server that refuses a 65th simultaneous session."""
    from acworld_env.integrations.openenv_app import create_openenv_app
    from acworld_env.remote.serve import ServerThread

    with ServerThread(app=create_openenv_app(max_concurrent_envs=64)) as url:
        yield url


@pytest.mark.timeout(420)
def test_64_sessions_at_once_over_both_suites_with_no_capacity_error(server_of_64, monkeypatch):
    from acworld_env.integrations.trl_env import AcworldTRLEnv

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    example = _example()
    tasks = ["capability-v1/T1/buyer/correct_abstention/0[1-4]", "large-catalog-v1/discovery/buyer/*/01"]
    args = example.parse_args(["--smoke", "--url", server_of_64, "--num-generations", "8",
                               "--generation-batch-size", "64", *[a for t in tasks for a in ("--tasks", t)]])
    rows = example.task_rows(args.tasks)
    assert len(rows) == 8 and {r["environment"] for r in rows} == {"capability-v1", "large-catalog-v1"}
    trainer, rollouts = example.train(args)
    assert trainer.state.global_step == 16  # two generations of 64, eight optimizer steps each
    assert len(rollouts) == 128
    assert AcworldTRLEnv.peak_sessions == 64  # every rollout of a batch on its own session, none leaked
    pools = {name: len(pool) for name, pool in trainer._environment_pool.items()}
    assert pools == {"capability-v1": 32, "large-catalog-v1": 32}
    # every rollout acted on the server, on the task its row named, and its reward is the env's score
    assert {r["task_id"] for r in rollouts} == {r["task_id"] for r in rows}
    assert all(r["steps"] >= 1 and r["reward"] == pytest.approx(r["score"]) for r in rollouts)
    per_task = {}
    for r in rollouts:
        per_task[r["task_id"]] = per_task.get(r["task_id"], 0) + 1
    assert set(per_task.values()) == {16}  # eight generations per prompt, in each of two batches
    scores = [r["score"] for r in rollouts]
    logged = [h["rewards/AcworldTRLEnv/mean"] for h in trainer.state.log_history if "rewards/AcworldTRLEnv/mean" in h]
    assert len(logged) == 2  # the trainer logs the env's reward once per generation: that batch's mean score
    assert logged == pytest.approx([sum(scores[:64]) / 64, sum(scores[64:]) / 64], abs=1e-6)


@pytest.fixture
def slow_server(monkeypatch):
    """A server whose step sleeps 1.5 s on an action mentioning ``slow-query``."""
    from acworld_env.integrations.openenv_app import create_openenv_app
    from acworld_env.integrations.openenv_env import AcworldOpenEnv
    from acworld_env.remote.serve import ServerThread

    original = AcworldOpenEnv.step

    def step(self, action, *args, **kwargs):
        if "slow-query" in json.dumps(action.model_dump(), default=str):
            time.sleep(1.5)
        return original(self, action, *args, **kwargs)

    monkeypatch.setattr(AcworldOpenEnv, "step", step)
    with ServerThread(app=create_openenv_app(max_concurrent_envs=8)) as url:
        yield url


@pytest.mark.timeout(120)
def test_a_call_that_times_out_leaves_the_next_call_correct(slow_server):
    from acworld_env.integrations.trl_env import AcworldTRLEnv

    lossy, clean = AcworldTRLEnv(slow_server, message_timeout=0.5), AcworldTRLEnv(slow_server)
    try:
        assert lossy.reset(task_id=TASK) == clean.reset(task_id=TASK)
        first = '{"query": "coffee grinder"}'
        assert lossy.act("search_catalog", first) == clean.act("search_catalog", first)
        lost = lossy.act("search_catalog", '{"query": "slow-query grinder"}')
        assert "not applied" in lost and lossy.recoveries == 1
        # the next calls answer their own action, as on a session that never lost one
        for tool, arguments in [("search_catalog", '{"query": "burr grinder"}'), ("finish", "{}")]:
            assert lossy.act(tool, arguments) == clean.act(tool, arguments)
        assert lossy.done and clean.done
        assert lossy.last.trace_digest == clean.last.trace_digest and lossy.last.score == clean.last.score
        assert lossy.get_reward() == pytest.approx(clean.get_reward())
        assert lossy.steps == clean.steps == 3  # the lost call is not counted: it was not applied
    finally:
        lossy._disconnect()
        clean._disconnect()
