"""Rescoring: recompute a run's score from its saved artifacts alone.

Inputs are ``task.json``, ``trace.jsonl`` and the World state reconstructed from
``commits.sqlite``; never a policy or a model. The recomputed ``score.json`` must equal
the saved one byte for byte (both are written by :func:`~acworld_env.scoring.score_json`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from ..artifacts import RUN_FILE, find_runs, read_json_file
from .saved_run import SCORE_FILE, TASK_FILE, InvalidRun, load_run
from .score import Score, score_json, score_trace

__all__ = ["RescoreResult", "diff_scores", "rescore_dir", "rescore_run", "score_json"]

MAX_DIFFS = 6
"""How many differing fields a mismatch message names."""


class RescoreResult(NamedTuple):
    """One run: the saved ``score.json`` bytes (None if missing), the recomputed bytes, and equality."""

    run: Path
    saved: bytes | None
    recomputed: bytes
    equal: bool

    @property
    def score(self) -> dict[str, Any]:
        """The recomputed score as a dict."""
        return json.loads(self.recomputed)

    @property
    def valid(self) -> bool:
        """Whether the run could be scored."""
        return bool(self.score["valid"])

    @property
    def ok(self) -> bool:
        """Valid and identical to the saved score."""
        return self.valid and self.equal

    def problems(self) -> list[str]:
        """Precise reasons this run fails rescoring (empty when :attr:`ok`)."""
        out = []
        if not self.valid:
            out.append(f"invalid run: {self.score['invalid_reason']}")
        if not self.equal:
            out.extend(diff_scores(self.saved, self.recomputed))
        return out


def rescore_run(run_dir: str | Path) -> Score:
    """The score of a saved run, recomputed from its artifacts; an invalid Score if unscoreable."""
    try:
        art = load_run(run_dir)
    except InvalidRun as exc:
        return Score(_task_id(Path(run_dir)), False, 0.0, False, invalid_reason=exc.reason)
    return score_trace(art.task, art.records, art.state)


def rescore_dir(root: str | Path) -> list[RescoreResult]:
    """Rescore every run under ``root`` and compare with each saved ``score.json``."""
    results = []
    for run in find_runs(root):
        recomputed = score_json(rescore_run(run)).encode("utf-8")
        file = run / SCORE_FILE
        try:
            saved = file.read_bytes() if file.exists() else None
        except OSError:
            saved = None
        results.append(RescoreResult(run, saved, recomputed, saved == recomputed))
    return results


def diff_scores(saved: bytes | None, recomputed: bytes) -> list[str]:
    """Human-readable differences between a saved and a recomputed ``score.json``."""
    if saved is None:
        return [f"{SCORE_FILE} is missing"]
    try:
        old = json.loads(saved)
    except (ValueError, RecursionError):
        return [f"saved {SCORE_FILE} is not JSON"]
    diffs = list(_walk(old, json.loads(recomputed), ""))
    if not diffs:
        return [f"saved {SCORE_FILE} has the same values in different bytes (not written by score_json)"]
    more = len(diffs) - MAX_DIFFS
    return diffs[:MAX_DIFFS] + ([f"... and {more} more differences"] if more > 0 else [])


def _walk(old: Any, new: Any, path: str) -> Any:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            where = f"{path}.{key}" if path else key
            if key not in old:
                yield f"{where}: not saved, recomputed {new[key]!r}"
            elif key not in new:
                yield f"{where}: saved {old[key]!r}, not recomputed"
            else:
                yield from _walk(old[key], new[key], where)
    elif old != new or type(old) is not type(new):
        yield f"{path or 'score'}: saved {old!r}, recomputed {new!r}"


def _task_id(path: Path) -> str:
    """The best task id available for an unscoreable run."""
    for name in (TASK_FILE, RUN_FILE):
        try:
            value = read_json_file(path / name).get("task_id")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(value, str):
            return value
    return path.name
