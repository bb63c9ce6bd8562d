"""``examples/grpo_trl.py --smoke``: two GRPO steps of a tiny random model on CPU, nothing
downloaded; the rewards TRL logged are the env's scores for those rollouts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="the train extra is not installed (pip install -e '.[dev,train]')")
pytest.importorskip("torch", reason="the train extra is not installed (pip install -e '.[dev,train]')")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "grpo_trl.py"


@pytest.mark.timeout(240)
def test_smoke_two_steps_log_the_env_scores(openenv_url, monkeypatch):
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    spec = importlib.util.spec_from_file_location("grpo_trl_example", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    trainer, rollouts = example.train(example.parse_args(["--smoke", "--url", openenv_url]))
    assert trainer.state.global_step == 2 and len(rollouts) == 4  # two steps, two rollouts each
    # every rollout acted through the tool on the server, and its reward is the env's score for it
    assert all(r["steps"] >= 1 and r["reward"] == pytest.approx(r["score"]) for r in rollouts)
    assert {r["task_id"] for r in rollouts} == set(example.SMOKE_TASKS)
    assert any(r["score"] > 0 for r in rollouts)
    logged = [h for h in trainer.state.log_history if "reward" in h]
    assert len(logged) == 2
    for step, entry in enumerate(logged):
        scores = [r["score"] for r in rollouts[2 * step: 2 * step + 2]]
        assert entry["reward"] == pytest.approx(sum(scores) / 2)
        assert entry["rewards/AcworldTRLEnv/mean"] == pytest.approx(sum(scores) / 2)
    # the last batch's per-rollout rewards, as the trainer keeps them for its completion logs
    assert list(trainer._logs["rewards"]["AcworldTRLEnv"]) == pytest.approx([r["score"] for r in rollouts[-2:]])
