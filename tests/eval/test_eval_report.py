"""Report details: labels, loss attribution, missing pieces, plots without matplotlib, the benchmark script."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest
from eval_kit import cli, summary_of

from acworld_env.eval.report import (
    credit_counts,
    load_evaluations,
    loss_counts,
    loss_table,
    report_tables,
    stage_means,
)

ROOT = Path(__file__).resolve().parents[2]


def test_tables_agree_with_the_summary(random_eval):
    (ev,) = load_evaluations([random_eval])
    s = summary_of(random_eval)
    counts = credit_counts(ev)
    assert (counts["full"], counts["partial"], counts["zero"], counts["unscored"]) == \
        (s["full"], s["partial"], s["zero"], s["unscored"])
    assert loss_counts(ev) == s["loss_attribution"]
    for stage, value in s["by_stage"].items():
        assert stage_means(ev)[stage] == pytest.approx(value, abs=1e-6)
    row = loss_table([ev]).rows[0]
    assert row[1] == str(sum(s["loss_attribution"].values()))
    assert [t.title for t in report_tables([ev])] == ["Overall (capability-v1)", "Loss attribution",
                                                      "Per-family mean score", "Stage scores",
                                                      "Per-capability mean score"]
    caps = {r[0]: r[1] for r in report_tables([ev])[4].rows}
    assert all(k.count(".") >= 1 for k in caps) and len(caps) == len({(r["family"], r["capability"]) for r in ev.scored})


def test_same_policy_twice_is_labelled_by_folder(reference_eval, tmp_path):
    other = tmp_path / "again"
    shutil.copytree(reference_eval, other)
    evals = load_evaluations([reference_eval, other])
    assert [e.label for e in evals] == ["reference (reference)", "reference (again)"]


def test_a_missing_score_file_is_a_warning_not_a_crash(reference_eval, copy_of):
    out = copy_of(reference_eval)
    victim = sorted((out / "runs").iterdir())[0]
    (victim / "score.json").unlink()
    result = cli("report", out)
    assert result.exit_code == 0
    assert "warning" in result.output and victim.name in result.output.replace("\n", "")


def test_without_matplotlib_plots_fail_clearly_and_html_keeps_the_tables(reference_eval, tmp_path, monkeypatch):
    for mod in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, mod, None)
    plots = cli("report", reference_eval, "--plots", tmp_path / "plots")
    assert plots.exit_code == 2 and "pip install 'acworld-env[plots]'" in plots.output
    page = tmp_path / "r.html"
    html = cli("report", reference_eval, "--html", page)
    assert html.exit_code == 0
    text = page.read_text()
    assert "Per-family mean score" in text and "data:image/png" not in text and "No plots" in text


def test_unscored_runs_show_in_the_report(tmp_path):
    from eval_kit import OutageError, reference_unless

    from acworld_env.eval.runner import EvalConfig, run_eval

    run_eval(EvalConfig("capability-v1", "reference", tmp_path, tasks="*/T4/buyer/*"), progress=False,
             factory=reference_unless(lambda t: t.task_id.endswith("/zopa/01"), lambda t: OutageError("down", "timeout")))
    (ev,) = load_evaluations([tmp_path])
    assert credit_counts(ev)["unscored"] == 1
    overall = report_tables([ev])[0]
    assert overall.rows[0][1:4] == ["10", "9", "1"]


def test_benchmark_script_runs(capsys):
    spec = importlib.util.spec_from_file_location("bench_runner", ROOT / "benchmarks" / "bench_runner.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.main(["--tasks", "*/T4/buyer/zopa/0[12]", "--concurrency", "2", "--repeats", "2", "--latency", "0.01",
                "--thin"])
    out = capsys.readouterr().out
    assert "slot utilisation" in out and "overhead per episode" in out and "unscored 0" in out
