"""The 5x5 study script and the market benchmark run end to end (smoke tests, not timings)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _load(rel: str) -> object:
    spec = importlib.util.spec_from_file_location(rel.replace("/", "_")[:-3], REPO / rel)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_study_prints_allocation_ratios_and_reconstruction(capsys) -> None:
    assert _load("examples/market_study.py").main(["--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert "allocation matches the deterministic reference: True" in out
    assert "ratio to global optimum 98.6%  to exposed optimum 100.0%" in out
    assert "fallback" in out and "identical state and event digests" in out


def test_the_benchmark_runs_small(capsys) -> None:
    assert _load("benchmarks/bench_market.py").main(["--sizes", "5,10"]) == 0
    assert "every World reconstructed" in capsys.readouterr().out
