"""Safe evaluation output: one evaluation per folder, checked before anything runs, honest about what it holds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from forge_kit import read_json
from typer.testing import CliRunner

from acworld_env.cli import app
from acworld_env.eval.out_lock import LOCK_FILE, OutputInUse
from acworld_env.eval.plan import run_dir_name
from acworld_env.eval.runner import EvalConfig, run_eval
from acworld_env.policies.make import make_policy
from acworld_env.tasks.names import POLICIES, register_policy

T4 = "capability-v1/T4/*"
T1 = "capability-v1/T1/*"


def cli(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


class _Crasher:
    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: dict) -> dict:
        raise RuntimeError("the policy crashed")


if "test-crasher" not in POLICIES:
    register_policy("test-crasher")(lambda: _Crasher())


@pytest.fixture(scope="module")
def t4_reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out") / "t4"
    result = cli("eval", "capability-v1", "--policy", "reference", "--tasks", T4, "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def t4_copy(t4_reference, tmp_path) -> Path:
    dst = tmp_path / "t4"
    shutil.copytree(t4_reference, dst)
    return dst


def test_resume_reverifies_kept_runs_and_reruns_a_tampered_one(t4_copy) -> None:
    runs = sorted((t4_copy / "runs").iterdir())
    bad = runs[2]
    task = read_json(bad / "task.json")
    task["predicates"][0]["weight"] = 0.5
    (bad / "task.json").write_text(json.dumps(task))
    result = cli("eval", "capability-v1", "--policy", "reference", "--tasks", T4, "--out", t4_copy, "--quiet",
                 "--resume")
    assert result.exit_code == 0, result.output
    assert f"run {bad.name} from before failed verification" in result.output
    summary = read_json(t4_copy / "summary.json")
    assert bad.name not in summary["resumed"] and len(summary["resumed"]) == len(runs) - 1
    assert summary["scored"] == len(runs) and summary["mean_score"] == 1.0
    assert read_json(bad / "task.json")["predicates"][0]["weight"] != 0.5
    assert cli("verify", t4_copy).exit_code == 0


def test_a_folder_held_by_a_live_evaluation_is_refused_and_a_stale_lock_taken_over(t4_copy) -> None:
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (t4_copy / LOCK_FILE).write_text(json.dumps({"pid": holder.pid}))
        before = {p: p.read_bytes() for p in t4_copy.rglob("*") if p.is_file()}
        result = cli("eval", "capability-v1", "--policy", "reference", "--tasks", T4, "--out", t4_copy, "--quiet")
        assert result.exit_code == 2
        assert f"in use by another evaluation (pid {holder.pid})" in result.output
        assert {p: p.read_bytes() for p in t4_copy.rglob("*") if p.is_file()} == before
    finally:
        holder.kill()
        holder.wait()
    result = cli("eval", "capability-v1", "--policy", "reference", "--tasks", T4, "--out", t4_copy, "--quiet")
    assert result.exit_code == 0, result.output
    assert f"took over a stale lock on {t4_copy} (left by pid {holder.pid}" in result.output
    assert not (t4_copy / LOCK_FILE).exists()


def test_two_evaluations_at_once_in_threads_one_refused(tmp_path) -> None:
    out = tmp_path / "shared"
    started, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def slow_factory(task, seed):
        started.set()
        release.wait(20)
        return make_policy(task.reference)

    def first() -> None:
        try:
            run_eval(EvalConfig(env_id="capability-v1", policy="reference", out=out, tasks=T4, concurrency=1),
                     progress=False, factory=slow_factory)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    worker = threading.Thread(target=first, daemon=True)
    worker.start()
    assert started.wait(20)
    with pytest.raises(OutputInUse, match="in use by another evaluation"):
        run_eval(EvalConfig(env_id="capability-v1", policy="random", out=out, tasks=T4), progress=False)
    release.set()
    worker.join(60)
    assert not worker.is_alive() and not errors
    assert read_json(out / "summary.json")["policy"] == "reference"
    assert cli("verify", out).exit_code == 0


def test_two_commands_at_once_never_mix_policies(tmp_path) -> None:
    out = tmp_path / "race"
    cmds = [[sys.executable, "-m", "acworld_env.cli", "eval", "capability-v1", "--policy", policy,
             "--tasks", T4, "--out", str(out), "--quiet"] for policy in ("reference", "random")]
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for c in cmds]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 2], outputs  # one ran; the other was refused (folder in use, or holds another policy)
    policies = {read_json(r / "run.json")["policy"] for r in (out / "runs").iterdir()}
    assert len(policies) == 1
    assert cli("verify", out).exit_code == 0


def test_a_subset_into_an_existing_folder_says_what_it_kept(t4_copy) -> None:
    result = cli("eval", "capability-v1", "--policy", "reference", "--tasks", T1, "--out", t4_copy, "--quiet")
    assert result.exit_code == 0, result.output
    assert "kept 20 verified run(s) from before" in result.output
    summary = read_json(t4_copy / "summary.json")
    assert summary["planned"] == summary["scored"] == 40
    assert len(summary["kept_from_before"]) == 20 and all("__T4__" in n for n in summary["kept_from_before"])
    assert set(summary["by_family"]) == {"T1_discovery", "T4_negotiation"}
    assert cli("verify", t4_copy).exit_code == 0


def test_a_folder_of_another_evaluation_is_refused(t4_copy) -> None:
    result = cli("eval", "capability-v1", "--policy", "reference", "--tasks", T4, "--out", t4_copy, "--quiet",
                 "--seed", "5")
    assert result.exit_code == 2
    assert "holds another evaluation (seed 0 (asked: 5))" in result.output


@pytest.mark.parametrize("make_out", [
    pytest.param(lambda tmp: (tmp / "a-file").write_text("x") and tmp / "a-file", id="existing-file"),
    pytest.param(lambda tmp: (tmp / "f").write_text("x") and tmp / "f" / "sub", id="under-a-file"),
])
def test_a_bad_out_is_refused_before_any_run(tmp_path, make_out) -> None:
    out = make_out(tmp_path)
    result = cli("eval", "capability-v1", "--policy", "reference", "--tasks", T4, "--out", out, "--quiet")
    assert result.exit_code == 2
    assert "error: " in result.output and "--out" in result.output
    assert "Traceback" not in result.output


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_out_is_refused(tmp_path) -> None:
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(0o555)
    result = cli("eval", "capability-v1", "--policy", "reference", "--tasks", T4, "--out", locked, "--quiet")
    assert result.exit_code == 2 and "not writable" in result.output


@pytest.mark.parametrize("task_id", ["..", "../x", "a/../b", "/abs", "a\\b", "", ".hidden/x", "a//b", "a__b"])
def test_unsafe_task_ids_never_become_paths(task_id) -> None:
    with pytest.raises(ValueError, match="not safe"):
        run_dir_name(task_id)


def test_exit_status_follows_unscored_runs(tmp_path) -> None:
    args = ["eval", "capability-v1", "--policy", "test-crasher", "--tasks", "capability-v1/T4/buyer/zopa/*",
            "--quiet"]
    result = cli(*args, "--out", tmp_path / "strict")
    assert result.exit_code == 1, result.output
    assert "unscored" in result.output and "the policy crashed" in result.output
    result = cli(*args, "--out", tmp_path / "lenient", "--allow-unscored")
    assert result.exit_code == 0, result.output
    verified = cli("verify", tmp_path / "lenient")
    assert verified.exit_code == 0 and "unscored" in verified.output


@pytest.mark.parametrize("args", [
    ["eval", "no-such-env"], ["eval", "capability-v1", "--policy", "no-such-policy"],
    ["verify", "/no/such/folder"], ["rescore", "/no/such/folder"], ["catalog", "stats", "/no/such/file.sqlite"],
])
def test_usage_and_input_errors_exit_2_everywhere(tmp_path, args) -> None:
    result = cli(*args, *(["--out", tmp_path / "o", "--quiet"] if args[0] == "eval" else []))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("task_id", ["..", "../../etc", "a/../b", ".x"])
def test_a_task_with_an_unsafe_id_is_refused_when_loaded(task_id, tmp_path) -> None:
    from pydantic import ValidationError

    from acworld_env.tasks.spec import TaskSpec
    from acworld_env.tasks.suites import load_suite

    data = load_suite("demo")[0].model_dump(mode="json")
    data["task_id"] = task_id
    with pytest.raises(ValidationError, match="not safe to use as a folder name"):
        TaskSpec.model_validate(data)
    keep = tmp_path / "keep.txt"
    keep.write_text("still here")
    assert keep.exists()
