"""``acworld card``: measure the environment card's figures and write it (markdown, and JSON on request)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..cli_common import console

DEFAULT_OUT = Path("docs/env-card.md")


def _unwritable(path: Path) -> str | None:
    """Why ``path`` cannot be written (checked before measuring, so a typo costs no minutes), or None.

    The check opens the file as the write will (an existing file for appending, leaving it as it is; a new
    one created and removed again): permission bits alone say nothing for a superuser or a pseudo-file system."""
    if path.is_dir():
        return f"{path} is a folder"
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        return f"folder {parent} does not exist" if not parent.exists() else f"{parent} is not a folder"
    existed = path.exists()
    try:
        with path.open("a" if existed else "x", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def card_command(
    out: Path = typer.Option(DEFAULT_OUT, "--out", help="Where to write the card (markdown)."),
    json_path: Path = typer.Option(None, "--json", help="Also write the card's figures as JSON here."),
    quick: bool = typer.Option(False, "--quick", help="Smaller samples and fewer sessions (under 90 s on two "
                               "cores): a smoke run, not the figures to publish."),
) -> None:
    """Write the environment card from fresh measurements: env steps/s, start-up, sessions per server with
    p50/p99 step latency, determinism, the baseline gate, learnability (recorded studies), safety, suite counts.

    Under 10 minutes on two cores (``--quick``: under 90 s). The learning curves are read from the recorded
    studies in baselines/; every other figure is measured by this command.

    Exit status: 0 written; 2 an output path that cannot be written or a missing repository file, with a
    one-line message.
    """
    from . import CardError, build_card, render

    for path in (out, json_path):
        if path is not None and (why := _unwritable(path)) is not None:
            console.print(f"error: cannot write {path}: {why}", markup=False)
            raise typer.Exit(2)
    try:
        card = build_card(quick=quick, progress=lambda line: console.print(f"  {line}", markup=False))
    except CardError as exc:
        console.print(f"error: {exc}", markup=False)
        raise typer.Exit(2) from None
    try:
        out.write_text(render(card), encoding="utf-8")
        if json_path is not None:
            json_path.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        console.print(f"error: cannot write the card: {exc.strerror or exc}: {exc.filename or out}", markup=False)
        raise typer.Exit(2) from None
    console.print(f"wrote {out}" + (f" and {json_path}" if json_path else "") + f" in {card['wall_s']:.0f} s",
                  markup=False)


def register(app: typer.Typer) -> None:
    """Add ``card`` to the ``acworld`` app."""
    app.command("card")(card_command)
