"""Verifying results: one run, or a whole evaluation folder, against everything that sets a score.

A run passes when its World reconstructs digest for digest, its trace and commit log agree
(:func:`~acworld_env.artifacts.verify_run`), its ``task.json`` is the published task
(:mod:`~acworld_env.tasks.anchor`), and its score recomputed from the artifacts equals the
saved ``score.json`` byte for byte. An evaluation folder passes when, in addition, every run
its manifest planned is present and no other run is, ``summary.json`` and ``results.csv``
equal what the runs give, and the root digest recomputed from the runs equals the recorded
one (and the published one, when ``expect`` is given). Nothing here writes to the folder.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..artifacts import RUN_FILE, read_json_file
from ..tasks.anchor import AnchorError, SuiteIndex, task_hash
from .manifest import (
    HEADER_KEYS,
    MANIFEST_FILE,
    OPTIONAL_HEADER_KEYS,
    ManifestError,
    read_manifest,
    root_digest,
    run_entry,
)
from .plan import UNSCORED_FILE

RUN_HEADER = {"policy": "policy", "env_id": "env_id", "suite": "suite", "split": "split", "suite_seed": "seed"}
"""What each run's ``run.json`` must share with its evaluation's manifest (run.json key -> header key)."""
SCORE_FIELDS = ("planned", "scored", "unscored", "missing", "mean_score", "mean_safe_score", "critical_failures",
                "full", "partial", "zero", "by_role", "by_family", "by_capability", "safe_by_role", "safe_by_family",
                "by_stage", "loss_attribution", "unscored_reasons", "usage", "sides", "deals", "deal_rate")
"""The parts of ``summary.json`` recomputed from the runs and compared."""
CSV_FIELDS = ("seed", "family", "capability", "role", "status", "score", "safe_score", "full_credit",
              "critical_failed", "loss_group", "reason", "calls", "input_tokens", "output_tokens",
              "buyer_score", "merchant_score", "deal", "price")
"""The columns of ``results.csv`` recomputed from the runs and compared."""


@dataclass
class RunCheck:
    """The verdict on one run folder."""

    name: str
    path: Path
    status: str
    """``scored``, ``unscored`` (an infrastructure failure recorded as such), or ``failed``."""
    message: str = "ok"
    entry: dict[str, Any] | None = None
    score: dict[str, Any] | None = None
    task: Any = None
    usage: dict[str, float] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    """The run's ``run.json`` (empty for unscored runs)."""
    sides: dict[str, Any] | None = None
    """A two-sided run's rescored ``sides.json`` content (every other actor's score, the deal)."""

    @property
    def ok(self) -> bool:
        """Verified (scored), or an honestly recorded unscored run."""
        return self.status != "failed"


def check_run(path: Path, index: SuiteIndex, *, name: str | None = None,
              header: dict[str, Any] | None = None) -> RunCheck:
    """Verify one run folder completely; never raises. ``header``: the evaluation's manifest header
    (suite, split, seed), where an unscored run (which has no ``run.json``) finds its published task."""
    name = name or path.name
    if not (path / RUN_FILE).exists() and (path / UNSCORED_FILE).exists():
        return _unscored(path, name, index, header or {})
    from ..scoring.saved_run import InvalidRun, load_run

    try:
        art = load_run(path)  # verifies the run (verify_run) and reconstructs it once
        return _scored(art, name, index)
    except InvalidRun as exc:
        return RunCheck(name, path, "failed", exc.reason)
    except AnchorError as exc:
        return RunCheck(name, path, "failed", str(exc))
    except (OSError, ValueError, TypeError, KeyError, RecursionError) as exc:
        return RunCheck(name, path, "failed", f"malformed artifact: {type(exc).__name__}: {str(exc)[:300]}")


def _scored(art: Any, name: str, index: SuiteIndex) -> RunCheck:
    from ..scoring.rescore import diff_scores
    from ..scoring.saved_run import SCORE_FILE
    from ..scoring.score import score_json, score_trace
    from .summary import usage_of

    path, run, task = art.path, art.run, art.task
    problem = index.check(task, run)
    if problem:
        return RunCheck(name, path, "failed", problem)
    recomputed = score_json(score_trace(task, art.records, art.state)).encode("utf-8")
    saved = (path / SCORE_FILE).read_bytes() if (path / SCORE_FILE).exists() else None
    if saved != recomputed:
        return RunCheck(name, path, "failed", "score.json differs from the rescored run: "
                        + "; ".join(diff_scores(saved, recomputed)))
    sides, sides_bytes, problem = _sides(art)
    if problem:
        return RunCheck(name, path, "failed", problem)
    score = json.loads(recomputed)
    usage = usage_of(art.records, task, two_sided=sides is not None)
    entry = run_entry(name=name, task_id=task.task_id, task_hash=task_hash(task), seed=run.get("seed"),
                      repeat=_repeat(name), status="scored", run=run, score_bytes=recomputed, sides_bytes=sides_bytes)
    return RunCheck(name, path, "scored", "ok", entry, score, task, usage, run, sides)


def _sides(art: Any) -> tuple[dict[str, Any] | None, bytes | None, str | None]:
    """``(sides, bytes, problem)``: a two-sided run's ``sides.json`` rescored and compared byte for byte
    with the saved one; ``(None, None, None)`` for a run with scripted counterparties (which has none)."""
    from ..scoring.sides import AGENTS, SIDES_FILE, sides_doc, sides_json

    saved_path = art.path / SIDES_FILE
    mode = art.run.get("counterparties", "scripted")
    if mode != AGENTS:
        if saved_path.exists():
            return None, None, f"{SIDES_FILE} in a run whose run.json says counterparties={mode!r}"
        return None, None, None
    doc = sides_doc(art.task, art.records, art.state)
    recomputed = sides_json(doc).encode("utf-8")
    if not saved_path.exists():
        return None, None, f"missing artifact {SIDES_FILE} (run.json says counterparties={AGENTS!r})"
    saved = saved_path.read_bytes()
    if saved != recomputed:
        try:
            old = json.loads(saved)
            which = sorted(k for k in {*doc, *old} if old.get(k) != doc.get(k)) if isinstance(old, dict) else []
        except ValueError:
            which = []
        return None, None, (f"{SIDES_FILE} differs from the rescored run"
                            + (f" ({', '.join(which)})" if which else " (not the rescored bytes)"))
    return doc, recomputed, None


def _unscored(path: Path, name: str, index: SuiteIndex, header: dict[str, Any]) -> RunCheck:
    source = ({"suite": header["suite"], "split": header.get("split", "frozen"), "suite_seed": header.get("seed", 0)}
              if isinstance(header.get("suite"), str) else {})
    try:
        doc = read_json_file(path / UNSCORED_FILE)
        task_id, reason = doc["task_id"], str(doc["reason"])
        published, where = index.published(task_id, source)
    except (OSError, ValueError, KeyError, TypeError, RecursionError, AnchorError) as exc:
        return RunCheck(name, path, "failed", f"{UNSCORED_FILE} unreadable ({type(exc).__name__})")
    if published is None:
        return RunCheck(name, path, "failed", f"unscored run of task {task_id}, which is not in {where}")
    entry = run_entry(name=name, task_id=task_id, task_hash=task_hash(published), seed=doc.get("seed"),
                      repeat=int(doc.get("repeat") or 0), status="unscored", reason=reason)
    usage = doc.get("usage") if isinstance(doc.get("usage"), dict) else {}
    return RunCheck(name, path, "unscored", reason, entry, None, published, usage)


def _repeat(name: str) -> int:
    head, _, k = name.rpartition("__r")
    return int(k) if head and k.isdigit() else 0


@dataclass
class EvalAudit:
    """The verdict on one evaluation folder (or a plain folder of runs)."""

    root: Path
    runs: list[RunCheck]
    problems: list[str]
    """Failures of the folder as a whole (missing runs, edited summaries, a different root)."""
    root_digest: str
    recorded_root: str | None = None

    @property
    def ok(self) -> bool:
        """Every run verified or honestly unscored, and no folder-level problem."""
        return not self.problems and all(r.ok for r in self.runs)


def audit_eval(out: Path, *, index: SuiteIndex | None = None, expect: str | None = None) -> EvalAudit:
    """Verify an evaluation folder written by ``acworld eval``; never raises."""
    index = index or SuiteIndex()
    problems: list[str] = []
    try:
        manifest = read_manifest(out)
    except ManifestError as exc:
        manifest, problems = None, [str(exc)]
    if manifest is None and not problems:
        problems.append(f"no {MANIFEST_FILE}: not an evaluation folder, or its manifest was removed")
    planned = {e["name"]: e for e in (manifest or {}).get("runs", [])}
    runs_dir = out / "runs"
    present = {p.name: p for p in sorted(runs_dir.iterdir()) if p.is_dir()} if runs_dir.is_dir() else {}
    header = {k: (manifest or {}).get(k) for k in (*HEADER_KEYS, *OPTIONAL_HEADER_KEYS)}
    checks = []
    for name in sorted(set(planned) | set(present)):
        if name not in present:
            problems.append(f"run {name}: planned in {MANIFEST_FILE} but missing from the folder")
            continue
        check = check_run(present[name], index, header=header)
        checks.append(check)
        if manifest is not None and name not in planned:
            check.status, check.message = "failed", f"not a run of this evaluation (absent from {MANIFEST_FILE})"
        elif manifest is not None and check.entry is not None and check.ok:
            diff = [k for k in check.entry if check.entry[k] != planned[name].get(k)]
            diff += [f"run.json {k}" for k, h in RUN_HEADER.items() if check.meta and check.meta.get(k) != header[h]]
            if check.meta and (check.meta.get("counterparties", "scripted") != (header["counterparties"] or "scripted")
                               or check.meta.get("policies") != header["policies"]):
                diff.append("run.json counterparties/policies")
            if diff:
                check.status = "failed"
                check.message = f"differs from its entry in {MANIFEST_FILE} ({', '.join(diff)})"
    entries = [c.entry for c in checks if c.entry is not None and c.ok]
    entries += [{"name": n, **{k: planned[n].get(k) for k in ("task_id", "task_hash", "seed", "repeat")},
                 "status": "missing"} for n in planned if n not in present]
    root = root_digest(header, entries)
    recorded = (manifest or {}).get("root_digest")
    if manifest is not None:
        if recorded != root:
            problems.append(f"root digest {root[:16]}… recomputed from the runs differs from the "
                            f"{MANIFEST_FILE}'s {str(recorded)[:16]}…")
        problems += _summary_problems(out, manifest, checks, len(planned), root)
    if expect is not None and expect != root:
        problems.append(f"root digest {root} differs from the expected {expect}")
    return EvalAudit(out, checks, problems, root, recorded)


def audit_runs(runs: list[Path], *, index: SuiteIndex | None = None, expect: str | None = None,
               root: Path | None = None) -> EvalAudit:
    """Verify loose run folders (not part of an evaluation): each run, and the root over all of them."""
    index = index or SuiteIndex()
    checks = [check_run(p, index, name=_relative(p, root)) for p in runs]
    digest = root_digest({}, [c.entry for c in checks if c.entry is not None and c.ok])
    problems = [] if expect is None or expect == digest else [f"root digest {digest} differs from the expected {expect}"]
    return EvalAudit(root or Path("."), checks, problems, digest)


def _relative(p: Path, root: Path | None) -> str:
    try:
        return str(p.relative_to(root)) if root is not None else p.name
    except ValueError:
        return str(p)


def _summary_problems(out: Path, manifest: dict[str, Any], checks: list[RunCheck], planned: int,
                      root: str) -> list[str]:
    """``summary.json`` and ``results.csv`` against what the verified runs give."""
    from .summary import result_row, summarise

    good = [c for c in checks if c.ok and c.task is not None]
    rows = [result_row(c.task, repeat=_repeat(c.name), seed=c.entry["seed"], status=c.status, run_dir=c.path,
                       score=c.score, reason=c.message if c.status == "unscored" else "", usage=c.usage,
                       sides=c.sides)
            for c in good]
    stages = [dict(c.score.get("stages") or {}) for c in good if c.score]
    expected = summarise(rows, env_id=manifest.get("env_id"), policy=manifest.get("policy"),
                         split=manifest.get("split"), seed=manifest.get("seed"), stages={"all": stages},
                         planned=planned, policies=manifest.get("policies"))
    problems = []
    try:
        summary = read_json_file(out / "summary.json")
        if not isinstance(summary, dict):
            raise ValueError("not an object")
    except (OSError, ValueError, RecursionError) as exc:
        return [f"summary.json unreadable ({type(exc).__name__}: {exc})"]
    for key in SCORE_FIELDS:
        if _norm(summary.get(key)) != _norm(expected.get(key)):
            problems.append(f"summary.json: {key} is {summary.get(key)!r}, the runs give {expected.get(key)!r}")
    if summary.get("root_digest") != root:
        problems.append("summary.json: root_digest differs from the one recomputed from the runs")
    problems += _csv_problems(out, rows)
    return problems


def _csv_problems(out: Path, rows: list[dict[str, Any]]) -> list[str]:
    try:
        with open(out / "results.csv", newline="", encoding="utf-8") as fh:
            saved = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return [f"results.csv unreadable ({type(exc).__name__})"]
    key = lambda r: (str(r.get("task_id")), str(r.get("repeat") or 0))  # noqa: E731
    by_key = {key(r): r for r in saved}
    problems = []
    if len(by_key) != len(saved):
        problems.append("results.csv: a run appears twice")
    expected = {key(r): r for r in rows}
    for k in sorted(set(by_key) - set(expected)):
        problems.append(f"results.csv: row {k[0]} (repeat {k[1]}) is not a verified run")
    for k in sorted(set(expected) - set(by_key)):
        problems.append(f"results.csv: row {k[0]} (repeat {k[1]}) is missing")
    for k in sorted(set(expected) & set(by_key)):
        for col in CSV_FIELDS:
            if _cell(by_key[k].get(col)) != _cell(expected[k].get(col)):
                problems.append(f"results.csv: {k[0]}: {col} is {by_key[k].get(col)!r}, the run gives "
                                f"{expected[k].get(col)!r}")
                break
    return problems[:20]


def _norm(value: Any) -> Any:
    """JSON-normalised value (tuples and lists, int and float keys compare as JSON does)."""
    return json.loads(json.dumps(value, sort_keys=True))


def _cell(value: Any) -> str:
    """A CSV cell as text, numbers normalised (``1.0`` and ``1`` are the same score)."""
    text = "" if value is None else str(value)
    try:
        return repr(float(text)) if text not in ("True", "False", "") else text
    except ValueError:
        return text
