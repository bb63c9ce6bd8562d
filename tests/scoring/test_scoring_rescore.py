"""Rescoring from artifacts alone reproduces every saved score.json byte for byte; the CLI reports mismatches."""

from __future__ import annotations

import json
import shutil

import pytest
import typer
from typer.testing import CliRunner

from acworld_env.eval.scoring_cli import register
from acworld_env.scoring import score_json
from acworld_env.scoring.rescore import rescore_dir, rescore_run


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register(app)
    return app


def test_rescore_identity_on_every_demo_run(demo_runs):
    for name, run in demo_runs.items():
        saved = (run / "score.json").read_bytes()
        assert score_json(rescore_run(run)).encode() == saved, name


def test_demo_runs_cover_full_and_partial_credit(demo_runs):
    scores = {name: json.loads((run / "score.json").read_text()) for name, run in demo_runs.items()}
    assert scores["reference"]["full_credit"]
    assert not scores["overpay"]["full_credit"] and scores["overpay"]["credits"]["agreed_within_mandate"] == 0.0
    assert any(0.0 < s["score"] < 1.0 for s in scores.values())


def test_rescore_dir_over_a_folder_of_runs(demo_runs):
    root = demo_runs["reference"].parent
    results = rescore_dir(root)
    assert len(results) == len(demo_runs)
    for run, saved, recomputed, equal in results:
        assert equal and saved == recomputed, run


def test_cli_rescore_ok(app, demo_runs):
    result = CliRunner().invoke(app, ["rescore", str(demo_runs["reference"].parent)])
    assert result.exit_code == 0, result.output
    assert f"{len(demo_runs)}/{len(demo_runs)} runs rescored identically" in result.output
    assert "ok       " in result.output


def test_cli_rescore_names_the_differing_field(app, copy_run):
    run = copy_run("overpay")
    score = json.loads((run / "score.json").read_text())
    score["score"], score["credits"]["agreed_within_mandate"] = 1.0, 1.0
    (run / "score.json").write_text(json.dumps(score, indent=1, sort_keys=True) + "\n")
    result = CliRunner().invoke(app, ["rescore", str(run)])
    assert result.exit_code == 1
    assert f"MISMATCH {run}" in result.output
    assert "credits.agreed_within_mandate: saved 1.0, recomputed 0.0" in result.output
    assert "0/1 runs rescored identically" in result.output


def test_cli_rescore_same_values_different_bytes(app, copy_run):
    run = copy_run()
    score = json.loads((run / "score.json").read_text())
    (run / "score.json").write_text(json.dumps(score))
    result = CliRunner().invoke(app, ["rescore", str(run)])
    assert result.exit_code == 1
    assert "same values in different bytes" in result.output


def test_cli_rescore_missing_score_and_invalid_run(app, tmp_path, demo_runs):
    root = tmp_path / "runs"
    for name in ("reference", "overpay", "random-1"):
        shutil.copytree(demo_runs[name], root / name)
    (root / "overpay" / "score.json").unlink()
    (root / "random-1" / "trace.jsonl").unlink()
    result = CliRunner().invoke(app, ["rescore", str(root)])
    assert result.exit_code == 1, result.output
    assert f"MISMATCH {root / 'overpay'}" in result.output and "score.json is missing" in result.output
    assert f"INVALID  {root / 'random-1'}" in result.output
    assert "invalid run: missing artifact trace.jsonl" in result.output
    assert f"ok       {root / 'reference'}" in result.output
    assert "1/3 runs rescored identically" in result.output


def test_cli_rescore_no_runs(app, tmp_path):
    assert CliRunner().invoke(app, ["rescore", str(tmp_path / "nowhere")]).exit_code == 2
    assert CliRunner().invoke(app, ["rescore", str(tmp_path)]).exit_code == 2
