"""The runner with the real LLM policy against a local fake endpoint: outages, concurrency, usage."""

from __future__ import annotations

import pytest
from eval_kit import FakeChat, cli, interrupt_after_runs

pytest.importorskip("acworld_env.policies.llm")

from acworld_env.eval.config import EpisodeCopies  # noqa: E402
from acworld_env.eval.plan import select_tasks  # noqa: E402
from acworld_env.eval.runner import EvalConfig, make_factory, run_eval  # noqa: E402
from acworld_env.tasks.frozen import load_frozen

N = len(load_frozen("capability-v1"))
"""Tasks in the frozen capability-v1 suite."""

SPEC = "openai-compatible:fake-model"


@pytest.fixture(autouse=True)
def no_real_endpoint(monkeypatch):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def chat():
    server = FakeChat(delay=1.0)  # long enough that all slots overlap even on a loaded machine
    yield server
    server.close()


def config(out, url, **kw):
    return EvalConfig(env_id="capability-v1", policy=SPEC, out=out,
                      policy_options={"base_url": url, "max_retries": 1, "backoff_base": 0.001, "timeout": 10},
                      **kw)


def test_model_calls_run_concurrently_up_to_the_concurrency(tmp_path, chat):
    summary = run_eval(config(tmp_path, chat.url, concurrency=8, tasks="*/T4/merchant/*"), progress=False)
    assert summary["scored"] == 10 and summary["unscored"] == 0
    assert chat.max_in_flight == 8  # neither a lock nor the provider's default slots (8 is the limit here)
    assert summary["usage"]["calls"] == 10 and summary["usage"]["input_tokens"] == 100
    assert cli("verify", tmp_path).exit_code == 0
    assert cli("rescore", tmp_path).exit_code == 0


def test_provider_outage_is_unscored_with_the_providers_reason(tmp_path):
    down = FakeChat(status=503)
    try:
        summary = run_eval(config(tmp_path, down.url, tasks="*/T4/buyer/zopa/0[12]"), progress=False)
    finally:
        down.close()
    assert summary["scored"] == 0 and summary["unscored"] == 2
    for reason in summary["unscored_reasons"].values():
        assert reason.startswith("ProviderError (server_error):")
    assert down.requests == 4  # two runs, one retry each


def test_llm_policies_are_built_once_and_copied_per_run(tmp_path, chat):
    task = select_tasks("capability-v1", "frozen", 0, "*/T4/buyer/zopa/01")[0]
    factory = make_factory(config(tmp_path, chat.url), task)
    assert isinstance(factory, EpisodeCopies)
    a, b = factory(task, 0), factory(task, 1)
    assert a is not b and a.adapter is b.adapter and a.conversation is not b.conversation


def test_llm_config_errors_stop_before_any_run(tmp_path):
    result = cli("eval", "capability-v1", "--policy", SPEC, "--out", tmp_path, "--quiet")
    assert result.exit_code == 2
    assert "base_url" in result.output or "base-url" in result.output
    assert not (tmp_path / "runs").exists()


@pytest.mark.timeout(120)
def test_ctrl_c_on_the_command_line_keeps_finished_runs(tmp_path):
    """A real SIGINT to ``acworld eval``: exit 130, finished runs kept, summary written, resume completes."""
    import json
    import sys

    slow = FakeChat(delay=0.2, hold_after=5)
    out = tmp_path / "out"
    args = [sys.executable, "-c", "from acworld_env.cli import main; main()", "eval", "capability-v1",
            "--policy", SPEC, "--base-url", slow.url, "--concurrency", "2", "--out", str(out), "--quiet"]
    try:
        proc, output = interrupt_after_runs(args, out, 3, endpoint=slow)
        assert proc.returncode == 130, output
        assert "interrupted" in output and "--resume" in output
        s = json.loads((out / "summary.json").read_text())
        assert s["interrupted"] is True and s["scored"] >= 3 and s["missing"] > 0
        assert s["scored"] == len(list(out.glob("runs/*/score.json")))
        resumed = cli("eval", "capability-v1", "--policy", SPEC, "--base-url", slow.url, "--concurrency", "8",
                      "--out", out, "--quiet", "--resume")
        assert resumed.exit_code == 0, resumed.output
        final = json.loads((out / "summary.json").read_text())
        assert final["scored"] == N and final["timing"]["runs_executed"] == N - s["scored"]
    finally:
        slow.close()
