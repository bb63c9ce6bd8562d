"""The full-size check (ACWORLD_SLOW=1): the frozen suite over large-v1 and the env's figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from acworld_env.tasks.frozen import load_frozen
from acworld_env.tasks.large.suite import SUITE, build_frozen


def test_frozen_file_shape() -> None:
    tasks = load_frozen(SUITE)
    assert len(tasks) == 60
    assert {t.catalog for t in tasks} == {"large-v1"}
    from acworld_env.catalog.synth.presets import PINNED_HASHES

    assert {t.initial_state["meta"]["catalog_hash"] for t in tasks} == {PINNED_HASHES["large-v1"]}


@pytest.mark.slow
def test_frozen_file_is_current_over_large_v1() -> None:
    from acworld_env.tasks.frozen import dump_tasks

    assert dump_tasks(build_frozen()) == dump_tasks(load_frozen(SUITE))


@pytest.mark.slow
def test_env_figures_on_large_v1() -> None:
    """Measured in a fresh process (this one already holds the builders' caches)."""
    bench = Path(__file__).resolve().parents[2] / "benchmarks"
    code = "import json, bench_large; print(json.dumps(bench_large.measure(['--queries', '200', '--resets', '50'])))"
    out = subprocess.run([sys.executable, "-c", code], cwd=bench, capture_output=True, text=True, check=True)
    f = json.loads(out.stdout.strip().splitlines()[-1])
    assert f["rss_mb"] <= 300 and f["private_after_episodes_mb"] <= 300
    assert f["reset_p95_ms"] <= 5
    assert f["track_search_p95_ms"] <= 10
