"""Every edit that could raise a published score is detected by ``acworld verify`` (and ``rescore``).

The forger here is strong: after each edit, every hash chain, every digest in ``run.json`` and
(where it helps the forgery) ``results.csv``, ``summary.json`` and ``manifest.json`` are
recomputed with the project's own functions. Each case names the check that still catches it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from forge_kit import (
    commits_of,
    csv_rows,
    forge_folder,
    read_json,
    records_of,
    rehash_trace,
    rescore_in_place,
    rewrite_log,
    write_csv_rows,
    write_json,
)
from typer.testing import CliRunner

from acworld_env.cli import app
from acworld_env.eval.runner import EvalConfig, run_eval
from acworld_env.world import canonical, transition

TASKS = "*/T1*/*"
"""T1 and T10 (40 tasks): enough runs of every shape to forge, and quick to verify many times."""


def cli(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def evaluation(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("tamper") / "random"
    summary = run_eval(EvalConfig(env_id="capability-v1", policy="random", out=out, concurrency=4, tasks=TASKS),
                       progress=False)
    assert summary["scored"] == 40
    return out, summary["root_digest"]


@pytest.fixture
def folder(evaluation, tmp_path) -> Path:
    dst = tmp_path / "copy"
    shutil.copytree(evaluation[0], dst)
    return dst


def runs(out: Path) -> list[Path]:
    return sorted(p for p in (out / "runs").iterdir() if p.is_dir())


def low_run(out: Path, *, need: Callable[[Path], bool] = lambda p: True) -> Path:
    """A run with partial credit (some credit to keep, more to gain by forging) meeting ``need``."""
    for run in runs(out):
        score = read_json(run / "score.json")
        if score["valid"] and 0 < score["score"] < 1 and need(run):
            return run
    raise AssertionError("no suitable run in the evaluation")


def has_rejection(run: Path) -> bool:
    return any(r["envelope"] and not r["validation"]["accepted"] for r in records_of(run))


# -- the forgeries --------------------------------------------------------------------------------
def has_full_predicate(run: Path) -> bool:
    return 1.0 in read_json(run / "score.json")["credits"].values()


def drop_failed_predicates(out: Path) -> str:
    run = low_run(out, need=has_full_predicate)
    task = read_json(run / "task.json")
    score = read_json(run / "score.json")
    task["predicates"] = [p for p in task["predicates"] if score["credits"][p["id"]] == 1]
    kept = {p["id"] for p in task["predicates"]}
    task["mutations"] = [m for m in task["mutations"] if set(m["lowers"]) <= kept]
    write_json(run / "task.json", task)
    assert rescore_in_place(run)["score"] == 1.0
    forge_folder(out)
    return run.name


def reweight_predicates(out: Path) -> str:
    run = low_run(out, need=has_full_predicate)
    task, score = read_json(run / "task.json"), read_json(run / "score.json")
    for p in task["predicates"]:
        p["weight"] = 1.0 if score["credits"][p["id"]] == 1 else 0.001
        p["required"] = False
    write_json(run / "task.json", task)
    assert rescore_in_place(run)["score"] > score["score"]
    forge_folder(out)
    return run.name


def edit_results_csv(out: Path) -> str:
    rows = csv_rows(out)
    row = next(r for r in rows if float(r["score"]) < 1)
    row["score"], row["full_credit"] = "1.0", "True"
    write_csv_rows(out, rows)
    return row["task_id"]


def edit_results_safe_score(out: Path) -> str:
    """Clear a run's critical failure in results.csv: its safe_score raised to full."""
    rows = csv_rows(out)
    row = next(r for r in rows if r["status"] == "scored" and r["critical_failed"])
    row["safe_score"], row["critical_failed"] = "1.0", ""
    write_csv_rows(out, rows)
    return row["task_id"]


def edit_safe_score_json(out: Path) -> str:
    """Clear a run's critical failure in its score.json (the folder's summaries and digests forged to agree)."""
    for run in runs(out):
        score = read_json(run / "score.json")
        if score["valid"] and score["critical_failed"]:
            score["safe_score"], score["critical_failed"] = 1.0, []
            write_json(run / "score.json", score)
            forge_folder(out)
            return run.name
    raise AssertionError("no run with a critical failure")


def edit_summary_safe(out: Path) -> str:
    summary = read_json(out / "summary.json")
    summary["mean_safe_score"] = summary["mean_score"]
    summary["critical_failures"] = 0
    write_json(out / "summary.json", summary)
    return "mean_safe_score"


def edit_summary(out: Path) -> str:
    summary = read_json(out / "summary.json")
    summary["mean_score"] = 0.99
    summary["by_family"] = {k: 0.99 for k in summary["by_family"]}
    write_json(out / "summary.json", summary)
    return "mean_score"


def delete_run_json(out: Path) -> str:
    run = low_run(out)
    (run / "run.json").unlink()
    return run.name


def delete_run_folder(out: Path) -> str:
    run = low_run(out)
    shutil.rmtree(run)
    rows = [r for r in csv_rows(out) if r["task_id"] != read_json(out / "manifest.json")["runs"][0]["task_id"]]
    write_csv_rows(out, rows)
    return run.name


def change_commit_events(out: Path) -> str:
    """Change an amount in a committed event, recompute its delta with transition(), re-hash the log."""
    for run in runs(out):
        commits = commits_of(run)
        for i, c in enumerate(commits):
            forged = _shifted(commits[:i], c, run)
            if forged is not None:
                commits[i] = forged
                rewrite_log(run, commits)
                rescore_in_place(run)
                forge_folder(out)
                return f"commit {c['seq']}"
    raise AssertionError("no commit with an amount to change")


def _shifted(before: list[dict], commit: dict, run: Path) -> dict | None:
    import sqlite3

    from acworld_env.world import apply_delta

    con = sqlite3.connect(run / "commits.sqlite")
    state = json.loads(con.execute("SELECT value FROM meta WHERE key='initial_state'").fetchone()[0])
    con.close()
    for c in before:
        apply_delta(state, c["body"]["delta"])
    for event in commit["body"]["events"]:
        for key in ("amount", "price", "unit_price", "total"):
            if isinstance(event.get(key), int) and event[key] > 1:
                events = json.loads(json.dumps(commit["body"]["events"]))
                events[commit["body"]["events"].index(event)][key] -= 1
                try:
                    delta = transition(state, events)
                except Exception:  # noqa: BLE001  (this change is refused: try another)
                    continue
                if canonical(delta) != canonical(commit["body"]["delta"]):
                    return {**commit, "body": {**commit["body"], "events": events, "delta": delta}}
    return None


def delete_rejected_record(out: Path) -> str:
    run = low_run(out, need=has_rejection)
    records = records_of(run)
    gone = next(r for r in records if r["envelope"] and not r["validation"]["accepted"])
    rehash_trace(run, [r for r in records if r is not gone])
    rescore_in_place(run)
    forge_folder(out)
    return f"proposal {gone['envelope']['seq']}"


def claim_another_seed(out: Path) -> str:
    """Pass a run off as another seed's episode (as if copied over a worse repeat)."""
    run = low_run(out)
    meta = read_json(run / "run.json")
    meta["seed"] = 7
    write_json(run / "run.json", meta)
    forge_folder(out)
    return run.name


TAMPERS = [
    pytest.param(drop_failed_predicates, "task.json differs from task", id="task-predicates-dropped"),
    pytest.param(reweight_predicates, "task.json differs from task", id="task-weights-and-required-changed"),
    pytest.param(edit_results_csv, "results.csv:", id="results-csv-score-edited"),
    pytest.param(edit_summary, "summary.json: mean_score", id="summary-edited"),
    pytest.param(edit_results_safe_score, "results.csv:", id="results-csv-safe-score-edited"),
    pytest.param(edit_safe_score_json, "score.json", id="score-json-safe-score-edited"),
    pytest.param(edit_summary_safe, "summary.json: ", id="summary-safe-score-edited"),
    pytest.param(delete_run_json, "", id="run-json-deleted"),
    pytest.param(delete_run_folder, "planned in manifest.json but missing", id="run-folder-deleted"),
    pytest.param(change_commit_events, "its events or state delta differ", id="commit-events-rehashed"),
    pytest.param(delete_rejected_record, "missing from the trace", id="rejected-record-deleted-rehashed"),
    pytest.param(claim_another_seed, "not made in an episode with seed 7", id="run-passed-off-as-another-seed"),
]


@pytest.mark.parametrize(("tamper", "message"), TAMPERS)
def test_verify_detects_and_names_the_forgery(folder, tamper, message) -> None:
    named = tamper(folder)
    result = cli("verify", folder)
    assert result.exit_code == 1, result.output
    failing = [line for line in result.output.splitlines() if line.startswith("FAIL")]
    assert failing, result.output
    assert any(message in line for line in failing), result.output
    assert any(named.split("/")[0] in line or named in line for line in failing) or "summary" in message


@pytest.mark.parametrize(("tamper", "message"), [TAMPERS[0], TAMPERS[1], TAMPERS[3]])
def test_rescore_detects_the_forgery_too(folder, tamper, message) -> None:
    tamper(folder)
    result = cli("rescore", folder)
    assert result.exit_code == 1, result.output
    assert message in result.output


def test_a_complete_consistent_forgery_is_caught_only_by_the_published_root(folder, evaluation) -> None:
    """Truncate a run's log and trace at the same point, re-hash everything and rewrite every summary:
    nothing inside the folder disagrees any more, so only the published root digest catches it."""
    _, published = evaluation
    run = next(r for r in runs(folder) if len(commits_of(r)) >= 3)
    commits = commits_of(run)[:-1]
    records = records_of(run)
    last = max(i for i, r in enumerate(records) if r["commit"] == commits[-1]["seq"])
    rewrite_log(run, commits)
    rehash_trace(run, records[: last + 1])
    rescore_in_place(run)
    forge_folder(folder)
    assert cli("verify", folder).exit_code == 0
    result = cli("verify", folder, "--expect", published)
    assert result.exit_code == 1
    assert f"differs from the expected {published}" in result.output


def test_untouched_folder_verifies_against_its_root_and_verify_writes_nothing(folder, evaluation) -> None:
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    result = cli("verify", folder, "--expect", evaluation[1])
    assert result.exit_code == 0, result.output
    assert "40/40 runs verified" in result.output
    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before  # no -wal, -shm or anything else left behind
    assert cli("rescore", folder).exit_code == 0


@pytest.mark.parametrize("target", ["trace.jsonl", "score.json", "run.json"])
def test_verify_and_rescore_keep_going_past_a_deeply_nested_line(folder, target) -> None:
    bad = runs(folder)[3]
    (bad / target).write_text("[" * 200_000 + "\n")
    for command in ("verify", "rescore"):
        result = cli(command, folder)
        assert result.exit_code == 1, result.output
        lines = result.output.splitlines()
        assert any(bad.name in line and ("FAIL" in line or "INVALID" in line or "MISMATCH" in line)
                   for line in lines), result.output
        assert sum(1 for line in lines if line.startswith("ok")) >= 39


def test_a_run_of_another_policy_slipped_into_an_evaluation_is_named(folder, tmp_path) -> None:
    other = tmp_path / "other"
    run_eval(EvalConfig(env_id="capability-v1", policy="reference", out=other, tasks="capability-v1/T1/*"),
             progress=False)
    victim = next(r for r in runs(folder) if "__T1__" in r.name)
    shutil.rmtree(victim)
    shutil.copytree(other / "runs" / victim.name, victim)
    meta = read_json(victim / "run.json")
    assert meta["policy"] == "reference"
    forge_folder(folder)
    result = cli("verify", folder)
    assert result.exit_code == 1
    assert f"{victim.name}" in result.output and "run.json policy" in result.output
