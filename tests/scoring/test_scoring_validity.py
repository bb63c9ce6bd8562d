"""A run is invalid only on infrastructure failure; rejections, abstentions and poor choices are scored."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from scoring_kit import rechain

from acworld_env.scoring.rescore import rescore_run
from acworld_env.scoring.saved_run import check_run
from acworld_env.trace import read_trace


def sql(run: Path, query: str, *args: object) -> None:
    con = sqlite3.connect(run / "commits.sqlite")
    con.execute(query, args)
    con.commit()
    con.close()


def invalid_reason(run: Path) -> str:
    ok, reason = check_run(run)
    assert not ok, "the run should be invalid"
    score = rescore_run(run)
    assert not score.valid and score.invalid_reason == reason and score.score == 0.0
    return reason


@pytest.mark.parametrize("name", ["reference", "overpay", "rejected_then_abstain", "random-0", "random-3"])
def test_outcomes_of_the_agent_are_valid(demo_runs, name):
    assert check_run(demo_runs[name]) == (True, "ok")


def test_rejections_and_abstentions_are_scored(demo_runs):
    records = read_trace(demo_runs["rejected_then_abstain"] / "trace.jsonl")
    assert any(not r["validation"]["accepted"] for r in records)
    assert records[-1]["action"]["kind"] == "abstain" or any(r["action"].get("kind") == "abstain" for r in records)
    score = rescore_run(demo_runs["rejected_then_abstain"])
    assert score.valid and not score.full_credit


def test_tampered_commit(copy_run):
    run = copy_run()
    con = sqlite3.connect(run / "commits.sqlite")
    body = con.execute("SELECT body FROM commits WHERE seq = 3").fetchone()[0]
    con.close()
    sql(run, "UPDATE commits SET body = ? WHERE seq = 3", body.replace("9500", "9400"))
    assert "commit 3" in invalid_reason(run)


@pytest.mark.parametrize("name", ["commits.sqlite", "trace.jsonl", "run.json", "task.json"])
def test_missing_artifact(copy_run, name):
    run = copy_run()
    (run / name).unlink()
    assert invalid_reason(run) == f"missing artifact {name}"


def test_tampered_trace(copy_run):
    run = copy_run()
    lines = (run / "trace.jsonl").read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace('"unit_price": 10000', '"unit_price": 9000')
    (run / "trace.jsonl").write_text("".join(lines))
    assert "trace record 2" in invalid_reason(run)


def test_commit_citing_a_rejected_validation_in_the_log(copy_run):
    run = copy_run()
    con = sqlite3.connect(run / "commits.sqlite")
    vid, body = con.execute("SELECT validation_id, body FROM validations WHERE validation_id = "
                            "(SELECT validation_id FROM commits WHERE seq = 1)").fetchone()
    con.close()
    val = json.loads(body)
    val["accepted"] = False
    sql(run, "UPDATE validations SET body = ? WHERE validation_id = ?", json.dumps(val), vid)
    reason = invalid_reason(run)
    assert "commit 1" in reason and "rejected" in reason


def test_trace_record_claiming_a_commit_with_a_rejected_validation(copy_run):
    run = copy_run("rejected_then_abstain")
    records = [r.to_dict() for r in read_trace(run / "trace.jsonl")]  # mutable JSON, to forge
    first = records[0]
    assert not first["validation"]["accepted"] and first["commit"] is None
    first["commit"] = 1  # the genuine record of commit 1 comes later
    rechain(run, records)
    reason = invalid_reason(run)
    assert reason.startswith("trace record 1 claims commit 1") and "rejected the action" in reason


def test_trace_record_citing_a_commit_that_does_not_exist(copy_run):
    run = copy_run()
    records = [r.to_dict() for r in read_trace(run / "trace.jsonl")]  # mutable JSON, to forge
    idle = next(r for r in records if r["commit"] is None and r["envelope"] is not None)
    idle["commit"] = 99
    rechain(run, records)
    assert "cites commit 99, which is not in commits.sqlite" in invalid_reason(run)


def test_broken_actor_binding_in_the_log(copy_run):
    run = copy_run()
    con = sqlite3.connect(run / "commits.sqlite")
    vid, body = con.execute("SELECT validation_id, body FROM validations WHERE validation_id = "
                            "(SELECT validation_id FROM commits WHERE seq = 2)").fetchone()
    con.close()
    val = json.loads(body)
    val["actor"] = "buyer_0" if val["actor"] != "buyer_0" else "merchant_0"
    sql(run, "UPDATE validations SET body = ? WHERE validation_id = ?", json.dumps(val), vid)
    assert "actor binding broken" in invalid_reason(run)


def test_broken_actor_binding_in_the_trace(copy_run):
    run = copy_run()
    records = [r.to_dict() for r in read_trace(run / "trace.jsonl")]  # mutable JSON, to forge
    rec = next(r for r in records if r["commit"] is None and r["actor"] == "buyer_0" and r["envelope"])
    rec["actor"] = "merchant_0"  # a record without a commit: only the envelope can tell
    rechain(run, records)
    reason = invalid_reason(run)
    assert reason.startswith(f"trace record {rec['n']}: actor binding broken")


def test_accepted_action_claiming_another_actor(copy_run):
    run = copy_run()
    records = [r.to_dict() for r in read_trace(run / "trace.jsonl")]  # mutable JSON, to forge
    rec = next(r for r in records if r["actor"] == "buyer_0" and r["validation"]["accepted"])
    rec["action"]["actor"] = "merchant_0"
    rechain(run, records)
    assert "accepted an action claiming 'merchant_0'" in invalid_reason(run)


@pytest.mark.parametrize(("text", "expected"), [
    ("{not json", "task.json is not a valid task spec"),
    ('{"task_id": "x"}', "task.json is not a valid task spec"),
])
def test_corrupted_task_json(copy_run, text, expected):
    run = copy_run()
    (run / "task.json").write_text(text)
    assert invalid_reason(run).startswith(expected)


def test_task_json_of_another_task(copy_run):
    run = copy_run()
    task = json.loads((run / "task.json").read_text())
    task["task_id"] = "demo/other"
    (run / "task.json").write_text(json.dumps(task))
    assert "records 'demo/negotiation-001'" in invalid_reason(run)


def test_task_json_with_edited_initial_state(copy_run):
    run = copy_run()
    task = json.loads((run / "task.json").read_text())
    task["initial_state"]["actors"]["buyer_0"]["balance"] += 1
    (run / "task.json").write_text(json.dumps(task))
    assert invalid_reason(run) == "task.json initial state differs from the commit log's"


def test_corrupted_commit_log_file(copy_run):
    run = copy_run()
    (run / "commits.sqlite").write_bytes(b"this is not a database" * 100)
    assert "commits.sqlite" in invalid_reason(run)
