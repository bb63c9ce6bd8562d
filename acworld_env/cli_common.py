"""Pieces every ``acworld`` command shares: the console and the "folder of runs" argument."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

console = Console(highlight=False, soft_wrap=True)


def runs_or_exit(root: Path) -> list[Path]:
    """The runs under ``root``; a missing folder or one without runs prints why and exits 2."""
    from .artifacts import NoRuns, runs_under

    try:
        return runs_under(root)
    except NoRuns as exc:
        console.print(f"error: {exc}", markup=False)
        raise typer.Exit(2) from None
