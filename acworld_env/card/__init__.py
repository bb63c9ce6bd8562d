"""The environment card: the figures a user of the environment asks for first, measured fresh.

:func:`build_card` runs every measurement (throughput without a model, start-up, the sessions each
server holds, determinism, the baseline gate, safety, the suite's counts) and reads the recorded
learning curves; :func:`render` writes the card as markdown. ``acworld card`` does both
(``--quick``: smaller samples). Each section's module says how it measures:
:mod:`~acworld_env.card.measure`, :mod:`~acworld_env.card.sessions`,
:mod:`~acworld_env.card.quality`, :mod:`~acworld_env.card.studies`; the markdown is
:mod:`~acworld_env.card.sections`.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import time
from collections.abc import Callable
from typing import Any

from .measure import ROOT, CardError
from .sections import SECTIONS
from .sections import render as _render

__all__ = ["SECTIONS", "CardError", "build_card", "render"]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("acworld-env")
    except PackageNotFoundError:
        return "(not installed as a package)"


def _commit() -> str | None:
    """The repository's commit, and whether its working tree had changes, when it is a git checkout."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return f"commit {head.stdout.strip()}" + (", with uncommitted changes" if dirty.stdout.strip() else "")


def build_card(quick: bool = False, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure everything and read the recorded studies; the card's figures as JSON data.

    ``quick``: smaller samples (two tasks per family, fewer sessions and repeats), under 90 s on two cores.
    ``progress`` is told each section's name and time as it finishes."""
    from . import measure, quality, sessions, studies

    started = time.perf_counter()
    card: dict[str, Any] = {
        "card": "acworld environment card", "version": _version(), "commit": _commit(), "quick": quick,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"), "machine": measure.machine(),
    }
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("suite", quality.suite_counts),
        ("startup", lambda: measure.startup(quick)),
        ("throughput", lambda: measure.throughput(quick)),
        ("determinism", lambda: measure.determinism(quick)),
        ("baseline_gate", lambda: {**quality.baseline_gate(quick), "quick": quick}),
        ("safety", lambda: quality.safety(quick, card.get("baseline_gate"))),
        ("sessions", lambda: sessions.sessions(quick)),
        ("learnability", studies.learnability),
    ]
    walls: dict[str, float] = {}
    for name, run in steps:
        t0 = time.perf_counter()
        card[name] = run()
        walls[name] = round(time.perf_counter() - t0, 2)
        if progress is not None:
            progress(f"{name}: {walls[name]:.1f} s")
    card["sections_wall_s"] = walls
    card["load_average_end"] = round(os.getloadavg()[0], 2)
    card["wall_s"] = round(time.perf_counter() - started, 1)
    return card


def render(card: dict[str, Any]) -> str:
    """The card as markdown (:mod:`acworld_env.card.sections`)."""
    return _render(card)
