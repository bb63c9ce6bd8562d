"""Issue 20 §1: the run viewer's data, read back from the artifacts of real evaluations."""

from __future__ import annotations

import json
import math
from pathlib import Path

from eval_kit import cli

from acworld_env.eval.report import load_evaluations
from acworld_env.eval.viewer_data import run_panel, viewer_data


def test_each_step_credit_adds_up_to_the_saved_score(random_eval):
    """Credit gained and lost step by step sums, per predicate, to the credits in score.json."""
    runs = sorted((random_eval / "runs").iterdir())[:40]
    for run in runs:
        panel = run_panel(run)
        assert panel["valid"], (run, panel["reason"])
        saved = json.loads((run / "score.json").read_text())
        totals: dict[str, float] = {}
        for step in panel["steps"]:
            for pid, delta in step["credit"].items():
                totals[pid] = totals.get(pid, 0.0) + delta
        for pid, credit in saved["credits"].items():
            assert math.isclose(totals.get(pid, 0.0), credit, abs_tol=1e-3), (run.name, pid)
        assert panel["score"] == round(saved["score"], 4)
        assert [p["id"] for p in panel["predicates"]] == sorted(saved["credits"], key=list(
            p["id"] for p in panel["predicates"]).index)


def test_rejections_show_their_code_and_commits_their_events(random_eval):
    steps = [s for run in sorted((random_eval / "runs").iterdir()) for s in run_panel(run)["steps"]]
    rejected = [s for s in steps if not s["accepted"]]
    committed = [s for s in steps if s["commit"] is not None]
    assert rejected and all(s["code"] != "ok" and s["effect"] == [] for s in rejected)
    assert committed and all(s["effect"] for s in committed)


def test_a_tampered_run_shows_why_it_is_unscored_not_its_transcript(reference_eval, copy_of):
    ev = copy_of(reference_eval)
    run = sorted((ev / "runs").iterdir())[0]
    trace = run / "trace.jsonl"
    trace.write_text(trace.read_text().replace('"accepted": true', '"accepted": false', 1))
    panel = run_panel(run)
    assert not panel["valid"] and panel["steps"] == [] and "trace" in panel["reason"]


def test_table_has_a_score_per_policy_and_runs_per_repeat(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli("eval", "capability-v1", "--policy", "reference", "--tasks", "*/T4/buyer/*", "--repeats", "2",
               "--out", a, "--quiet").exit_code == 0
    assert cli("eval", "capability-v1", "--policy", "idle", "--tasks", "*/T4/buyer/*", "--out", b,
               "--quiet").exit_code == 0
    data = viewer_data(load_evaluations([a, b]))
    assert data["policies"] == ["reference", "idle"]
    assert len(data["tasks"]) == 10
    for t in data["tasks"]:
        assert t["scores"] == {"0": 1.0, "1": 0.0}
        assert len(t["runs"]["0"]) == 2 and len(t["runs"]["1"]) == 1
    assert len(data["runs"]) == 30


def test_report_html_embeds_the_viewer_and_loads_nothing_external(reference_eval, tmp_path: Path):
    out = tmp_path / "r.html"
    assert cli("report", reference_eval, "--html", out).exit_code == 0
    page = out.read_text()
    assert 'id="acw-data"' in page and 'id="tasks"' in page
    assert "http://" not in page and "https://" not in page and "src=\"/" not in page
    blob = page.split('id="acw-data">', 1)[1].split("</script>", 1)[0]
    data = json.loads(blob)
    assert len(data["tasks"]) == len(list((reference_eval / "runs").iterdir()))
