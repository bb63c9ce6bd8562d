"""examples/sb3_maskable_ppo.py and examples/rllib_ppo.py: a clear exit without torch, their evaluation
loops without it, and a short training run when the libraries are installed."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest

from acworld_env.tasks.frozen import load_frozen
from acworld_env.wrappers.rllib import AcworldRLlibEnv

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["sb3_maskable_ppo", "rllib_ppo"])
def test_without_the_libraries_the_example_says_what_to_install(name, tmp_path):
    module = _load(name)
    if not module.missing_libraries():
        pytest.skip("the training libraries are installed here")
    with pytest.raises(SystemExit) as exc:
        module.main(["--out", str(tmp_path / "x.json")])
    message = str(exc.value.code)
    assert "pip install 'acworld-env[rl]'" in message and "missing here: " in message and "torch" in message
    assert not (tmp_path / "x.json").exists()


def test_sb3_evaluation_loop_scores_each_task_by_family():
    module = _load("sb3_maskable_ppo")
    tasks = [t for t in load_frozen("capability-v1") if "/T1/" in t.task_id or "/T4/" in t.task_id][::5]
    figures = module.evaluate(tasks, module.first_allowed)
    assert set(figures) == {"T1_discovery", "T4_negotiation", "all"}
    assert all(0.0 <= v <= 1.0 for v in figures.values())


def test_rllib_evaluation_loop_plays_both_sides():
    module = _load("rllib_ppo")
    tasks = [t for t in load_frozen("capability-v1") if "/T4/" in t.task_id][::5]
    env = AcworldRLlibEnv({"counterparties": "agents", "tasks": tasks})
    acted: set[str] = set()

    def act(agent: str, obs: dict) -> int:
        acted.add(agent)
        return int(np.flatnonzero(obs["action_mask"])[-1])

    figures = module.play(env, act, [t.task_id for t in tasks])
    assert set(figures) == {"T4_negotiation", "all"} and {"buyer_0", "merchant_0"} <= acted


def test_sb3_trains_briefly_when_installed(tmp_path, capsys):
    module = _load("sb3_maskable_ppo")
    if module.missing_libraries():
        pytest.skip(f"needs {module.NEEDS}")
    out = tmp_path / "sb3.json"
    record = module.main(["--steps", "256", "--train-seeds", "2", "--tasks", "/T1/", "--out", str(out)])
    assert json.loads(out.read_text())["splits"] == record["splits"] and out.with_suffix(".png").exists()
    share = re.search(r"env share of training wall time: ([\d.]+) \(", capsys.readouterr().out)
    assert share is not None and 0.0 < float(share.group(1)) <= 1.0


def test_rllib_trains_briefly_when_installed(tmp_path):
    module = _load("rllib_ppo")
    if module.missing_libraries():
        pytest.skip(f"needs {module.NEEDS}")
    out = tmp_path / "rllib.json"
    record = module.main(["--iterations", "1", "--tasks", "*/T4/*", "--out", str(out)])
    assert set(record["curves"]) == {"buyer", "merchant"} and out.with_suffix(".png").exists()
