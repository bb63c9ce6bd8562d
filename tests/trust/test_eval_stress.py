"""The main command at high concurrency, in fresh processes, repeatedly: it must never hang."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

RUNS = 5
"""Fresh processes (the deadlock struck on a process's first catalog touch, about 2 in 12)."""


@pytest.mark.timeout(RUNS * 60)
def test_eval_at_concurrency_8_never_hangs(tmp_path: Path) -> None:
    for i in range(RUNS):
        out = tmp_path / f"run{i}"
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "acworld_env.cli", "eval", "capability-v1", "--policy", "reference",
                 "--concurrency", "8", "--quiet", "--out", str(out)],
                capture_output=True, text=True, timeout=50)
        except subprocess.TimeoutExpired:
            pytest.fail(f"acworld eval --concurrency 8 hung (attempt {i + 1} of {RUNS})")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        summary = json.loads((out / "summary.json").read_text())
        assert summary["scored"] == summary["planned"] == 200
