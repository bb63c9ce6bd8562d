"""Issue 20 §4-5: a CLI that explains itself: --version, tasks, policies, one exit-code convention."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from eval_kit import cli

from acworld_env.eval.progress import ProgressBar
from acworld_env.tasks.suites import load_suite


def test_version_is_the_installed_one():
    result = cli("--version")
    assert result.exit_code == 0 and result.output.strip() == f"acworld-env {version('acworld-env')}"


def test_help_documents_the_exit_codes():
    out = cli("--help").output
    for fragment in ("0 success", "1 a check failed", "2 a usage or input error", "130 interrupted"):
        assert fragment in " ".join(out.split()), fragment


def test_tasks_lists_the_suite_filtered_by_family_and_role():
    frozen = load_suite("capability-v1")
    result = cli("tasks", "capability-v1", "--family", "T4", "--role", "merchant", "--json")
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.output.splitlines()]
    want = [t for t in frozen if t.family == "T4_negotiation" and t.role == "merchant"]
    assert [r["task_id"] for r in rows] == [t.task_id for t in want] and rows
    assert all(r["request"] == t.request for r, t in zip(rows, want, strict=True))
    text = cli("tasks").output
    assert f"capability-v1 (frozen): {len(frozen)} tasks" in text and frozen[-1].task_id in text


def test_policies_lists_builtins_forms_and_shortcuts():
    out = cli("policies").output
    for name in ("reference", "random", "openai:MODEL", "anthropic:MODEL", "openai-compatible:MODEL", "idle",
                 "scripted_merchant", "T4_negotiation: accept_first"):
        assert name in out, name


@pytest.mark.parametrize("args", [
    ["tasks", "no-such-suite"], ["tasks", "--role", "cashier"], ["tasks", "--family", "T99"],
    ["eval", "no-such-suite", "--quiet"], ["eval", "capability-v1", "--policy", "nobody", "--quiet"],
    ["report", "/nonexistent/eval"], ["verify", "/nonexistent/eval"], ["rescore", "/nonexistent/eval"],
    ["validate", "no-such-suite"], ["catalog", "stats", "/nonexistent.sqlite"],
    ["catalog", "search", "capability-v1", "--max-price", "ten"], ["eval", "--no-such-option"],
])
def test_every_usage_or_input_error_exits_2_with_one_line_and_no_traceback(args, tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "acworld_env.cli", *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 2, (args, text)
    assert "Traceback" not in text and "error" in text.lower(), (args, text)


def test_progress_says_unscored_instead_of_a_mean_when_nothing_is_scored():
    bar = ProgressBar(3, 0, enabled=False)
    for _ in range(2):
        bar._count({"status": "unscored"})
    assert bar.stats() == "2 unscored"
    bar._count({"status": "scored", "score": 0.5})
    assert bar.stats() == "mean 0.500  unscored 2"
