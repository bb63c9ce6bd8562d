"""Closing an episode whose process ended before it closed (found on the next open of its World).

Where the process stopped decides what is anchored, and nothing is ever overwritten:

* during play (no episode file yet): the episode is closed as **aborted**: a summary
  (``episode-NNNN.json``, status ``aborted``, its commits and end digests) is written and anchored;
* while closing, after both files were written but before they were anchored: the files are
  checked (the trace verifies, and the summary names this episode's commits and end digest) and
  anchored as the **closed** episode they describe;
* while closing, after the trace only: the trace is kept, and anchored beside an aborted summary;
* during an earlier recovery (the aborted summary written, not anchored): that summary is anchored
  if it is byte for byte the one this recovery writes.

Any other file in the episode's place is refused with its name: it is not this episode's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..trace import TraceError, read_trace, verify_trace
from ..world import GENESIS, sha256
from .world_check import WorldCheck, episodes_dir, file_digest
from .world_log import MarketLog, WorldFileError, write_new


def _aborted_summary(n: int, running: dict[str, Any], check: WorldCheck, trace_kept: bool) -> bytes:
    first, last = int(running["first_commit"]), check.commits
    reason = ("the episode's process ended while closing it; its trace file is kept as written" if trace_kept
              else "the episode's process ended before it closed; its trace was not written")
    summary = {"episode": n, "status": "aborted", "phases": running.get("phases", []), "reason": reason,
               "first_commit": first, "last_commit": last, "commits": list(range(first, last + 1)),
               "state_digest": check.state_digest, "event_digest": check.event_digest}
    return json.dumps(summary, indent=1, sort_keys=True).encode()


def _closed_summary(summary_file: Path, trace_file: Path, first: int, check: WorldCheck) -> dict | None:
    """The summary of a complete close of this episode that was not anchored, or None."""
    try:
        summary = json.loads(summary_file.read_text())
        digest = verify_trace(read_trace(trace_file))
    except (OSError, TraceError, ValueError):
        return None
    ok = (isinstance(summary, dict) and summary.get("status") == "closed" and summary.get("trace_digest") == digest
          and summary.get("first_commit") == first and summary.get("last_commit") == check.commits
          and summary.get("event_digest") == check.event_digest)
    return summary if ok else None


def plan(world: Path, n: int, check: WorldCheck) -> tuple[dict[str, Any], bytes | None]:
    """How to close episode ``n`` (the one ``check`` found running), decided read-only, before any write.

    Returns the record to anchor and the aborted summary still to write (None when nothing is to be
    written). Raises :class:`WorldFileError` when a file in the episode's place is not its own.
    """
    running = check.running or {}
    first, last = int(running["first_commit"]), check.commits
    folder = episodes_dir(world)
    summary_file, trace_file = folder / f"episode-{n:04d}.json", folder / f"episode-{n:04d}.jsonl"
    record: dict[str, Any] = {"episode": n, "first_commit": first, "last_commit": last,
                              "commit_head": check.event_digest if last else GENESIS,
                              "state_digest": check.state_digest}
    if summary_file.exists() and trace_file.exists():
        summary = _closed_summary(summary_file, trace_file, first, check)
        if summary is not None:
            return {**record, "status": "closed", "trace_digest": summary["trace_digest"],
                    "files": {f.name: file_digest(f) for f in (trace_file, summary_file)}}, None
    expected = _aborted_summary(n, running, check, trace_file.exists())
    if summary_file.exists() and summary_file.read_bytes() != expected:
        raise WorldFileError(f"{summary_file} is not episode {n}'s (it was interrupted and never anchored): move "
                             "it aside and open the World again to close the episode as aborted")
    files = {summary_file.name: sha256(expected)}
    if trace_file.exists():
        files[trace_file.name] = file_digest(trace_file)
    return {**record, "status": "aborted", "files": files}, None if summary_file.exists() else expected


def close_interrupted(world: Path, log: MarketLog, record: dict[str, Any], summary: bytes | None) -> str:
    """Carry out a :func:`plan`: write the aborted summary if due, anchor the record; return its status."""
    if summary is not None:
        write_new(episodes_dir(world) / f"episode-{record['episode']:04d}.json", summary)
    log.anchor(record)
    return str(record["status"])
