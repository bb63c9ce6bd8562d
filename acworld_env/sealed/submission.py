"""A submission's evaluation folder on the host, written with the evaluation's own functions.

Each ended episode becomes a run folder (``save_task_run`` for a scored one, ``unscored.json``
otherwise) named as ``acworld eval`` names it; closing the submission writes ``manifest.json``,
``summary.json`` and ``results.csv`` exactly as the evaluation runner does, so after the reveal
``acworld verify`` checks the folder like any other, and its root digest is the one the signed
result carries.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..artifacts import read_json_file, task_files
from ..eval.execute import mark_unscored
from ..eval.manifest import run_entry, write_manifest
from ..eval.plan import UNSCORED_FILE, RunSpec, run_dir_name, run_extra
from ..eval.summary import result_row, summarise, usage_from_trace, write_summary
from .commitment import SPLIT, commitment_digest
from .result import RESULT_FILE, sign_result, write_result

if TYPE_CHECKING:
    from ..remote.records import HostedEpisode

SealedHost = Any
"""A :class:`~acworld_env.sealed.host.SealedHost` (named, not imported: the host imports this module)."""

EPISODE_SEED = 0
SLOTS_FILE = "slots.json"
"""Slot -> run folder of a submission (host-private until the reveal)."""


def write_run(out: Path, task: Any, ep: HostedEpisode, summary: dict[str, Any], *, suite: str, policy: str,
              seed: int) -> str:
    """Write an ended episode's run folder under ``out/runs``; return its name."""
    name = run_dir_name(task.task_id)
    run_dir = out / "runs" / name
    env = ep.env
    market = env.episode.market if env.episode is not None else None
    if summary["status"] == "scored" and market is not None and env.score is not None:
        from ..scoring import save_task_run

        if run_dir.exists():
            import shutil

            shutil.rmtree(run_dir)
        save_task_run(market, task, env.score, run_dir, seed=EPISODE_SEED,
                      **run_extra(suite, policy, SPLIT, seed))
        return name
    usage = usage_from_trace(market.trace.records, task.actor) if market is not None else {}
    mark_unscored(RunSpec(task, 0, EPISODE_SEED, name), run_dir, summary.get("reason") or "unscored", usage)
    return name


def write_unscored(out: Path, task: Any, reason: str) -> str:
    """An unscored run folder for ``task`` (a slot never played, or lost); return its name."""
    name = run_dir_name(task.task_id)
    mark_unscored(RunSpec(task, 0, EPISODE_SEED, name), out / "runs" / name, reason, {})
    return name


def finish_submission(host: SealedHost, sub: dict[str, Any]) -> dict[str, Any]:
    """Write the submission's manifest, summary and results; return its signed result (also saved)."""
    out = host.state.submission_dir(sub["id"])
    rt = host.rt
    header = {"env_id": rt.suite, "suite": rt.suite, "split": SPLIT, "seed": rt.seed, "policy": sub["policy"],
              "repeats": 1}
    entries, rows, stages, runs = [], [], [], []
    for slot, task in rt.slots.items():
        entry = sub["slots"][slot]
        if entry["status"] not in ("scored", "unscored"):
            reason = "not played: the submission closed before this task was opened"
            entry.update(status="unscored", reason=reason, run=write_unscored(out, task, reason))
        name = entry["run"]
        run_dir = out / "runs" / name
        common = {"name": name, "task_id": task.task_id, "task_hash": task_files(task)[0], "seed": EPISODE_SEED,
                  "repeat": 0}
        if entry["status"] == "scored":
            meta = read_json_file(run_dir / "run.json")
            score_bytes = (run_dir / "score.json").read_bytes()
            score = json.loads(score_bytes)
            e = run_entry(**common, status="scored", run=meta, score_bytes=score_bytes)
            from ..scoring.saved_run import load_run

            usage = usage_from_trace(load_run(run_dir).records, task.actor)
            rows.append(result_row(task, repeat=0, seed=EPISODE_SEED, status="scored", run_dir=run_dir,
                                   score=score, usage=usage))
            stages.append(dict(score.get("stages") or {}))
        else:
            doc = read_json_file(run_dir / UNSCORED_FILE)
            e = run_entry(**common, status="unscored", reason=str(doc["reason"]))
            rows.append(result_row(task, repeat=0, seed=EPISODE_SEED, status="unscored", run_dir=run_dir,
                                   reason=str(doc["reason"]), usage=doc.get("usage") or {}))
        entries.append(e)
        runs.append({"slot": slot, **{k: e[k] for k in ("status", "trace_digest", "event_digest", "state_digest",
                                                         "score_digest")}})
    root = write_manifest(out, header, entries, final=True)
    summary = summarise(rows, env_id=rt.suite, policy=sub["policy"], split=SPLIT, seed=rt.seed,
                        stages={"all": stages}, planned=len(rt.slots),
                        extra={"root_digest": root, "suite": rt.suite, "repeats": 1, "backend": "sealed"})
    write_summary(out, rows, summary)
    (out / SLOTS_FILE).write_text(json.dumps({s: sub["slots"][s]["run"] for s in rt.slots}, indent=1,
                                             sort_keys=True) + "\n")
    body = result_body(host, sub, summary, rows, runs, root)
    result = sign_result(body, host.key)
    write_result(out / RESULT_FILE, result)
    return result


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 6) if xs else None


def result_body(host: SealedHost, sub: dict[str, Any], summary: dict[str, Any], rows: list[dict[str, Any]],
                runs: list[dict[str, Any]], root: str) -> dict[str, Any]:
    """What a signed result says (per-task scores only in aggregate): the summary's means over scored
    runs, and the same over every slot with an unscored one counted as 0 (what aborting cannot raise).
    A family with fewer than the round's ``min_family_tasks`` tasks has no mean of its own (it would be
    a task's score): it counts in the overall means only, and is listed in ``families_withheld``."""
    families: dict[str, list[float]] = {}
    for r in rows:
        families.setdefault(r["family"], []).append(float(r["score"]) if r["status"] == "scored" else 0.0)
    shown = {f for f, xs in families.items() if len(xs) >= host.min_family_tasks}

    def kept(means: dict[str, Any]) -> dict[str, Any]:
        return {f: v for f, v in means.items() if f in shown}

    return {
        "round_id": host.round_id, "participant": sub["participant"], "submission": sub["id"],
        "policy": sub["policy"], "commitment": host.commitment, "commitment_digest": commitment_digest(host.commitment),
        "planned": summary["planned"], "scored": summary["scored"], "unscored": summary["unscored"],
        "mean_score": summary["mean_score"], "mean_safe_score": summary["mean_safe_score"],
        "by_family": kept(summary["by_family"]), "safe_by_family": kept(summary["safe_by_family"]),
        "mean_score_over_all": _mean([x for xs in families.values() for x in xs]),
        "by_family_over_all": kept({f: _mean(xs) for f, xs in sorted(families.items())}),
        "families_withheld": sorted(set(families) - shown),
        "runs": runs, "root_digest": root,
    }
