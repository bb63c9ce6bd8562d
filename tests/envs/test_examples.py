"""The examples and the benchmark run end to end (smoke tests, not timings)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load(relative: str):
    """The script at ``relative`` as a module, its folder on the import path as ``python SCRIPT`` puts it."""
    folder = str((ROOT / relative).parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(Path(relative).stem, ROOT / relative)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_random_rollout(capsys):
    scores = _load("examples/random_rollout.py").main(["--episodes", "3", "--seed", "1"])
    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)
    assert "score" in capsys.readouterr().out


def test_reference_rollout_prints_credits(capsys):
    scores = _load("examples/reference_rollout.py").main(["--env", "demo-v1"])
    out = capsys.readouterr().out
    assert scores == [1.0]
    assert "agreed_within_mandate=1" in out and "reward +0.450" in out  # paying earns its 0.45


def test_benchmark_runs():
    figures = _load("benchmarks/bench_env.py").main(["--env", "demo-v1", "--repeat", "1"])
    assert figures["steps_per_s"] > 0 and figures["noop_steps_per_s"] > 0


def test_the_two_tree_benchmark_compares_a_tree_with_itself():
    import subprocess

    out = subprocess.run([sys.executable, str(ROOT / "benchmarks/ab_env_loop.py"), str(ROOT), str(ROOT),
                          "--passes", "1", "--split", "frozen"], capture_output=True, text=True, timeout=600,
                         check=True, cwd=ROOT).stdout
    assert "frozen: base" in out and "new/base: CPU" in out
