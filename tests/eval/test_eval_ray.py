"""``--backend ray`` on a local Ray instance with 2 CPUs: the same artifacts and scores as local.

Ray start-up takes about 10-15 s here; the module starts one instance for all its tests (about
25 s in total), so it is not marked slow and runs in CI.
"""

from __future__ import annotations

import json
import sys

import pytest
from eval_kit import RUN_FILES, cli, files_of, summary_of

from acworld_env.eval.runner import EvalConfig, run_eval
from acworld_env.tasks.frozen import load_frozen

N = len(load_frozen("capability-v1"))
"""Tasks in the frozen capability-v1 suite."""


def test_ray_missing_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    result = cli("eval", "capability-v1", "--backend", "ray", "--out", tmp_path, "--quiet")
    assert result.exit_code == 2
    assert "pip install 'acworld-env[ray]'" in result.output
    assert not (tmp_path / "runs").exists()


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray")
    if ray.is_initialized():  # another test (RLlib) left its own instance running
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.timeout(180)
@pytest.mark.parametrize("policy", ["reference", "random"])
def test_ray_runs_are_identical_to_local_runs(ray_local, tmp_path, policy):
    local, remote = tmp_path / "local", tmp_path / "ray"
    base = {"env_id": "capability-v1", "policy": policy, "concurrency": 2}
    run_eval(EvalConfig(out=local, **base), progress=False)
    summary = run_eval(EvalConfig(out=remote, backend="ray", **base), progress=False)
    assert summary["backend"] == "ray" and summary["scored"] == N and summary["unscored"] == 0
    a, b = files_of(local / "runs"), files_of(remote / "runs")
    assert sorted(a) == sorted(b) and len(a) == N * len(RUN_FILES)
    for name in a:
        if name.endswith(("score.json", "run.json", "task.json", "trace.jsonl")):
            assert a[name] == b[name], name
    for name in (n for n in a if n.endswith("run.json")):
        la, lb = json.loads(a[name]), json.loads(b[name])
        assert (la["state_digest"], la["event_digest"], la["trace_digest"]) == \
            (lb["state_digest"], lb["event_digest"], lb["trace_digest"])
    ls, rs = summary_of(local), summary_of(remote)
    for key in ("mean_score", "full", "partial", "zero", "by_family", "by_role", "by_stage", "loss_attribution"):
        assert ls[key] == rs[key], key
    assert cli("verify", remote).exit_code == 0
    assert cli("rescore", remote).exit_code == 0


@pytest.mark.timeout(120)
def test_ray_backend_from_the_command_line_with_resume(ray_local, tmp_path):
    args = ["eval", "capability-v1", "--policy", "reference", "--backend", "ray", "--tasks", "*/T10/merchant/*",
            "--concurrency", "2", "--out", tmp_path, "--quiet"]
    first = cli(*args)
    assert first.exit_code == 0, first.output
    assert summary_of(tmp_path)["mean_score"] == 1.0
    victim = sorted((tmp_path / "runs").iterdir())[0]
    (victim / "score.json").unlink()
    again = cli(*args, "--resume")
    assert again.exit_code == 0, again.output
    s = summary_of(tmp_path)
    assert s["scored"] == s["planned"] == 12 and s["timing"]["runs_executed"] == 1
