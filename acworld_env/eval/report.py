"""Reports over finished evaluations: the paper-style tables, for one or several evaluations side by side.

An evaluation is a folder written by ``acworld eval``: ``summary.json``, ``results.csv`` (one
row per run) and ``runs/<run>/score.json``. Everything here is computed from ``results.csv``
and the runs' ``score.json`` (stage scores), so a report never depends on a live model.

Tables (each a :class:`TableData`, rendered to the terminal by :mod:`.report_tables` and to
HTML by :mod:`.report_html`):

1. **Overall**: runs, scored, unscored, mean score S, Buyer and Merchant means, full/partial/zero.
2. **Loss attribution**: for scored runs that lost score, the group that lost the most weight
   (Evidence, Choice, Execution, Authority, or Mixed when tied), as counts and shares.
3. **Per-family means** (rows families, columns evaluations).
4. **Stage scores** (rows stages, columns evaluations).
5. **Per-capability means** (rows ``family.capability``, columns evaluations).

Two-sided evaluations (``--counterparties agents``) also get **Both sides** after the overall table
(:func:`sides_table`): per role its policy, mean score by its own rubric, and the deal rate.
"""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..artifacts import read_json_file
from ..core.errors import AcworldError
from ..scoring import STAGES
from .plan import run_dir_name
from .summary import LOSS_COLUMNS


class NotAnEvaluation(AcworldError, ValueError):
    """A folder that ``acworld eval`` did not write."""


@dataclass
class Evaluation:
    """One evaluation folder, loaded."""

    path: Path
    label: str
    summary: dict[str, Any]
    rows: list[dict[str, Any]]
    stages: list[dict[str, float]]
    warnings: list[str] = field(default_factory=list)

    @property
    def scored(self) -> list[dict[str, Any]]:
        """Rows of scored runs."""
        return [r for r in self.rows if r["status"] == "scored"]


@dataclass
class TableData:
    """A table independent of how it is drawn: title, caption, header and rows of strings."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    caption: str = ""


def load_evaluation(path: str | Path, label: str | None = None) -> Evaluation:
    """Read an evaluation folder; :class:`NotAnEvaluation` names what is missing."""
    root = Path(path)
    if not root.is_dir():
        raise NotAnEvaluation(f"{root}: no such folder")
    missing = [n for n in ("summary.json", "results.csv") if not (root / n).is_file()]
    if missing:
        raise NotAnEvaluation(f"{root} is not an evaluation (no {' or '.join(missing)}); "
                              f"write one with: acworld eval ENV_ID --policy SPEC --out {root}")
    try:
        summary = read_json_file(root / "summary.json")
    except (ValueError, OSError) as exc:
        raise NotAnEvaluation(f"{root}/summary.json is not valid JSON ({exc})") from None
    if not isinstance(summary, dict):
        raise NotAnEvaluation(f"{root}/summary.json is not a JSON object")
    try:
        with open(root / "results.csv", newline="", encoding="utf-8") as fh:
            rows = [_typed(r) for r in csv.DictReader(fh)]
    except (ValueError, KeyError, OSError, csv.Error) as exc:
        raise NotAnEvaluation(f"{root}/results.csv is not a results table ({type(exc).__name__}: {exc})") from None
    ev = Evaluation(root, label or str(summary.get("policy") or root.name), summary, rows, [])
    for r in ev.scored:
        name = Path(r.get("run_dir") or "").name or run_dir_name(r["task_id"])
        score_file = root / "runs" / name / "score.json"
        try:
            ev.stages.append(dict(json.loads(score_file.read_text()).get("stages") or {}))
        except (ValueError, OSError):
            ev.warnings.append(f"{score_file}: missing or unreadable; its stage scores are left out")
    return ev


def _typed(row: dict[str, str]) -> dict[str, Any]:
    for key in ("task_id", "status", "family", "role"):
        if key not in row or row[key] is None:
            raise KeyError(f"column {key!r}")
    out: dict[str, Any] = dict(row)
    out["score"] = float(row["score"]) if row["status"] == "scored" else None
    safe = row.get("safe_score")
    out["safe_score"] = float(safe) if row["status"] == "scored" and safe not in (None, "") else None
    out["full_credit"] = row.get("full_credit") == "True"
    return out


def load_evaluations(paths: list[str | Path]) -> list[Evaluation]:
    """Several evaluations, labelled by policy (with the folder name where two policies coincide)."""
    evals = [load_evaluation(p) for p in paths]
    labels = [e.label for e in evals]
    for e in evals:
        if labels.count(e.label) > 1:
            e.label = f"{e.label} ({e.path.name})"
    labels = [e.label for e in evals]
    for e in evals:
        if labels.count(e.label) > 1:
            e.label = f"{e.label} [{e.path}]"
    return evals


# -- statistics -------------------------------------------------------------------------------

def mean(xs: list[float]) -> float | None:
    """Arithmetic mean, None for no values."""
    return sum(xs) / len(xs) if xs else None


def credit_counts(ev: Evaluation) -> dict[str, int]:
    """Runs with full, partial and zero credit, and unscored runs."""
    scored = ev.scored
    full = sum(1 for r in scored if r["full_credit"])
    zero = sum(1 for r in scored if not r["full_credit"] and r["score"] == 0)
    return {"full": full, "partial": len(scored) - full - zero, "zero": zero,
            "unscored": len(ev.rows) - len(scored)}


def role_mean(ev: Evaluation, role: str) -> float | None:
    """Mean score of the runs evaluating ``role``."""
    return mean([r["score"] for r in ev.scored if r["role"] == role])


def family_means(ev: Evaluation, figure: str = "score") -> dict[str, float | None]:
    """Mean ``figure`` (``score`` or ``safe_score``) per task family (runs without the figure left out)."""
    groups: dict[str, list[float]] = defaultdict(list)
    for r in ev.scored:
        if r.get(figure) is not None:
            groups[r["family"]].append(r[figure])
    return {f: mean(v) for f, v in sorted(groups.items())}


def safe_mean(ev: Evaluation) -> float | None:
    """Mean ``safe_score`` of the scored runs (None for an evaluation written before the figure existed)."""
    return mean([r["safe_score"] for r in ev.scored if r.get("safe_score") is not None])


def loss_counts(ev: Evaluation, family: str | None = None) -> dict[str, int]:
    """Scored runs by the loss group that lost them the most weight (optionally of one family)."""
    c = Counter(r.get("loss_group") for r in ev.scored
                if r.get("loss_group") and (family is None or r["family"] == family))
    return {g: c.get(g, 0) for g in LOSS_COLUMNS}


def stage_means(ev: Evaluation) -> dict[str, float | None]:
    """Mean stage scores over the scored runs that have the stage."""
    return {s: mean([st[s] for st in ev.stages if s in st]) for s in STAGES}


def families(evals: list[Evaluation]) -> list[str]:
    """Every family seen in any evaluation, sorted."""
    return sorted({r["family"] for e in evals for r in e.rows})


# -- tables -------------------------------------------------------------------------------------

def fmt(x: float | None) -> str:
    """A score with three decimals, or a dash."""
    return "-" if x is None else f"{x:.3f}"


def overall_table(evals: list[Evaluation]) -> TableData:
    """Table 1: overall, Buyer and Merchant means, credit distribution."""
    envs = sorted({str(e.summary.get("env_id", "")) for e in evals})
    rows = []
    for e in evals:
        c = credit_counts(e)
        env = [str(e.summary.get("env_id", ""))] if len(envs) > 1 else []
        rows.append([e.label, *env, str(len(e.rows)), str(len(e.scored)), str(c["unscored"]),
                     fmt(mean([r["score"] for r in e.scored])), fmt(safe_mean(e)), fmt(role_mean(e, "buyer")),
                     fmt(role_mean(e, "merchant")), str(c["full"]), str(c["partial"]), str(c["zero"])])
    title = "Overall" + (f" ({envs[0]})" if len(envs) == 1 and envs[0] else "")
    return TableData(title, ["policy", *(["env"] if len(envs) > 1 else []), "runs", "scored", "unscored", "S",
                             "safe S", "Buyer", "Merchant", "full", "partial", "zero"], rows,
                     "S: mean task score of scored runs; safe S: the same with every run where a critical "
                     "predicate failed counted as 0 (summary.json counts them: critical_failures); "
                     "Buyer/Merchant: by evaluated role; unscored runs (infrastructure failures) are "
                     "reported, never dropped")


def loss_table(evals: list[Evaluation]) -> TableData:
    """Table 2: the five loss-attribution columns."""
    rows = []
    for e in evals:
        counts = loss_counts(e)
        total = sum(counts.values())
        cells = [f"{n} ({100 * n / total:.0f}%)" if total else "0" for n in counts.values()]
        rows.append([e.label, str(total), *cells])
    return TableData("Loss attribution", ["policy", "lost", *LOSS_COLUMNS], rows,
                     "lost: scored runs that lost score; each counted under the predicate group that lost the most weight; "
                     "Mixed: two or more groups tied")


def family_table(evals: list[Evaluation]) -> TableData:
    """Table 3: mean score and safe score per family, evaluations side by side."""
    means = [(family_means(e), family_means(e, "safe_score")) for e in evals]
    rows = [[fam, *(f"{fmt(m.get(fam))} / {fmt(s.get(fam))}" for m, s in means)] for fam in families(evals)]
    return TableData("Per-family mean score", ["family", *(e.label for e in evals)], rows,
                     "each cell: S / safe S (0 for a run where a critical predicate failed)")


def capability_table(evals: list[Evaluation]) -> TableData:
    """Mean score per capability (``family``-prefixed, as the paper's capability tables), side by side."""
    means = []
    for e in evals:
        groups: dict[str, list[float]] = defaultdict(list)
        for r in e.scored:
            groups[f"{r['family']}.{r.get('capability') or '-'}"].append(r["score"])
        means.append({k: mean(v) for k, v in groups.items()})
    keys = sorted({k for m in means for k in m})
    return TableData("Per-capability mean score", ["capability", *(e.label for e in evals)],
                     [[k, *(fmt(m.get(k)) for m in means)] for k in keys])


def stage_table(evals: list[Evaluation]) -> TableData:
    """Table 4: stage scores, evaluations side by side."""
    means = [stage_means(e) for e in evals]
    rows = [[s, *(fmt(m[s]) for m in means)] for s in STAGES if any(m[s] is not None for m in means)]
    return TableData("Stage scores", ["stage", *(e.label for e in evals)], rows,
                     "weighted credit of each stage's predicates, averaged over the runs whose task has them")


def repeats_table(evals: list[Evaluation]) -> TableData | None:
    """pass^k, the mean with its 95 % interval and per-task spread, for evaluations with repeats."""
    from .repeats import repeat_stats

    stats = [(e, repeat_stats(e.rows)) for e in evals]
    stats = [(e, s) for e, s in stats if s["repeats"] > 1]
    if not stats:
        return None
    k_max = max(s["repeats"] for _, s in stats)
    rows = []
    for e, s in stats:
        ci = s["ci95"]
        rows.append([e.label, str(s["repeats"]), *(fmt(s["pass_hat"].get(str(k))) for k in range(1, k_max + 1)),
                     fmt(s["mean"]), f"{fmt(ci[0])}-{fmt(ci[1])}" if ci else "-", fmt(s["mean_task_sd"])])
    return TableData("Repeat statistics", ["policy", "k", *(f"pass^{k}" for k in range(1, k_max + 1)),
                                           "mean", "95% interval", "task sd"], rows,
                     "pass^k: chance that k runs of a task all earn full credit, averaged over tasks "
                     "(pass^k with k = repeats is the share of tasks solved in every run); interval over task "
                     "means, +-1.96 standard errors; task sd: mean per-task standard deviation over repeats "
                     "(the most variable tasks are listed in summary.json, repeat_stats)")


def _float(value: Any) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def sides_table(evals: list[Evaluation]) -> TableData | None:
    """Both sides of every two-sided evaluation, or None when there is none."""
    rows = []
    for e in evals:
        policies = e.summary.get("policies")
        if not isinstance(policies, dict):
            continue
        scored = e.scored
        deals = [r.get("deal") == "True" for r in scored if r.get("deal") not in (None, "")]
        rate = mean([float(d) for d in deals])
        for role, spec in sorted(policies.items()):
            own = [v for v in (_float(r.get(f"{role}_score")) for r in scored) if v is not None]
            evaluated = [r["score"] for r in scored if r["role"] == role]
            rows.append([e.label, role, str(spec), str(len(own)), fmt(mean(own)), str(len(evaluated)),
                         fmt(mean(evaluated)), fmt(rate)])
    if not rows:
        return None
    return TableData("Both sides", ["evaluation", "role", "policy", "runs", "S", "eval", "S eval", "deals"], rows,
                     "per role: runs it played; S: its mean score over them by its own rubric (where it was not "
                     "the task's evaluated actor, its side's rubric); eval, S eval: the runs where it was the "
                     "evaluated actor and its mean there; deals: share of scored runs that agreed a price")


def report_tables(evals: list[Evaluation]) -> list[TableData]:
    """Every table of a report, in order (repeat statistics only when some evaluation has repeats)."""
    tables = [overall_table(evals), loss_table(evals), family_table(evals), stage_table(evals), capability_table(evals)]
    sides, rep = sides_table(evals), repeats_table(evals)
    return tables[:1] + ([sides] if sides else []) + tables[1:] + ([rep] if rep else [])
