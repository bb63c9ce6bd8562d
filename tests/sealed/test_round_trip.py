"""The whole sealed round on loopback, through the commands: play remotely with an LLM policy against
a fake OpenAI-compatible endpoint, verify the signed result, reveal, regenerate, verify everything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fake_chat import FakeChat
from typer.testing import CliRunner

from acworld_env.cli import app

SPEC = "openai-compatible:fake-model"


def cli(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def chat():
    server = FakeChat()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def no_real_endpoint(monkeypatch):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def remote_eval(rnd, name: str, out: Path, *extra: str):
    return cli("eval", "capability-v1", "--remote", rnd.url, "--token-file", rnd.token_file(name), "--quiet",
               "--out", out, *extra)


def test_full_round_trip_with_an_llm_policy(sealed_round, chat, tmp_path):
    rnd = sealed_round
    out = tmp_path / "alice"
    res = remote_eval(rnd, "alice", out, "--policy", SPEC, "--base-url", chat.url, "--concurrency", "3")
    assert res.exit_code == 0, res.output
    assert chat.requests == 10  # the model ran here, once per task (it always finishes at once)
    result = json.loads((out / "signed_result.json").read_text())
    assert result["participant"] == "alice" and result["policy"] == SPEC
    assert result["planned"] == 10 and result["scored"] == 10 and result["unscored"] == 0
    assert set(result["by_family"]) and result["mean_score"] is not None
    assert result["commitment"] == json.loads((rnd.state_dir / "commitment.json").read_text())
    assert all(set(r) == {"slot", "status", "trace_digest", "event_digest", "state_digest", "score_digest"}
               for r in result["runs"])  # digests per run, never a per-task score
    journal = json.loads((out / "participation.json").read_text())
    assert journal["closed"] and len(journal["slots"]) == 10
    assert all(s["usage"]["calls"] == 1 for s in journal["slots"].values())
    assert "Root digest " + result["root_digest"] in res.output

    key = rnd.state_dir / "public_key.pem"
    ok = cli("verify", "--signed", out / "signed_result.json", "--public-key", key)
    assert ok.exit_code == 0, ok.output

    # a second submission with the same token is refused (one per token per round)
    again = remote_eval(rnd, "alice", tmp_path / "again", "--policy", SPEC, "--base-url", chat.url)
    assert again.exit_code == 2 and "no_submissions_left" in again.output

    # reveal a copy of the round (the session's round stays open for the other tests) and check it all
    state = tmp_path / "D"
    shutil.copytree(rnd.state_dir, state)
    export = tmp_path / "export"
    rev = cli("serve", "--sealed", "--state-dir", state, "--reveal", "--export", export)
    assert rev.exit_code == 0, rev.output
    reveal = json.loads((state / "reveal.json").read_text())
    assert reveal["secret"].encode() == rnd.secret and reveal["seed"] == rnd.sealed.rt.seed
    assert not (export / "host_key.pem").exists() and not (export / "tokens").exists()
    assert not (export / "participants.json").exists()
    full = cli("verify", export, "--reveal", state / "reveal.json")
    assert full.exit_code == 0, full.output
    assert f"alice-1: 10/10 runs verified, root digest {result['root_digest']}" in full.output
    # the plain verifier agrees: the submission is an ordinary evaluation folder of the revealed tasks
    plain = cli("verify", export / "submissions" / "alice-1", "--suite", export / "tasks.jsonl",
                "--expect", result["root_digest"])
    assert plain.exit_code == 0, plain.output
    # a closed round cannot be served again
    closed = cli("serve", "--sealed", "--state-dir", state)
    assert closed.exit_code == 2 and "closed" in closed.output

    # tampering after the reveal: an edited score file fails the whole check
    run = next((export / "submissions" / "alice-1" / "runs").iterdir())
    score = json.loads((run / "score.json").read_text())
    score["score"] = 1.0
    (run / "score.json").write_text(json.dumps(score))
    bad = cli("verify", export, "--reveal", state / "reveal.json")
    assert bad.exit_code == 1 and "FAIL" in bad.output


def test_a_wrong_secret_does_not_match_the_commitment(sealed_round, tmp_path):
    export = tmp_path / "x"
    export.mkdir()
    shutil.copyfile(sealed_round.state_dir / "commitment.json", export / "commitment.json")
    (tmp_path / "reveal.json").write_text(json.dumps({"secret": "not the secret of this round at all"}))
    res = cli("verify", export, "--reveal", tmp_path / "reveal.json")
    assert res.exit_code == 1 and "does not match the commitment's secret_digest" in res.output


def test_usage_errors_are_one_line(sealed_round, tmp_path):
    res = cli("eval", "capability-v1", "--remote", sealed_round.url, "--policy", "random", "--out", tmp_path)
    assert res.exit_code == 2 and "go together" in res.output
    res = remote_eval(sealed_round, "bob", tmp_path / "r", "--policy", "reference")
    assert res.exit_code == 2 and "reference plan" in res.output
    (tmp_path / "bad.token").write_text("")
    res = cli("eval", "capability-v1", "--remote", sealed_round.url, "--token-file", tmp_path / "bad.token",
              "--policy", "random", "--out", tmp_path / "o")
    assert res.exit_code == 2 and "does not hold one token" in res.output
    (tmp_path / "wrong.token").write_text("x" * 40)
    res = cli("eval", "capability-v1", "--remote", sealed_round.url, "--token-file", tmp_path / "wrong.token",
              "--policy", "random", "--out", tmp_path / "o2")
    assert res.exit_code == 2 and "unknown_credential" in res.output
    (tmp_path / "local").mkdir()
    (tmp_path / "local" / "manifest.json").write_text("{}")
    res = remote_eval(sealed_round, "bob", tmp_path / "local", "--policy", "random")
    assert res.exit_code == 2 and "holds a local evaluation" in res.output
    res = cli("verify", "--signed", tmp_path / "bad.token")
    assert res.exit_code == 2 and "--public-key" in res.output
    res = cli("serve", "--sealed", "--state-dir", tmp_path / "nothing")
    assert res.exit_code == 2 and "--secret-file" in res.output
    for r in (res,):
        assert "Traceback" not in r.output


def test_options_the_round_decides_are_refused_with_remote(sealed_round, tmp_path):
    res = remote_eval(sealed_round, "bob", tmp_path / "o", "--policy", "random", "--tasks", "*/T4/*",
                      "--repeats", "2")
    assert res.exit_code == 2 and "--tasks, --repeats cannot apply with --remote" in res.output
