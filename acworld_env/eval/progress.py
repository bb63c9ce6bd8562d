"""The live progress bar of an evaluation: done/total, ETA, running mean score and unscored count."""

from __future__ import annotations

from typing import Any


class ProgressBar:
    """A rich progress bar; does nothing when disabled (``--quiet``, tests)."""

    def __init__(self, total: int, done: int, *, enabled: bool, label: str = "eval") -> None:
        self.enabled = enabled
        self.scores: list[float] = []
        self.unscored = 0
        if not enabled:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                 TextColumn("{task.fields[stats]}"), transient=False)
        self.progress.start()
        self.task = self.progress.add_task(label, total=total, completed=done, stats="")

    def seed(self, rows: list[dict[str, Any]]) -> None:
        """Count rows kept from an earlier run (``--resume``) in the running mean, without advancing."""
        for row in rows:
            self._count(row)
        self._show(advance=0)

    def update(self, row: dict[str, Any]) -> None:
        """One more run finished."""
        self._count(row)
        self._show(advance=1)

    def _count(self, row: dict[str, Any]) -> None:
        if row["status"] == "scored":
            self.scores.append(float(row["score"]))
        else:
            self.unscored += 1

    def _show(self, advance: int) -> None:
        if self.enabled:
            self.progress.update(self.task, advance=advance, stats=self.stats())

    def stats(self) -> str:
        """The bar's figures: the running mean of scored runs, or only the unscored count when none is scored."""
        if not self.scores:
            return f"{self.unscored} unscored" if self.unscored else ""
        mean = sum(self.scores) / len(self.scores)
        return f"mean {mean:.3f}  unscored {self.unscored}"

    def close(self) -> None:
        """Stop redrawing."""
        if self.enabled:
            self.progress.stop()
