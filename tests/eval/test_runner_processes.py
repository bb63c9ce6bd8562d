"""Runs spread over worker processes: the same artifacts and digests, Ctrl-C, a worker that dies."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from eval_kit import FakeChat, files_of, interrupt_after_runs, summary_of

from acworld_env.eval.config import EvalConfig
from acworld_env.eval.runner import run_eval
from acworld_env.eval.workers import default_processes, split_slots

pytestmark = pytest.mark.skipif(os.name != "posix", reason="worker processes need POSIX")

SPEC = "openai-compatible:fake-model"


@pytest.fixture(autouse=True)
def no_real_endpoint(monkeypatch):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def llm_config(out, url, **kw):
    return EvalConfig(env_id="capability-v1", policy=SPEC, out=out,
                      policy_options={"base_url": url, "max_retries": 0, "timeout": 20}, **kw)


def test_default_processes_only_for_llm_specs_at_many_slots():
    def cfg(policy, concurrency, processes=None):
        return EvalConfig(env_id="capability-v1", policy=policy, out=Path("x"), concurrency=concurrency,
                          processes=processes)

    cores = os.cpu_count() or 1
    assert default_processes(cfg("reference", 64), custom_factory=False) == 1
    assert default_processes(cfg(SPEC, 8), custom_factory=False) == 1
    assert default_processes(cfg(SPEC, 64), custom_factory=False) == min(cores, 2)
    assert default_processes(cfg(SPEC, 64), custom_factory=True) == 1
    assert default_processes(cfg("reference", 4, processes=3), custom_factory=False) == 3
    assert default_processes(cfg("reference", 2, processes=3), custom_factory=False) == 2
    assert split_slots(64, 2) == [32, 32] and split_slots(7, 3) == [3, 2, 2]


def test_processes_write_the_same_runs_and_root_digest(tmp_path):
    one = run_eval(EvalConfig(env_id="capability-v1", policy="reference", out=tmp_path / "one", tasks="*/T4/*",
                              concurrency=4, processes=1), progress=False)
    three = run_eval(EvalConfig(env_id="capability-v1", policy="reference", out=tmp_path / "three",
                                tasks="*/T4/*", concurrency=4, processes=3), progress=False)
    assert three["timing"]["processes"] == 3 and one["timing"]["processes"] == 1
    assert one["root_digest"] == three["root_digest"] and three["scored"] == 20
    runs_one, runs_three = files_of(tmp_path / "one" / "runs"), files_of(tmp_path / "three" / "runs")
    assert runs_one == runs_three
    assert (tmp_path / "one" / "manifest.json").read_bytes() == (tmp_path / "three" / "manifest.json").read_bytes()

    def rows(out):  # in plan order; wall time and folder differ by nature
        lines = (out / "results.csv").read_text().splitlines()
        return [line.rsplit(",", 2)[0] for line in lines]

    assert rows(tmp_path / "one") == rows(tmp_path / "three")


def test_llm_runs_in_workers_are_concurrent_and_complete(tmp_path):
    chat = FakeChat(delay=0.3)
    try:
        summary = run_eval(llm_config(tmp_path, chat.url, concurrency=8, processes=2, tasks="*/T4/*", repeats=2),
                           progress=False)
    finally:
        chat.close()
    assert summary["scored"] == 40 and summary["unscored"] == 0 and summary["timing"]["processes"] == 2
    assert chat.max_in_flight <= 8 and chat.requests == summary["usage"]["calls"] == 40
    seeds = {json.loads(p.read_text())["seed"] for p in (tmp_path / "runs").glob("*__r1/run.json")}
    assert seeds == {1}  # the second repeat of each task, wherever it ran


def _threads(pid: int) -> int:
    """Threads of process ``pid`` (0 when it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))


def _workers_of(pid: int) -> list[int]:
    """Worker processes started by ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid and b"acworld_env.eval.workers" in cmdline:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.timeout(240)
def test_a_worker_that_dies_leaves_unscored_runs_and_no_hang(tmp_path):
    chat = FakeChat(hold_after=0)  # every model call waits: runs stay in flight until the worker is killed
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(run_eval(
        llm_config(tmp_path, chat.url, concurrency=8, processes=2, tasks="*/T4/*"), progress=False)))
    try:
        thread.start()
        deadline = time.time() + 90
        while time.time() < deadline and not any(_threads(p) >= 4 for p in _workers_of(os.getpid())):
            time.sleep(0.02)  # until a worker runs episodes (two or more of its run threads have started)
        workers = _workers_of(os.getpid())
        assert workers, "no worker process started"
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        chat.release()
        thread.join(90)
        assert not thread.is_alive(), "the evaluation hung after its worker died"
    finally:
        chat.close()
    assert result["planned"] == 20 and result["scored"] + result["unscored"] == 20
    lost = {t: r for t, r in result["unscored_reasons"].items() if "worker process ended" in r}
    assert lost, result["unscored_reasons"]
    for task_id in lost:
        folder = tmp_path / "runs" / task_id.replace("/", "__")
        assert sorted(p.name for p in folder.iterdir()) == ["unscored.json"]


@pytest.mark.timeout(120)
def test_ctrl_c_with_worker_processes_exits_130_and_resumes(tmp_path):
    """A real SIGINT to a driver with a worker: exit 130, runs in flight stopped, summary written, resume."""
    slow = FakeChat(delay=0.2, hold_after=8)
    out = tmp_path / "out"
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from acworld_env.eval.runner import EvalConfig, EvalInterrupted, run_eval\n"
        f"cfg = EvalConfig(env_id='capability-v1', policy={SPEC!r}, out=Path({str(out)!r}), concurrency=4,\n"
        f"                 processes=2, policy_options={{'base_url': {slow.url!r}, 'max_retries': 0}})\n"
        "try:\n"
        "    run_eval(cfg, progress=False)\n"
        "except EvalInterrupted:\n"
        "    sys.exit(130)\n")
    try:
        proc, output = interrupt_after_runs([sys.executable, "-c", script], out, 6, endpoint=slow)
        assert proc.returncode == 130, output
        assert not _workers_of(proc.pid)
        s = summary_of(out)
        assert s["interrupted"] is True and s["scored"] >= 6 and s["missing"] > 0
        assert s["scored"] == len(list(out.glob("runs/*/score.json")))
        assert set(s["unscored_reasons"].values()) <= {"interrupted"}
        resumed = run_eval(EvalConfig(env_id="capability-v1", policy=SPEC, out=out, concurrency=8, resume=True,
                                      processes=2, policy_options={"base_url": slow.url, "max_retries": 0}),
                           progress=False)
        assert resumed["scored"] == resumed["planned"] == 200
        assert json.loads((out / "summary.json").read_text())["interrupted"] is False
    finally:
        slow.close()


def test_the_command_line_spreads_runs_over_processes_with_the_same_artifacts(tmp_path):
    from typer.testing import CliRunner

    from acworld_env.cli import app

    outs = {}
    for n in (1, 2):
        outs[n] = tmp_path / f"p{n}"
        result = CliRunner().invoke(app, ["eval", "capability-v1", "--policy", "reference", "--tasks", "*/T10/*",
                                          "--concurrency", "4", "--processes", str(n), "--out", str(outs[n]),
                                          "--quiet"])
        assert result.exit_code == 0, result.output
    one, two = summary_of(outs[1]), summary_of(outs[2])
    assert two["timing"]["processes"] == 2 and one["timing"]["processes"] == 1
    assert one["root_digest"] == two["root_digest"] and two["scored"] == 20
    assert files_of(outs[1] / "runs") == files_of(outs[2] / "runs")
    bad = CliRunner().invoke(app, ["eval", "capability-v1", "--policy", "reference", "--processes", "0"])
    assert bad.exit_code == 2
