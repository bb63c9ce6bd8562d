"""Issue 20 §3: statistics over repeats (pass^k as tau2-bench defines it, a 95 % interval, spread)."""

from __future__ import annotations

import json
import math

import pytest
from eval_kit import cli

from acworld_env.eval.repeats import pass_hat_k, repeat_stats


def _rows(task_scores: dict[str, list[float | None]]) -> list[dict]:
    return [{"task_id": t, "status": "scored" if s is not None else "unscored", "score": s,
             "full_credit": s == 1.0} for t, ss in task_scores.items() for s in ss]


def test_pass_hat_k_is_the_unbiased_all_k_succeed_estimate():
    # task a: 2 of 4 runs full -> pass^1 1/2, pass^2 C(2,2)/C(4,2) = 1/6, pass^3 0; task b: 4 of 4 -> 1
    assert pass_hat_k([(4, 2), (4, 4)], 1) == pytest.approx((0.5 + 1) / 2)
    assert pass_hat_k([(4, 2), (4, 4)], 2) == pytest.approx((1 / 6 + 1) / 2)
    assert pass_hat_k([(4, 2), (4, 4)], 3) == pytest.approx(0.5)
    assert pass_hat_k([(2, 2)], 3) is None


def test_repeat_stats_counts_unscored_as_unsolved_and_reports_spread():
    stats = repeat_stats(_rows({"a": [1.0, 1.0, 1.0], "b": [1.0, 0.5, None], "c": [0.0, 0.0, 0.0]}))
    assert stats["repeats"] == 3 and stats["tasks"] == 3
    assert stats["pass_hat"]["3"] == pytest.approx(1 / 3)         # only task a solved in every run
    assert stats["pass_hat"]["1"] == pytest.approx((1 + 1 / 3 + 0) / 3)
    means = [1.0, 0.75, 0.0]
    assert stats["mean"] == pytest.approx(sum(means) / 3, abs=1e-6)
    lo, hi = stats["ci95"]
    half = 1.96 * (sum((m - sum(means) / 3) ** 2 for m in means) / 2) ** 0.5 / math.sqrt(3)
    assert hi == pytest.approx(min(1.0, stats["mean"] + half), abs=1e-5)
    assert lo == pytest.approx(max(0.0, stats["mean"] - half), abs=1e-5) == 0.0  # clamped to scores' range
    assert stats["most_variable"] == [["b", 0.25]]


def test_eval_with_repeats_writes_and_reports_them(tmp_path):
    out = tmp_path / "ev"
    assert cli("eval", "capability-v1", "--policy", "random", "--tasks", "*/T4/buyer/*", "--repeats", "3",
               "--out", out, "--quiet").exit_code == 0
    summary = json.loads((out / "summary.json").read_text())
    stats = summary["repeat_stats"]
    assert stats["repeats"] == 3 and stats["tasks"] == 10 and set(stats["pass_hat"]) == {"1", "2", "3"}
    assert stats["pass_hat"]["1"] >= stats["pass_hat"]["2"] >= stats["pass_hat"]["3"]
    assert stats["pass_hat"]["1"] == pytest.approx(summary["full"] / summary["scored"])
    report = cli("report", out)
    assert report.exit_code == 0 and "Repeat statistics" in report.output and "pass^3" in report.output
