"""examples/market_learning.py: the quick mode of the open-market learning study.

Two runs of the quick mode into separate folders give identical records (same seed, same curves);
a rerun reuses finished runs and retrains a run whose key does not match; the record has every
figure; the truthful baseline's welfare / optimum equals what the welfare module computes from the
deterministic reference allocation; and the learners learn (held-out rewards and welfare rise).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from acworld_env.open_market import MarketConfig, welfare
from acworld_env.open_market.mandates import draw
from acworld_env.open_market.reference import reference_allocation

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("market_learning", ROOT / "examples" / "market_learning.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["market_learning"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


ml = _load()


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The quick study run twice, each into its own run folder."""
    base = tmp_path_factory.mktemp("market_learning")
    first = ml.study(True, base / "a.json", base / "runs_a")
    second = ml.study(True, base / "b.json", base / "runs_b")
    return {"base": base, "first": first, "second": second}


def test_same_seed_same_curves(quick: dict[str, Any]) -> None:
    base = quick["base"]
    assert quick["first"] == quick["second"]
    assert (base / "a.json").read_bytes() == (base / "b.json").read_bytes()
    assert json.loads((base / "a.json").read_text()) == quick["first"]
    runs = sorted(p.name for p in (base / "runs_a").iterdir())
    assert runs == ["5x5_seed0.json", "5x5_seed1.json"]
    assert (base / "a.png").stat().st_size > 10_000


def test_rerun_reuses_matching_runs_and_retrains_stale_ones(quick: dict[str, Any]) -> None:
    base = quick["base"]
    folder = base / "runs_a"
    kept, stale = folder / "5x5_seed0.json", folder / "5x5_seed1.json"
    kept_stamp = kept.stat().st_mtime_ns
    data = json.loads(stale.read_text())
    data["key"], data["checkpoints"] = "stale", []
    stale.write_text(json.dumps(data))
    again = ml.study(True, base / "c.json", folder)
    assert kept.stat().st_mtime_ns == kept_stamp  # reused, not rewritten
    assert json.loads(stale.read_text()) == quick["first"]["runs"]["5x5"][1]  # retrained, written again
    assert again == quick["first"]
    assert not list(folder.glob("*.tmp"))


def test_record_has_every_figure(quick: dict[str, Any]) -> None:
    record = quick["first"]
    assert record["settings"]["seeds"] == {"5x5": [0, 1]}
    markets = record["settings"]["eval_markets"]["5x5"]
    assert markets == 6
    runs = record["runs"]["5x5"]
    assert [r["settings"]["seed"] for r in runs] == [0, 1]
    for r in runs:
        iterations = [c["iteration"] for c in r["checkpoints"]]
        assert iterations == [0, 25, 50, 75, 100, 125, 150]
        assert r["checkpoints"][0]["train"] is None
        assert set(r["checkpoints"][-1]["train"]) == {"buyer_reward", "merchant_reward", "welfare_ratio"}
        for c in r["checkpoints"]:
            assert set(c["eval"]) == set(ml.PAIRINGS)
            for figures in c["eval"].values():
                assert set(figures) == set(ml.METRICS)
                assert 0.0 <= figures["welfare_ratio"] <= 1.0
                assert 0.0 <= figures["trade_rate"] <= 1.0
                assert 0.0 <= figures["buyer_reward"] <= 1.0 and 0.0 <= figures["merchant_reward"] <= 1.0
                assert -0.1 <= figures["markup_listed"] <= 1.0  # the grid's range
        assert set(r["final_greedy"]) == set(ml.PAIRINGS)
    for kind in ("truthful", "random"):
        assert set(record["baselines"]["5x5"][kind]) >= set(ml.METRICS)
    curves = record["curves"]["5x5"]
    assert curves["iteration"] == iterations
    for p in ml.PAIRINGS:
        for m in ml.METRICS:
            band = curves[p][m]
            assert len(band["mean"]) == len(iterations)
            assert all(lo <= mid <= hi for lo, mid, hi in zip(band["min"], band["mean"], band["max"], strict=True)
                       if mid is not None)
        assert set(record["final"]["5x5"][p + "_greedy"]) == set(ml.METRICS)
    table = ml.markdown(record)
    assert "| 5x5 | truthful | - |" in table and "| 5x5 | both learned | end, greedy |" in table


def test_truthful_baseline_matches_the_welfare_module(quick: dict[str, Any]) -> None:
    record = quick["first"]
    markets = record["settings"]["eval_markets"]["5x5"]
    expected = []
    for market in range(markets):
        config = MarketConfig(5, 5, market, 2)
        mandates = draw(config)
        trades = list(reference_allocation(config).assignment.items())
        optimum, _ = welfare.global_optimum(mandates)
        expected.append(round(welfare.realised(mandates, trades) / optimum if optimum else 1.0, 6))
    truthful = record["baselines"]["5x5"]["truthful"]
    assert truthful["per_market_welfare_ratio"] == expected
    assert truthful["welfare_ratio"] == pytest.approx(sum(expected) / len(expected), abs=1e-6)
    assert record["baselines"]["5x5"]["random"]["welfare_ratio"] < truthful["welfare_ratio"]


def test_both_sides_learn(quick: dict[str, Any]) -> None:
    for r in quick["first"]["runs"]["5x5"]:
        start, end = r["checkpoints"][0]["eval"], r["checkpoints"][-1]["eval"]
        both = start["learned"], end["learned"]
        assert both[1]["merchant_reward"] > both[0]["merchant_reward"] + 0.05
        assert both[1]["buyer_reward"] > both[0]["buyer_reward"] + 0.03
        assert both[1]["welfare_ratio"] > both[0]["welfare_ratio"] + 0.1
        assert end["learned_merchants"]["merchant_reward"] > start["learned_merchants"]["merchant_reward"] + 0.05
        assert end["learned_buyers"]["buyer_reward"] > start["learned_buyers"]["buyer_reward"] + 0.02
