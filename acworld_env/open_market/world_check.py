"""Checking a persistent open-market World: what opening it requires and what ``acworld verify`` reports.

:func:`inspect_world` reads the file read-only (it writes nothing) and checks everything a score
rests on: the file is there and not empty, the commits replay from the initial state, the log ends
at its recorded head, the episode chain links from the genesis (market and initial state) to its
root, each anchored episode's commits end at the commit it recorded, each file an episode wrote
has the digest it anchored, every commit belongs to an episode (or to the one still marked
running), and no episode file lies beside the World unanchored. Opening a World refuses on any
problem. :func:`verify_world` adds each closed episode's trace: it verifies and cites exactly
its episode's commits.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import AcworldError
from ..trace import TraceError, read_trace, verify_trace
from ..world import GENESIS, ReplayError, canonical, chain, reconstruct
from .world_lock import held_elsewhere
from .world_log import GENESIS_KEY, HEAD_KEY, META_KEY, RUNNING_KEY, MarketLog, genesis

EPISODE_FILE = re.compile(r"episode-(\d{4,})\.(json|jsonl)")


def episodes_dir(world: str | Path) -> Path:
    """Where a World's episode files are kept."""
    return Path(f"{world}.episodes")


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class WorldCheck:
    """The verdict on a persistent World and its episodes."""

    path: str
    commits: int = 0
    episodes: int = 0
    aborted: list[int] = field(default_factory=list)
    """Episodes closed as aborted (their process ended before they closed)."""
    running: dict[str, Any] | None = None
    """The marker of an episode under way, or interrupted and not yet closed as aborted."""
    config: dict[str, int] | None = None
    state_digest: str = ""
    event_digest: str = ""
    root_digest: str = ""
    """The last hash of the episode chain: one digest for the World's whole scored history."""
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    readable: bool = True
    """False when the file is not an open-market World at all (missing, empty, another file)."""
    records: list[dict[str, Any]] = field(default_factory=list, repr=False)
    commit_list: list[dict] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        """True when the history reconstructs and every link holds."""
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"path": self.path, "ok": self.ok, "commits": self.commits, "episodes": self.episodes,
                "aborted": self.aborted, "state_digest": self.state_digest, "event_digest": self.event_digest,
                "root_digest": self.root_digest, "problems": self.problems, "notes": self.notes}


def _unreadable(check: WorldCheck, problem: str) -> WorldCheck:
    check.problems.append(problem)
    check.readable = False
    return check


def inspect_world(world: str | Path) -> WorldCheck:
    """Check ``world`` read-only: everything but the traces' contents (see the module docstring)."""
    path = Path(world)
    check = WorldCheck(str(path))
    if not path.is_file():
        return _unreadable(check, "no such World file")
    if path.stat().st_size == 0:
        return _unreadable(check, "the file is empty (0 bytes): a truncated World")
    try:
        log = MarketLog(path, readonly=True)
        try:
            meta = {k: log.get_meta(k) for k in ("initial_state", META_KEY, HEAD_KEY, GENESIS_KEY, RUNNING_KEY)}
            commits, validations, records = log.commits(), log.validations(), log.episodes()
        finally:
            log.close()
    except (AcworldError, OSError, ValueError) as exc:
        return _unreadable(check, f"unreadable World (truncated or not a World): {exc}")
    if not isinstance(meta["initial_state"], dict) or not isinstance(meta[META_KEY], dict):
        return _unreadable(check, "not an open-market World (no market configuration or initial state)")
    check.config, check.records, check.commit_list = meta[META_KEY], records, commits
    root = genesis(meta[META_KEY], meta["initial_state"])
    if meta[GENESIS_KEY] != root:
        check.problems.append("the initial state or the market configuration differs from the one the World "
                              "was created with (genesis digest)")
    try:
        rebuilt = reconstruct(meta["initial_state"], commits, validations)
    except (ReplayError, KeyError, TypeError, ValueError) as exc:  # a rehashed commit can hold anything
        check.problems.append(f"reconstruction failed: {exc!r}" if not isinstance(exc, ReplayError)
                              else f"reconstruction failed: {exc}")
        return check
    check.commits, check.state_digest, check.event_digest = rebuilt.commits, rebuilt.state_digest, rebuilt.event_digest
    head = meta[HEAD_KEY] or {}
    if head.get("seq") != len(commits) or head.get("hash") != rebuilt.event_digest:
        check.problems.append(f"the log ends at commit {len(commits)} but its recorded head is commit "
                              f"{head.get('seq')}: commits were deleted or added outside the market")
    last = _chain_problems(check, path, root, records, commits)
    _tail_problems(check, meta[RUNNING_KEY], commits, last, held_elsewhere(path))
    _unanchored_files(check, path)
    return check


def _chain_problems(check: WorldCheck, path: Path, root: str, records: list[dict], commits: list[dict]) -> int:
    """Check the episode chain; return the last commit it anchors."""
    prev, last = root, 0
    for i, rec in enumerate(records, start=1):
        body, where = rec["body"], f"episode {i}"
        check.episodes += 1
        if body.get("status") == "aborted":
            check.aborted.append(i)
        if rec["n"] != i or body.get("episode") != i:
            check.problems.append(f"{where}: the episode chain skips or repeats a number (found {rec['n']})")
        if rec["prev_hash"] != prev:
            first = "the initial state or the market configuration was changed" if i == 1 else "an earlier record"
            check.problems.append(f"{where}: anchored record does not link to the one before ({first})")
        if chain(rec["prev_hash"], body) != rec["hash"]:
            check.problems.append(f"{where}: anchored record was changed (hash mismatch)")
        prev = rec["hash"]
        first_c, last_c = body.get("first_commit"), body.get("last_commit")
        if first_c != last + 1 or not isinstance(last_c, int) or not last <= last_c <= len(commits):
            check.problems.append(f"{where}: anchors commits {first_c}..{last_c}, which do not follow commit "
                                  f"{last} within the log's {len(commits)}")
        else:
            head = commits[last_c - 1]["hash"] if last_c else GENESIS
            if body.get("commit_head") != head:
                check.problems.append(f"{where}: commit {last_c} is not the one the episode ended on")
            last = last_c
        for name, digest in sorted(body.get("files", {}).items()):
            file = episodes_dir(path) / name
            if not file.is_file():
                check.problems.append(f"{where}: {name} is missing")
            elif file_digest(file) != digest:
                check.problems.append(f"{where}: {name} was changed (its digest differs from the anchored one)")
    check.root_digest = prev
    return last


def _tail_problems(check: WorldCheck, running: dict | None, commits: list[dict], last: int, live: bool) -> None:
    """Commits after the last anchored episode: the running one's (``live``: its process holds the World), or no one's."""
    tail = commits[last:]
    if running is not None and running.get("episode") == check.episodes + 1 and running.get("first_commit") == last + 1:
        check.running = running
        n = running["episode"]
        check.notes.append(f"episode {n} is running (another process holds the World): {len(tail)} commit(s) so far"
                           if live else f"episode {n} did not close (its process ended): {len(tail)} commit(s); "
                           "it is closed as aborted on the next open")
    elif running is not None:
        check.problems.append(f"the running-episode marker (episode {running.get('episode')}) does not follow "
                              f"the last anchored episode ({check.episodes})")
    elif tail:
        check.problems.append(f"{len(tail)} commit(s) belong to no episode trace (first: {tail[0]['seq']}): "
                              "commits made outside any episode")


def _unanchored_files(check: WorldCheck, path: Path) -> None:
    folder = episodes_dir(path)
    if not folder.is_dir():
        return
    numbered = [(int(m.group(1)), p.name) for p in folder.iterdir() if (m := EPISODE_FILE.fullmatch(p.name))]
    running = check.running["episode"] if check.running else None
    if any(n == running for n, _ in numbered):
        check.notes.append(f"episode {running}'s files exist without their anchor (its process ended while closing "
                           "it); the next open checks and anchors them")
    stray = sorted(name for n, name in numbered if n > check.episodes and n != running)
    if stray:
        check.problems.append(f"{', '.join(stray)}: episode file(s) not anchored in the World, which holds "
                              f"{check.episodes} episode(s)")


def verify_world(world: str | Path) -> WorldCheck:
    """Everything :func:`inspect_world` checks, and each closed episode's trace against its commits."""
    check = inspect_world(world)
    if not check.readable or not check.state_digest:  # nothing replayed: no commits to link traces to
        return check
    owner: dict[int, int] = {}
    for rec in check.records:
        body = rec["body"]
        span = _span(rec)
        if body.get("status") == "aborted":
            owner.update(dict.fromkeys(span, rec["n"]))
        else:
            check.problems += _trace_problems(Path(world), rec["n"], check.commit_list, owner, span)
    anchored = max([0, *(s.stop - 1 for s in map(_span, check.records))])
    orphans = [c["seq"] for c in check.commit_list[:anchored] if c["seq"] not in owner]
    if orphans:
        check.problems.append(f"{len(orphans)} commit(s) belong to no episode trace (first: {orphans[0]})")
    return check


def _span(record: dict[str, Any]) -> range:
    """The commits an anchored record claims (empty when its numbers are not integers)."""
    first, last = record["body"].get("first_commit"), record["body"].get("last_commit")
    return range(first, last + 1) if type(first) is int and type(last) is int else range(0)


def _trace_problems(path: Path, n: int, commits: list[dict], owner: dict[int, int], span: range) -> list[str]:
    base = episodes_dir(path) / f"episode-{n:04d}"
    try:
        records = read_trace(base.with_suffix(".jsonl"))
        digest = verify_trace(records)
        summary = json.loads(base.with_suffix(".json").read_text())
    except (OSError, TraceError, ValueError) as exc:
        return [f"episode {n}: {exc}"]
    problems = []
    if summary.get("trace_digest") != digest:
        problems.append(f"episode {n}: trace digest differs from the one stored with the episode")
    for rec in records:
        if rec.commit is None:
            continue
        where = f"episode {n}, trace record {rec.n}"
        if rec.commit not in span:
            problems.append(f"{where}: cites commit {rec.commit}, outside the episode's commits "
                            f"{span.start}..{span.stop - 1}")
            continue
        if rec.commit > len(commits):
            problems.append(f"{where}: cites commit {rec.commit}, which the World does not have")
            continue
        c = commits[rec.commit - 1]
        if c["validation_id"] != rec.validation.validation_id or c["actor"] != rec.actor:
            problems.append(f"{where}: commit {rec.commit} was made by another proposal")
        elif canonical(c["body"]["delta"]) != canonical(rec.delta):
            problems.append(f"{where}: commit {rec.commit}'s delta differs from the one traced")
        if rec.commit in owner:
            problems.append(f"{where}: commit {rec.commit} is also claimed by episode {owner[rec.commit]}")
        owner[rec.commit] = n
    return problems
