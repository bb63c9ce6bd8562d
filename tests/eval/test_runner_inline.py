"""One slot in one process: runs execute in the caller's thread, with the same outcomes and Ctrl-C rules."""

from __future__ import annotations

import json
import sys
import threading

import pytest
from eval_kit import FakeChat, interrupt_after_runs, reference_unless, summary_of

from acworld_env.eval.plan import UNSCORED_FILE
from acworld_env.eval.runner import EvalConfig, EvalInterrupted, run_eval
from acworld_env.policies.make import make_policy

T4 = "*/T4/*"


def test_concurrency_one_runs_in_the_calling_thread(tmp_path):
    seen: set[str] = set()

    def factory(task, seed):
        seen.add(threading.current_thread().name)
        return make_policy(task.reference)

    summary = run_eval(EvalConfig(env_id="capability-v1", policy="reference", out=tmp_path, concurrency=1,
                                  tasks=T4), progress=False, factory=factory)
    assert summary["scored"] == 20 and seen == {threading.current_thread().name}
    timing = summary["timing"]  # the pass's own CPU time, and the part of it in the kernel
    assert 0 <= timing["system_s"] <= timing["cpu_s"] and timing["cpu_s"] > 0


def test_an_interrupt_in_the_run_itself_leaves_it_unscored_and_the_rest_missing(tmp_path):
    stop_at = "capability-v1/T4/buyer/zopa/01"
    with pytest.raises(EvalInterrupted) as info:
        run_eval(EvalConfig(env_id="capability-v1", policy="reference", out=tmp_path, concurrency=1, tasks=T4),
                 progress=False, factory=reference_unless(lambda t: t.task_id == stop_at, lambda t: KeyboardInterrupt()))
    s = info.value.summary
    assert s == summary_of(tmp_path) and s["interrupted"] is True
    assert s["unscored_reasons"] == {stop_at: "interrupted"}
    assert s["scored"] >= 1 and s["missing"] >= 1 and s["scored"] + 1 + s["missing"] == 20
    run_dir = tmp_path / "runs" / stop_at.replace("/", "__")
    assert [p.name for p in run_dir.iterdir()] == [UNSCORED_FILE]


@pytest.mark.timeout(120)
def test_ctrl_c_at_concurrency_one_on_the_command_line(tmp_path):
    """A real SIGINT reaches the run in the driver's thread: exit 130, that run unscored, the summary written."""
    slow = FakeChat(delay=0.1, hold_after=5)
    out = tmp_path / "out"
    args = [sys.executable, "-c", "from acworld_env.cli import main; main()", "eval", "capability-v1",
            "--policy", "openai-compatible:fake-model", "--base-url", slow.url, "--concurrency", "1",
            "--out", str(out), "--quiet"]
    try:
        proc, output = interrupt_after_runs(args, out, 2, endpoint=slow)
    finally:
        slow.close()
    assert proc.returncode == 130, output
    s = json.loads((out / "summary.json").read_text())
    assert s["interrupted"] is True and s["scored"] >= 2 and s["missing"] > 0
    assert set(s["unscored_reasons"].values()) <= {"interrupted"} and s["unscored"] <= 1
    assert s["scored"] == len(list(out.glob("runs/*/score.json")))
