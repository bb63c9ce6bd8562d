"""Analysis over sets of saved runs, from artifacts alone.

* **Equal-weight sensitivity** (the paper's Table 20): every run rescored with its task's
  weights and with every predicate weight set to 1; mean score and full-credit count per
  group of runs. Full credit needs every required predicate to pass, so it does not depend
  on weights: the two full-credit columns agree by construction, and the means show how
  much the weights matter.
* **Restricted views** (the paper's Table 5): each run projected to what a weaker checker
  would see; a run *without* full credit whose projection equals that of a full-credit run
  of the same task is a collision: that checker could not tell the two apart. The full
  trace never collides, since the score is a function of it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.table import Table

from ..artifacts import find_runs
from ..trace import TraceRecord, as_records
from ..vcp import TOOLS
from ..world import canonical, sha256
from .saved_run import InvalidRun, RunArtifacts, load_run
from .score import score_trace

VIEWS: dict[str, str] = {
    "final_state": "final World state",
    "final_action": "final VCP action",
    "public_sequence": "public action sequence",
    "full_trace": "full trace",
}
"""Restricted views, coarsest first, with their table labels."""

ENVELOPE_HINTS = ("actor", "idempotency_key")
"""Action fields that belong to the envelope, not the business payload."""

PRIVATE_FIELDS = ("evidence", "rationale")
"""Action fields that record the actor's private reasoning and reads, not its public behaviour."""

TRACE_DERIVED = ("hash", "prev", "meta")
"""Record fields left out of the full-trace view: chain links and model-call metadata."""


@dataclass(frozen=True)
class RunAnalysis:
    """One run, scored both ways and projected to every view (empty for invalid runs)."""

    path: Path
    group: str
    task_id: str
    valid: bool
    reason: str = ""
    score: float = 0.0
    equal_score: float = 0.0
    full_credit: bool = False
    equal_full_credit: bool = False
    views: dict[str, str] = field(default_factory=dict)
    family: str = ""
    loss_group: str | None = None


@dataclass(frozen=True)
class SensitivityRow:
    """Table 20 row: one group's mean score and full-credit count under both weightings."""

    group: str
    runs: int
    invalid: int
    mean_task: float
    mean_equal: float
    full_task: int
    full_equal: int
    rank_task: int = 0
    rank_equal: int = 0


@dataclass(frozen=True)
class CollisionRow:
    """Table 5 row: failing runs whose view collides with a full-credit run's."""

    view: str
    label: str
    colliding: int
    failing: int
    runs: int


def public_sequence(records: Sequence[TraceRecord | dict[str, Any]], actor: str) -> list[dict[str, Any]]:
    """The actor's accepted business actions (kind and public payload), in order; queries left out."""
    drop = set(ENVELOPE_HINTS) | set(PRIVATE_FIELDS)
    out = []
    for r in as_records(records):
        if r.actor != actor or not r.accepted:
            continue
        tool = TOOLS.get(r.kind)
        if tool is None or tool.readonly:
            continue
        out.append({k: v for k, v in r.action.items() if k not in drop})
    return out


def project(art: RunArtifacts) -> dict[str, str]:
    """A run's digest under every view."""
    return project_records(art.records, art.task.actor, art.state_digest)


def project_records(records: Sequence[TraceRecord | dict[str, Any]], actor: str, state_digest: str) -> dict[str, str]:
    """The digest of a trace and final state under every view (for saved runs and live episodes alike)."""
    records = as_records(records)
    seq = public_sequence(records, actor)
    trace = [{k: v for k, v in r.to_dict().items() if k not in TRACE_DERIVED} for r in records]
    return {
        "final_state": state_digest,
        "final_action": sha256(canonical(seq[-1] if seq else None)),
        "public_sequence": sha256(canonical(seq)),
        "full_trace": sha256(canonical(trace)),
    }


def analyze_run(run_dir: str | Path, group: str = "") -> RunAnalysis:
    """Score one run with task and equal weights and project it; never raises on a bad run."""
    path = Path(run_dir)
    try:
        art = load_run(path)
    except InvalidRun as exc:
        return RunAnalysis(path, group, path.name, False, exc.reason)
    task_w = score_trace(art.task, art.records, art.state)
    equal_w = score_trace(art.task, art.records, art.state, weights="equal")
    return RunAnalysis(path, group, art.task.task_id, True, "", task_w.score, equal_w.score,
                       task_w.full_credit, equal_w.full_credit, project(art), art.task.family, task_w.loss_group)


def analyze_dirs(dirs: Sequence[str | Path]) -> list[RunAnalysis]:
    """Every run under each directory; each directory is one group (a policy, a model, a sweep)."""
    names = [Path(d).name or str(d) for d in dirs]
    labels = [str(d) if names.count(n) > 1 else n for d, n in zip(dirs, names, strict=True)]
    return [analyze_run(run, label) for d, label in zip(dirs, labels, strict=True) for run in find_runs(d)]


def sensitivity(runs: Sequence[RunAnalysis]) -> list[SensitivityRow]:
    """Per group (and overall, when there are several groups): both weightings side by side."""
    groups: dict[str, list[RunAnalysis]] = defaultdict(list)
    for r in runs:
        groups[r.group].append(r)
    rows = [_row(name, members) for name, members in groups.items()]
    rows = [SensitivityRow(**{**r.__dict__,
                              "rank_task": 1 + sum(o.mean_task > r.mean_task for o in rows),
                              "rank_equal": 1 + sum(o.mean_equal > r.mean_equal for o in rows)})
            for r in rows]
    if len(groups) > 1:
        rows.append(_row("all", list(runs)))
    return rows


def _row(name: str, members: list[RunAnalysis]) -> SensitivityRow:
    ok = [r for r in members if r.valid]
    n = len(ok)
    return SensitivityRow(
        name, len(members), len(members) - n,
        sum(r.score for r in ok) / n if n else 0.0, sum(r.equal_score for r in ok) / n if n else 0.0,
        sum(r.full_credit for r in ok), sum(r.equal_full_credit for r in ok),
    )


def collisions(runs: Sequence[RunAnalysis]) -> list[CollisionRow]:
    """For every view: failing valid runs whose projection equals a full-credit run's of the same task."""
    valid = [r for r in runs if r.valid]
    failing = [r for r in valid if not r.full_credit]
    rows = []
    for view, label in VIEWS.items():
        passing: dict[str, set[str]] = defaultdict(set)
        for r in valid:
            if r.full_credit:
                passing[r.task_id].add(r.views[view])
        hits = sum(1 for r in failing if r.views[view] in passing[r.task_id])
        rows.append(CollisionRow(view, label, hits, len(failing), len(valid)))
    return rows


def sensitivity_table(rows: Sequence[SensitivityRow]) -> Table:
    """Rich table of :func:`sensitivity` (the paper's Table 20)."""
    table = Table(title="How much the predicate weights matter: task weights vs equal weights",
                  caption="S: mean score of valid runs; FC: runs with full credit; "
                  "task: the task's weights; equal: every predicate weight 1; rank: task → equal")
    for col in ("group", "runs", "invalid", "S task", "S equal", "Δ", "FC task", "FC equal", "rank"):
        table.add_column(col, justify="left" if col == "group" else "right", no_wrap=col == "group")
    for r in rows:
        rank = f"{r.rank_task}→{r.rank_equal}" if r.rank_task else ""
        table.add_row(r.group, str(r.runs), str(r.invalid), f"{r.mean_task:.3f}", f"{r.mean_equal:.3f}",
                      f"{r.mean_equal - r.mean_task:+.3f}", str(r.full_task), str(r.full_equal), rank)
    return table


def collision_table(rows: Sequence[CollisionRow]) -> Table:
    """Rich table of :func:`collisions` (the paper's Table 5)."""
    table = Table(title="Runs a weaker checker would pass: failing runs that look like full credit",
                  caption="colliding: runs without full credit whose view equals that of a "
                  "full-credit run of the same task")
    for col in ("view", "colliding", "no full credit", "valid runs", "colliding %"):
        table.add_column(col, justify="left" if col == "view" else "right", overflow="fold")
    for r in rows:
        share = f"{100 * r.colliding / r.runs:.1f}%" if r.runs else "-"
        table.add_row(r.label, str(r.colliding), str(r.failing), str(r.runs), share)
    return table
