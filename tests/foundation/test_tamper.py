"""Tampering with saved run artifacts is detected, and the message names the commit or the artifact.

The run is the demo negotiation (9 commits): commit 5 places the order, 6 authorises $95,
7 captures, 8 allocates, 9 ships.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from acworld_env.artifacts import verify_run
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy
from acworld_env.tasks.families.demo import build_demo_task
from acworld_env.world import canonical, chain, reconstruct, transition
from acworld_env.world.digest import GENESIS


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    task = build_demo_task()
    out = tmp_path_factory.mktemp("runs") / "demo"
    run_episode(task, make_policy(task.reference), out_dir=out)
    v = verify_run(out)
    assert v.ok and v.commits == 9, v.message
    return out


@pytest.fixture
def run(pristine, tmp_path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(pristine, out)
    return out


def sql(run: Path, query: str, *args) -> None:
    con = sqlite3.connect(run / "commits.sqlite")
    con.execute(query, args)
    con.commit()
    con.close()


def rows(run: Path) -> list[tuple]:
    con = sqlite3.connect(run / "commits.sqlite")
    out = con.execute("SELECT seq, actor, validation_id, body, prev_hash, hash FROM commits ORDER BY seq").fetchall()
    con.close()
    return out


def rewrite(run: Path, new_rows: list[tuple]) -> None:
    con = sqlite3.connect(run / "commits.sqlite")
    con.execute("DELETE FROM commits")
    con.executemany("INSERT INTO commits VALUES (?, ?, ?, ?, ?, ?)", new_rows)
    con.commit()
    con.close()


def failed(run: Path, *fragments: str) -> str:
    v = verify_run(run)
    assert not v.ok, "tampering went unnoticed"
    for fragment in fragments:
        assert fragment in v.message, v.message
    return v.message


def test_pristine_run_verifies(run):
    assert verify_run(run).ok


# -- the commit log ---------------------------------------------------------------------------


def test_edited_commit_body(run):
    body = rows(run)[5][3]
    assert '"amount":9500' in body
    sql(run, "UPDATE commits SET body = ? WHERE seq = 6", body.replace('"amount":9500', '"amount":9400'))
    failed(run, "commit 6", "hash mismatch")


def test_edited_commit_with_its_own_hash_recomputed(run):
    seq, actor, vid, body, prev, _h = rows(run)[5]
    forged = json.loads(body.replace('"amount":9500', '"amount":9400'))
    sql(run, "UPDATE commits SET body = ?, hash = ? WHERE seq = 6", canonical(forged).decode(), chain(prev, forged))
    failed(run, "commit 6", "delta")  # the replayed transition disagrees with the recorded delta


def test_edited_commit_with_its_own_hash_and_delta_recomputed(run):
    """A self-consistent forged commit 6 still breaks the link that commit 7 recorded."""
    con = sqlite3.connect(run / "commits.sqlite")
    initial = json.loads(con.execute("SELECT value FROM meta WHERE key = 'initial_state'").fetchone()[0])
    con.close()
    r = rows(run)
    before = reconstruct(initial, [{"seq": s, "actor": a, "validation_id": v, "body": json.loads(b),
                                    "prev_hash": p, "hash": h} for s, a, v, b, p, h in r[:5]])
    _seq, _actor, _vid, body, prev, _h = r[5]
    forged = json.loads(body)
    forged["events"][0]["amount"] = 9_400
    forged["delta"] = transition(before.state, forged["events"])
    sql(run, "UPDATE commits SET body = ?, hash = ? WHERE seq = 6", canonical(forged).decode(), chain(prev, forged))
    failed(run, "commit 7", "previous-hash link broken")


def test_edited_last_commit_with_a_forged_chain(run):
    seq, actor, vid, body, prev, _h = rows(run)[-1]
    forged = json.loads(body)
    forged["events"][0]["carrier"] = "nobody-express"  # the recorded delta no longer follows
    sql(run, "UPDATE commits SET body = ?, hash = ? WHERE seq = 9", canonical(forged).decode(), chain(prev, forged))
    failed(run, "commit 9", "delta")


def test_dropped_commit_in_the_middle(run):
    sql(run, "DELETE FROM commits WHERE seq = 4")
    failed(run, "commit 4")


def test_dropped_last_commit(run):
    sql(run, "DELETE FROM commits WHERE seq = 9")
    failed(run, "commit 9", "missing", "run.json")


def test_reordered_commits(run):
    r = rows(run)
    r[2], r[3] = (4, *r[2][1:]), (3, *r[3][1:])  # swap the contents of commits 3 and 4
    rewrite(run, r)
    failed(run, "commit 3")


def test_inserted_commit_in_the_middle(run):
    r = rows(run)
    copy = (5, *r[3][1:])  # a second copy of commit 4 placed at position 5
    shifted = [(s + 1, *rest) if s >= 5 else (s, *rest) for s, *rest in r]
    rewrite(run, sorted([*shifted, copy]))
    failed(run, "commit 5")


def test_inserted_commit_at_the_end_with_a_valid_link(run):
    _seq, actor, vid, _body, _prev, head = rows(run)[-1]
    body = {"seq": 10, "actor": actor, "validation_id": vid, "round": 9, "events": [], "delta": []}
    sql(run, "INSERT INTO commits VALUES (?, ?, ?, ?, ?, ?)", 10, actor, vid, canonical(body).decode(), head,
        chain(head, body))
    failed(run, "commit 10", "run.json")


def test_commit_header_disagrees_with_its_body(run):
    sql(run, "UPDATE commits SET actor = 'merchant_0' WHERE seq = 6")
    failed(run, "commit 6", "header")


def test_corrupt_commit_body(run):
    sql(run, "UPDATE commits SET body = 'not json' WHERE seq = 2")
    failed(run, "commit 2", "not valid JSON")


def test_body_of_the_wrong_shape(run):
    sql(run, "UPDATE commits SET body = '[1, 2]' WHERE seq = 2")
    failed(run, "malformed artifact")


# -- validations ------------------------------------------------------------------------------


def _validation_of(run: Path, seq: int) -> tuple[str, dict]:
    vid = rows(run)[seq - 1][2]
    con = sqlite3.connect(run / "commits.sqlite")
    body = con.execute("SELECT body FROM validations WHERE validation_id = ?", (vid,)).fetchone()[0]
    con.close()
    return vid, json.loads(body)


def test_validation_changed_to_rejected(run):
    vid, val = _validation_of(run, 5)
    sql(run, "UPDATE validations SET body = ? WHERE validation_id = ?",
        canonical({**val, "accepted": False, "code": "amount_mismatch"}).decode(), vid)
    failed(run, "commit 5", "rejected")


def test_validation_of_another_actor(run):
    vid, val = _validation_of(run, 7)
    sql(run, "UPDATE validations SET body = ? WHERE validation_id = ?",
        canonical({**val, "actor": "buyer_0"}).decode(), vid)
    failed(run, "commit 7", "actor binding")


def test_validation_deleted(run):
    vid, _ = _validation_of(run, 3)
    sql(run, "DELETE FROM validations WHERE validation_id = ?", vid)
    failed(run, "commit 3", "not stored")


def test_lost_initial_state(run):
    sql(run, "DELETE FROM meta WHERE key = 'initial_state'")
    failed(run, "initial state")


def test_edited_initial_state(run):
    con = sqlite3.connect(run / "commits.sqlite")
    initial = json.loads(con.execute("SELECT value FROM meta WHERE key = 'initial_state'").fetchone()[0])
    con.close()
    initial["actors"]["buyer_0"]["balance"] += 100_000
    sql(run, "UPDATE meta SET value = ? WHERE key = 'initial_state'", json.dumps(initial))
    failed(run, "commit 6", "delta")  # the authorisation's recorded balances no longer follow


def test_edited_initial_state_that_no_commit_touches(run):
    con = sqlite3.connect(run / "commits.sqlite")
    initial = json.loads(con.execute("SELECT value FROM meta WHERE key = 'initial_state'").fetchone()[0])
    con.close()
    initial["meta"]["currency"] = "EUR"
    sql(run, "UPDATE meta SET value = ? WHERE key = 'initial_state'", json.dumps(initial))
    failed(run, "state digest", "run.json")


# -- run.json ---------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["state_digest", "event_digest", "trace_digest"])
def test_changed_digest_in_run_json(run, field):
    meta = json.loads((run / "run.json").read_text())
    meta[field] = "f" * 64
    (run / "run.json").write_text(json.dumps(meta))
    failed(run, "run.json", field.split("_")[0] if field != "trace_digest" else "trace.jsonl")


def test_changed_commit_count_in_run_json(run):
    meta = json.loads((run / "run.json").read_text())
    meta["commits"] = 12
    (run / "run.json").write_text(json.dumps(meta))
    failed(run, "commit 10", "missing", "run.json")


@pytest.mark.parametrize(("content", "fragment"), [("{not json", "not valid JSON"), ("[]", "not a JSON object")])
def test_corrupt_run_json(run, content, fragment):
    (run / "run.json").write_text(content)
    failed(run, "run.json", fragment)


# -- missing files and the trace -----------------------------------------------------------


@pytest.mark.parametrize("name", ["trace.jsonl", "commits.sqlite", "run.json"])
def test_deleted_artifact(run, name):
    (run / name).unlink()
    failed(run, "missing artifact", name)


def test_garbage_commit_log(run):
    (run / "commits.sqlite").write_bytes(b"\x00garbage" * 512)
    failed(run, "commits.sqlite", "not a commit log")


def test_corrupt_trace_line(run):
    lines = (run / "trace.jsonl").read_text().splitlines()
    lines[3] = lines[3][: len(lines[3]) // 2]
    (run / "trace.jsonl").write_text("\n".join(lines) + "\n")
    failed(run, "trace.jsonl", "line 4")


def test_edited_trace_record(run):
    lines = (run / "trace.jsonl").read_text().splitlines()
    assert "9500" in lines[5]
    lines[5] = lines[5].replace("9500", "9400")
    (run / "trace.jsonl").write_text("\n".join(lines) + "\n")
    failed(run, "trace.jsonl", "record 6")


def test_dropped_trace_record(run):
    lines = (run / "trace.jsonl").read_text().splitlines()
    del lines[2]
    (run / "trace.jsonl").write_text("\n".join(lines) + "\n")
    failed(run, "trace.jsonl", "record 3")


def test_rewritten_trace_that_no_longer_backs_a_commit(run):
    """Even a re-chained trace (and run.json) cannot un-accept the validation a commit cites."""
    records = [json.loads(x) for x in (run / "trace.jsonl").read_text().splitlines()]
    target = next(r for r in records if r["commit"] == 7)
    target["validation"] = {**target["validation"], "accepted": False}
    head = GENESIS
    for r in records:
        r["prev"] = head
        r["hash"] = chain(head, {k: v for k, v in r.items() if k != "hash"})
        head = r["hash"]
    (run / "trace.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    meta = json.loads((run / "run.json").read_text())
    meta["trace_digest"] = head
    (run / "run.json").write_text(json.dumps(meta))
    failed(run, "commit 7", "no accepted validation")


def test_verify_never_raises_on_a_directory_of_junk(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"commits": "many"}))
    (tmp_path / "commits.sqlite").write_bytes(b"")
    (tmp_path / "trace.jsonl").write_text("\n")
    v = verify_run(tmp_path)
    assert not v.ok
