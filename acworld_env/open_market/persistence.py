"""A persistent open-market World: one SQLite commit log carried across episodes and processes.

``market-v1`` with ``world="market.sqlite"`` opens (or creates) the file; every commit of every
episode is appended durably as it happens. Closing an episode writes its trace and clearing next
to the file, in ``market.sqlite.episodes/episode-NNNN.{jsonl,json}``. :func:`verify_world`
reconstructs the whole history from the log and checks that every episode's trace links to
exactly the commits it made, and that every commit belongs to one episode.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import AcworldError
from ..trace import TraceError, read_trace, verify_trace
from ..world import CommitLog, ReplayError, canonical, reconstruct
from .mandates import MarketConfig, MarketConfigError

if TYPE_CHECKING:
    from .protocol import Episode

META_KEY = "open_market"
EPISODES_KEY = "open_market_episodes"


def episodes_dir(world: str | Path) -> Path:
    """Where a World's episode traces are kept."""
    return Path(f"{world}.episodes")


class EpisodeStore:
    """An opened persistent World: its log, and where its episodes go."""

    def __init__(self, path: Path, log: CommitLog) -> None:
        self.path = path
        self.log = log

    @classmethod
    def open(cls, world: str | Path, config: MarketConfig) -> EpisodeStore:
        """Open or create ``world``; an existing World must have been made with the same configuration."""
        path = Path(world)
        if path.exists() and path.is_dir():
            raise MarketConfigError(f"world={str(path)!r} is a directory; give a .sqlite file path")
        if not path.parent.exists():
            raise MarketConfigError(f"world={str(path)!r}: folder {str(path.parent)!r} does not exist")
        log = CommitLog(path, durable=True)
        stored = log.get_meta(META_KEY)
        if stored is None and log.commits():
            log.close()
            raise MarketConfigError(f"{path} holds a World that is not an open market")
        if stored is not None and stored != config.to_dict():
            log.close()
            diff = ", ".join(f"{k}={stored.get(k)!r} (asked {v!r})" for k, v in config.to_dict().items()
                             if stored.get(k) != v)
            raise MarketConfigError(f"{path} is the World of another market: {diff}")
        log.set_meta(META_KEY, config.to_dict())
        episodes_dir(path).mkdir(exist_ok=True)
        return cls(path, log)

    def save_episode(self, market: Episode) -> Path:
        """Write the episode's trace and summary; return the trace path."""
        n = int(self.log.get_meta(EPISODES_KEY, 0)) + 1
        base = episodes_dir(self.path) / f"episode-{n:04d}"
        trace = market.market.trace
        trace.write(base.with_suffix(".jsonl"))
        commits = [r.commit for r in trace.records if r.commit is not None]
        summary = {"episode": n, "config": market.config.to_dict(), "phases": market.phases,
                   "trace_digest": trace.digest, "commits": commits,
                   "state_digest": market.market.world.state_digest(),
                   "event_digest": market.market.world.event_digest,
                   "rankings": market.rankings, "assignment": market.clearing.assignment,
                   "orders": market.orders, "welfare": market.welfare().to_dict(), "scores": market.scores}
        base.with_suffix(".json").write_text(json.dumps(summary, indent=1, sort_keys=True))
        self.log.set_meta(EPISODES_KEY, n)
        return base.with_suffix(".jsonl")

    def close(self) -> None:
        """Fold the WAL into the file and close it."""
        self.log.seal()
        self.log.close()


@dataclass
class WorldCheck:
    """The verdict on a persistent World and its episodes."""

    path: str
    commits: int = 0
    episodes: int = 0
    state_digest: str = ""
    event_digest: str = ""
    problems: list[str] = field(default_factory=list)
    readable: bool = True
    """False when the file is not a commit log with an initial state at all."""

    @property
    def ok(self) -> bool:
        """True when the history reconstructs and every link holds."""
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"path": self.path, "ok": self.ok, "commits": self.commits, "episodes": self.episodes,
                "state_digest": self.state_digest, "event_digest": self.event_digest, "problems": self.problems}


def verify_world(world: str | Path) -> WorldCheck:
    """Reconstruct the whole history of ``world`` and check each episode's links to its commits."""
    path = Path(world)
    check = WorldCheck(str(path))
    try:
        log = CommitLog(path, readonly=True)
        try:
            initial, commits, validations = log.get_meta("initial_state"), log.commits(), log.validations()
            n_episodes = int(log.get_meta(EPISODES_KEY, 0))
        finally:
            log.close()
    except (AcworldError, OSError, ValueError) as exc:
        check.problems.append(f"unreadable World: {exc}")
        check.readable = False
        return check
    if initial is None:
        check.problems.append("the log has no initial state")
        check.readable = False
        return check
    try:
        rebuilt = reconstruct(initial, commits, validations)
    except ReplayError as exc:
        check.problems.append(f"reconstruction failed: {exc}")
        return check
    check.commits, check.state_digest, check.event_digest = rebuilt.commits, rebuilt.state_digest, rebuilt.event_digest
    owner: dict[int, int] = {}
    for n in range(1, n_episodes + 1):
        check.episodes += 1
        check.problems += _episode_problems(path, n, commits, owner)
    orphans = [c["seq"] for c in commits if c["seq"] not in owner]
    if orphans and n_episodes:
        check.problems.append(f"{len(orphans)} commit(s) belong to no episode trace (first: {orphans[0]})")
    return check


def _episode_problems(path: Path, n: int, commits: list[dict], owner: dict[int, int]) -> list[str]:
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
        if not 1 <= rec.commit <= len(commits):
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
