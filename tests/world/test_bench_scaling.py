"""``bench_world.py --scaling``: one fresh process per size, one table, digests and encodings checked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_world.py"


def test_the_scaling_table_states_its_workload_and_counts_one_encoding_per_commit() -> None:
    out = subprocess.run([sys.executable, str(BENCH), "--scaling", "4,8", "--runs", "1"],
                         capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "the probe's workload" in text and "6n commits" in text and "non-durable SQLite log" in text
    rows = [line.split() for line in text.splitlines() if line.split()[:1] in (["4"], ["8"])]
    assert [(r[0], r[1]) for r in rows] == [("4", "24"), ("8", "48")]  # 6n commits
    for r in rows:
        assert "match" in r
        assert abs(float(r[r.index("match") - 1]) - (1 + 1 / int(r[1]))) < 1e-4  # per commit, plus the state digest
    assert text.rstrip().endswith("reproduced both digests")
