"""The README's evaluation commands, end to end: eval, report, verify, rescore, resume."""

from __future__ import annotations

import csv
import json
import re

import pytest
from eval_kit import RUN_FILES, cli, summary_of

from acworld_env.tasks.capability import CAPABILITY_FAMILIES
from acworld_env.tasks.frozen import load_frozen

N = len(load_frozen("capability-v1"))
"""Tasks in the frozen capability-v1 suite."""

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# -- eval -----------------------------------------------------------------------------------------

def test_quick_start_command_writes_the_default_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("eval", "capability-v1", "--policy", "reference", "--tasks", "*/T4/buyer/zopa/0[12]", "--quiet")
    assert result.exit_code == 0, result.output
    out = tmp_path / "runs" / "capability-v1" / "reference"
    assert summary_of(out)["mean_score"] == 1.0
    assert "acworld verify runs/capability-v1/reference" in result.output


def test_reference_gets_full_credit_on_every_task(reference_eval):
    s = summary_of(reference_eval)
    assert s["env_id"] == "capability-v1" and s["policy"] == "reference"
    assert s["planned"] == s["scored"] == s["full"] == N and s["unscored"] == s["missing"] == 0
    assert s["mean_score"] == 1.0
    assert s["by_role"] == {"buyer": 1.0, "merchant": 1.0}
    assert tuple(sorted(s["by_family"])) == tuple(sorted(CAPABILITY_FAMILIES))
    assert all(v == 1.0 for v in s["by_stage"].values())
    assert s["loss_attribution"] == {"Evidence": 0, "Choice": 0, "Execution": 0, "Authority": 0, "Mixed": 0}
    assert set(s["usage"]) == {"calls", "input_tokens", "output_tokens", "latency_s", "cost_usd"}
    runs = sorted((reference_eval / "runs").iterdir())
    assert len(runs) == N
    for run in runs:
        assert sorted(p.name for p in run.iterdir()) == sorted(RUN_FILES)


def test_random_scores_low_but_above_zero(random_eval, reference_eval):
    s = summary_of(random_eval)
    assert s["scored"] == N and s["unscored"] == 0
    assert 0.0 < s["mean_score"] < 0.7
    assert s["full"] + s["partial"] + s["zero"] == N and s["partial"] > 0
    assert sum(s["loss_attribution"].values()) > 0


def test_results_csv_has_a_row_per_run(random_eval):
    with open(random_eval / "results.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == N
    assert {"task_id", "family", "role", "status", "score", "loss_group", "reason", "calls", "cost_usd",
            "wall_s", "run_dir"} <= set(rows[0])
    assert all(r["status"] == "scored" and 0.0 <= float(r["score"]) <= 1.0 for r in rows)


@pytest.mark.parametrize("args, message", [
    (["eval", "no-such-env", "--policy", "reference"], "unknown suite"),
    (["eval", "capability-v1", "--policy", "no-such-policy"], "unknown policy"),
    (["eval", "capability-v1", "--tasks", "nothing/*"], "no task"),
    (["eval", "capability-v1", "--backend", "spark"], "unknown backend"),
    (["eval", "capability-v1", "--split", "weird"], "split must be"),
])
def test_eval_errors_are_clear(tmp_path, args, message):
    result = cli(*args, "--out", tmp_path / "x", "--quiet")
    assert result.exit_code == 2
    assert message in result.output


# -- verify and rescore on eval output --------------------------------------------------------------

def test_verify_and_rescore_accept_eval_output(random_eval):
    verified = cli("verify", random_eval)
    assert verified.exit_code == 0, verified.output
    assert f"{N}/{N} runs verified" in verified.output
    rescored = cli("rescore", random_eval)
    assert rescored.exit_code == 0, rescored.output
    assert f"{N}/{N} runs rescored identically" in rescored.output


def test_verify_and_rescore_name_a_tampered_run(random_eval, copy_of):
    out = copy_of(random_eval)
    run = sorted((out / "runs").iterdir())[3]
    score = json.loads((run / "score.json").read_text())
    score["score"] = 1.0
    (run / "score.json").write_text(json.dumps(score, indent=1, sort_keys=True) + "\n")
    meta = json.loads((run / "run.json").read_text())
    meta["state_digest"] = "0" * 64
    (run / "run.json").write_text(json.dumps(meta))
    verified = cli("verify", out)
    assert verified.exit_code == 1
    assert re.search(rf"FAIL .*{run.name}.*state digest", verified.output)
    rescored = cli("rescore", out)
    assert rescored.exit_code == 1
    assert run.name in rescored.output and f"{N - 1}/{N}" in rescored.output


# -- report -----------------------------------------------------------------------------------------

def test_report_prints_the_tables_side_by_side(reference_eval, random_eval):
    result = cli("report", reference_eval, random_eval)
    assert result.exit_code == 0, result.output
    out = result.output
    for title in ("Overall", "Loss attribution", "Per-family mean score", "Stage scores"):
        assert title in out
    for word in ("reference", "random", "Buyer", "Merchant", "T4_negotiation", "T10_timing",
                 "Evidence", "Choice", "Execution", "Authority", "Mixed", "Decision", "World effect"):
        assert word in out
    ref_line = next(line for line in out.splitlines() if line.strip().startswith("reference") and str(N) in line)
    assert "1.000" in ref_line
    random_mean = summary_of(random_eval)["mean_score"]
    assert f"{random_mean:.3f}" in out


def test_report_writes_plots_and_a_self_contained_page(reference_eval, random_eval, tmp_path):
    page = tmp_path / "report.html"
    result = cli("report", reference_eval, random_eval, "--plots", tmp_path / "plots", "--html", page)
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert names == ["credit_distribution.png", "family_heatmap.png", "loss_composition.png"]
    for name in names:
        data = (tmp_path / "plots" / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 2000
    html = page.read_text()
    assert html.count("data:image/png;base64,") == 3
    assert "T4_negotiation" in html and "T10_timing" in html and "Loss attribution" in html
    assert not re.search(r"""(src|href)\s*=\s*["'](?!data:)""", html), "the page must load nothing"
    assert "<link" not in html and "@import" not in html
    assert not re.search(r"<script[^>]*\bsrc\s*=", html), "only inline scripts (the run viewer)"


def test_report_of_one_evaluation(random_eval):
    result = cli("report", random_eval)
    assert result.exit_code == 0 and "random" in result.output


def test_report_rejects_a_folder_that_is_not_an_evaluation(tmp_path, reference_eval):
    (tmp_path / "stuff").mkdir()
    result = cli("report", reference_eval, tmp_path / "stuff")
    assert result.exit_code == 2
    assert "is not an evaluation" in result.output and "acworld eval" in result.output
    missing = cli("report", tmp_path / "nowhere")
    assert missing.exit_code == 2 and "no such folder" in missing.output
    (tmp_path / "stuff" / "summary.json").write_text("{not json")
    (tmp_path / "stuff" / "results.csv").write_text("a,b\n1,2\n")
    bad = cli("report", tmp_path / "stuff")
    assert bad.exit_code == 2 and "not valid JSON" in bad.output


# -- resume -----------------------------------------------------------------------------------------

def test_resume_reruns_only_a_deleted_run(reference_eval, copy_of):
    import shutil

    out = copy_of(reference_eval)
    victim = sorted((out / "runs").iterdir())[7]
    keep = sorted((out / "runs").iterdir())[8]
    before = (keep / "trace.jsonl").stat().st_mtime_ns
    shutil.rmtree(victim)
    result = cli("eval", "capability-v1", "--policy", "reference", "--out", out, "--resume", "--quiet")
    assert result.exit_code == 0, result.output
    s = summary_of(out)
    assert s["scored"] == N and s["timing"]["runs_executed"] == 1
    assert (victim / "score.json").exists()
    assert (keep / "trace.jsonl").stat().st_mtime_ns == before
    assert cli("verify", out).exit_code == 0


def test_resume_refuses_another_policys_folder(reference_eval, copy_of):
    out = copy_of(reference_eval)
    result = cli("eval", "capability-v1", "--policy", "random", "--out", out, "--resume", "--quiet")
    assert result.exit_code == 2
    assert "policy 'reference'" in result.output
