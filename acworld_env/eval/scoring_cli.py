"""Scoring commands for the ``acworld`` command line: ``rescore`` and ``analyze`` (apps layer: they read
saved runs through :mod:`acworld_env.scoring` and evaluation folders through :mod:`acworld_env.eval`).

``acworld_env/cli.py`` adds them with ``register(app)``.
"""

from __future__ import annotations

from pathlib import Path

import typer

from ..cli_common import console, runs_or_exit


def rescore(
    run_dir: Path = typer.Argument(..., help="A run directory, or a folder of runs."),
    suite: Path = typer.Option(None, "--suite", help="JSONL file of the task specs the runs claim (for your own "
                               "tasks); default: the installed suites."),
) -> None:
    """Recompute every run's score from its artifacts alone; it must equal the saved score.json byte for byte,
    with the published task (not merely the task.json beside it). For an evaluation folder, summary.json,
    results.csv and the manifest must agree with the rescored runs too. Exit 1 if anything differs."""
    from ..scoring.rescore import rescore_dir
    from ..tasks.anchor import AnchorError, SuiteIndex

    runs_or_exit(run_dir)
    try:
        index = SuiteIndex(suite)
    except AnchorError as exc:
        console.print(f"error: {exc}", markup=False)
        raise typer.Exit(2) from None
    results = rescore_dir(run_dir)
    failed = 0
    for r in results:
        problems = r.problems()
        anchor = _anchor_problem(r.run, index) if r.ok else None
        if anchor:
            problems.append(anchor)
        if not problems:
            score = r.score
            console.print(f"ok       {r.run}  {score['task_id']}  score={score['score']:.3f}"
                          f"  safe_score={score.get('safe_score', 0.0):.3f}"
                          f"  full_credit={score['full_credit']}", markup=False)
            continue
        failed += 1
        status = "INVALID " if not r.valid else "MISMATCH"
        console.print(f"{status} {r.run}", markup=False)
        for problem in problems:
            console.print(f"         - {problem}", markup=False)
    folder_problems = _folder_problems(run_dir, index)
    for problem in folder_problems:
        console.print(f"MISMATCH {problem}", markup=False)
    console.print(f"{len(results) - failed}/{len(results)} runs rescored identically", markup=False)
    if failed or folder_problems:
        raise typer.Exit(1)


def _anchor_problem(run: Path, index: object) -> str | None:
    """Why a run's task is not the published one (``None`` when it is)."""
    from ..artifacts import read_json_file
    from ..scoring.saved_run import load_task
    from ..tasks.anchor import AnchorError

    try:
        meta = read_json_file(run / "run.json")
        return index.check(load_task(run), meta if isinstance(meta, dict) else {})  # type: ignore[attr-defined]
    except (AnchorError, OSError, ValueError, RecursionError) as exc:
        return f"task cannot be anchored: {exc}"


def _folder_problems(root: Path, index: object) -> list[str]:
    """Summary, results and manifest problems of the evaluation folders under ``root``."""
    from .audit import audit_eval

    evals = sorted({p.parent for p in root.rglob("summary.json")})
    return [f"{e}: {p}" for e in evals for p in audit_eval(e, index=index).problems  # type: ignore[arg-type]
            if "summary.json" in p or "results.csv" in p or "manifest" in p or "root digest" in p]


def analyze(dirs: list[Path] = typer.Argument(..., help="Folders of runs; each folder is one group.")) -> None:
    """What the scores rest on: how much the weights matter; which failing runs a weaker checker (final state,
    last action, action sequence) would pass, overall and by family; where credit was lost (partial/zero by
    loss group); and which designed errors (the tasks' mutations) each view can see."""
    from ..scoring.analysis import (
        analyze_dirs,
        collision_table,
        collisions,
        sensitivity,
        sensitivity_table,
    )
    from ..scoring.breakdowns import (
        collisions_by_family,
        collisions_by_family_table,
        loss_split,
        loss_split_table,
    )
    from ..tasks.suites import load_suite
    from .observability import mutation_observability, observability_table

    for d in dirs:
        runs_or_exit(d)
    runs = analyze_dirs(dirs)
    console.print(sensitivity_table(sensitivity(runs)))
    console.print(collision_table(collisions(runs)))
    console.print(collisions_by_family_table(collisions_by_family(runs)))
    console.print(loss_split_table(loss_split(runs)))
    ids = {r.task_id for r in runs if r.valid}
    suites = sorted({t.split("/", 1)[0] for t in ids})
    tasks = []
    for name in suites:
        try:
            tasks += [t for t in load_suite(name) if t.task_id in ids]
        except (KeyError, ValueError):
            console.print(f"note: suite {name} is not installed; no mutation table for its tasks", markup=False)
    if tasks:
        console.print(observability_table(mutation_observability(tasks)))
    bad = [r for r in runs if not r.valid]
    for r in bad:
        console.print(f"invalid (excluded): {r.path}: {r.reason}", markup=False)


def register(app: typer.Typer) -> None:
    """Add ``rescore`` and ``analyze`` to a Typer app."""
    app.command("rescore")(rescore)
    app.command("analyze")(analyze)
