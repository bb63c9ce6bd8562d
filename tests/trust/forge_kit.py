"""A forger who knows the artifact formats and uses the project's own functions to stay consistent.

Each helper rewrites part of a run or an evaluation folder so that every hash chain and
every recorded digest agrees with the forged content; the tamper tests then show which
check still catches the forgery.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path
from typing import Any

from acworld_env.eval.manifest import run_entry, write_manifest
from acworld_env.eval.summary import result_row, summarise, write_summary
from acworld_env.scoring.rescore import rescore_run
from acworld_env.scoring.score import score_json
from acworld_env.tasks.anchor import task_hash
from acworld_env.tasks.spec import TaskSpec
from acworld_env.world import canonical, chain, reconstruct
from acworld_env.world.digest import GENESIS


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def records_of(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "trace.jsonl").read_text(encoding="utf-8").splitlines() if line]


def rehash_trace(run: Path, records: list[dict]) -> None:
    """Renumber and re-chain a trace; record its digest and proposal count in run.json."""
    head = GENESIS
    with open(run / "trace.jsonl", "w", encoding="utf-8") as fh:
        for i, r in enumerate(records, start=1):
            body = {k: v for k, v in r.items() if k != "hash"}
            body.update(n=i, prev=head)
            body["hash"] = head = chain(head, body)
            fh.write(json.dumps(body, sort_keys=True, ensure_ascii=False) + "\n")
    meta = read_json(run / "run.json")
    meta["trace_digest"] = head
    meta["proposals"] = sum(1 for r in records if r.get("envelope") is not None)
    write_json(run / "run.json", meta)


def commits_of(run: Path) -> list[dict]:
    con = sqlite3.connect(run / "commits.sqlite")
    rows = con.execute("SELECT seq, actor, validation_id, body FROM commits ORDER BY seq").fetchall()
    con.close()
    return [{"seq": s, "actor": a, "validation_id": v, "body": json.loads(b)} for s, a, v, b in rows]


def rewrite_log(run: Path, commits: list[dict]) -> None:
    """Re-chain and store commits; record the rebuilt state and event digests in run.json."""
    head, rows = GENESIS, []
    for c in commits:
        h = chain(head, c["body"])
        rows.append((c["seq"], c["actor"], c["validation_id"], canonical(c["body"]).decode(), head, h))
        head = h
    con = sqlite3.connect(run / "commits.sqlite")
    con.execute("DELETE FROM commits")
    con.executemany("INSERT INTO commits VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    initial = json.loads(con.execute("SELECT value FROM meta WHERE key='initial_state'").fetchone()[0])
    vals = {v: json.loads(b) for v, b in con.execute("SELECT validation_id, body FROM validations")}
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    stored = [{**c, "prev_hash": r[4], "hash": r[5]} for c, r in zip(commits, rows, strict=True)]
    rebuilt = reconstruct(initial, stored, vals)
    meta = read_json(run / "run.json")
    meta.update(state_digest=rebuilt.state_digest, event_digest=rebuilt.event_digest, commits=len(commits))
    write_json(run / "run.json", meta)


def rescore_in_place(run: Path) -> dict:
    """Write score.json as the project's scorer computes it from the (forged) artifacts."""
    text = score_json(rescore_run(run))
    (run / "score.json").write_text(text)
    return json.loads(text)


def forge_folder(out: Path) -> str:
    """Rewrite results.csv, summary.json and manifest.json to agree with the runs now in the folder."""
    manifest = read_json(out / "manifest.json")
    header = {k: manifest[k] for k in ("env_id", "suite", "split", "seed", "policy", "repeats")}
    rows, entries, stages = [], [], []
    for run in sorted(p for p in (out / "runs").iterdir() if p.is_dir() and (p / "run.json").exists()):
        meta, task = read_json(run / "run.json"), TaskSpec.model_validate_json((run / "task.json").read_text())
        score = read_json(run / "score.json")
        rows.append(result_row(task, repeat=0, seed=meta["seed"], status="scored", run_dir=run, score=score))
        stages.append(score.get("stages") or {})
        entries.append(run_entry(name=run.name, task_id=task.task_id, task_hash=task_hash(task), seed=meta["seed"],
                                 repeat=0, status="scored", run=meta, score_bytes=(run / "score.json").read_bytes()))
    root = write_manifest(out, header, entries, final=True)
    summary = summarise(rows, env_id=header["env_id"], policy=header["policy"], split=header["split"],
                        seed=header["seed"], stages={"all": stages}, planned=len(rows),
                        extra={"root_digest": root})
    write_summary(out, rows, summary)
    return root


def csv_rows(out: Path) -> list[dict]:
    with open(out / "results.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def write_csv_rows(out: Path, rows: list[dict]) -> None:
    with open(out / "results.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
