"""Scoring commands for the ``acworld`` command line: ``rescore`` and ``analyze``.

``acworld_env/cli.py`` adds them with ``register(app)``.
"""

from __future__ import annotations

from pathlib import Path

import typer

from ..cli_common import console, runs_or_exit


def rescore(run_dir: Path = typer.Argument(..., help="A run directory, or a folder of runs.")) -> None:
    """Recompute every run's score from its artifacts alone; it must equal the saved score.json byte for byte."""
    from .rescore import rescore_dir

    runs_or_exit(run_dir)
    results = rescore_dir(run_dir)
    for r in results:
        if r.ok:
            score = r.score
            console.print(f"ok       {r.run}  {score['task_id']}  score={score['score']:.3f}"
                          f"  full_credit={score['full_credit']}", markup=False)
            continue
        status = "INVALID " if not r.valid else "MISMATCH"
        console.print(f"{status} {r.run}", markup=False)
        for problem in r.problems():
            console.print(f"         - {problem}", markup=False)
    failed = sum(not r.ok for r in results)
    console.print(f"{len(results) - failed}/{len(results)} runs rescored identically", markup=False)
    if failed:
        raise typer.Exit(1)


def analyze(dirs: list[Path] = typer.Argument(..., help="Folders of runs; each folder is one group.")) -> None:
    """Equal-weight sensitivity (Table 20) and restricted-view collisions (Table 5) over saved runs."""
    from .analysis import analyze_dirs, collision_table, collisions, sensitivity, sensitivity_table

    for d in dirs:
        runs_or_exit(d)
    runs = analyze_dirs(dirs)
    console.print(sensitivity_table(sensitivity(runs)))
    console.print(collision_table(collisions(runs)))
    bad = [r for r in runs if not r.valid]
    for r in bad:
        console.print(f"invalid (excluded): {r.path}: {r.reason}", markup=False)


def register(app: typer.Typer) -> None:
    """Add ``rescore`` and ``analyze`` to a Typer app."""
    app.command("rescore")(rescore)
    app.command("analyze")(analyze)
