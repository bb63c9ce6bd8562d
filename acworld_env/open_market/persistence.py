"""A persistent open-market World: one SQLite file carried across episodes and processes.

``market-v1`` with ``world="market.sqlite"`` opens (or creates) the file; every commit of every
episode is appended durably as it happens. Opening:

1. takes the World's lock (:mod:`.world_lock`): a second process gets ``WorldInUseError``;
2. checks the file read-only (:func:`.world_check.inspect_world`) and refuses a World that is
   missing beside its episodes, empty, truncated, shortened or edited (``WorldFileError``),
   having written nothing;
3. closes an episode whose process ended before it closed, as aborted (:mod:`.recovery`), so
   its commits belong to it;
4. marks the new episode as running.

Closing an episode writes its trace and summary (clearing, scores, welfare report) to
``market.sqlite.episodes/episode-NNNN.{jsonl,json}``, each created exclusively (never
overwritten), then anchors their digests in the episode chain (:mod:`.world_log`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import views
from .mandates import MarketConfig, MarketConfigError
from .recovery import close_interrupted
from .recovery import plan as recovery_plan
from .world_check import (
    EPISODE_FILE,
    WorldCheck,
    episodes_dir,
    file_digest,
    inspect_world,
    verify_world,
)
from .world_lock import WorldInUseError, WorldLock
from .world_log import RUNNING_KEY, MarketLog, WorldFileError, write_new

if TYPE_CHECKING:
    from .protocol import Episode

__all__ = ["EpisodeStore", "WorldCheck", "WorldFileError", "WorldInUseError", "episodes_dir", "verify_world",
           "write_new"]


def _refuse_if_unusable(path: Path, config: MarketConfig) -> WorldCheck | None:
    """The read-only check of an existing World (None for a new one); raises on anything wrong."""
    if not path.exists():
        folder = episodes_dir(path)
        kept = sorted(p.name for p in folder.iterdir() if EPISODE_FILE.fullmatch(p.name)) if folder.is_dir() else []
        if kept:
            raise WorldFileError(f"{path} is missing but {folder} holds {len(kept)} episode file(s): the World was "
                                 "deleted or moved; restore it, or give a new path")
        return None
    check = inspect_world(path)
    stored = check.config
    if check.readable and stored is not None and stored != config.to_dict():
        diff = ", ".join(f"{k}={stored.get(k)!r} (asked {v!r})" for k, v in config.to_dict().items()
                         if stored.get(k) != v)
        raise MarketConfigError(f"{path} is the World of another market: {diff}")
    if not check.ok:
        shown = "; ".join(check.problems[:4])
        more = f" (and {len(check.problems) - 4} more)" if len(check.problems) > 4 else ""
        raise WorldFileError(f"{path} cannot be opened: {shown}{more}; nothing was written "
                             f"(`acworld verify {path}` reports on it)")
    return check


class EpisodeStore:
    """An opened persistent World: its log, its lock, and where its episodes go."""

    def __init__(self, path: Path, log: MarketLog, lock: WorldLock, episode: int) -> None:
        self.path = path
        self.log = log
        self.lock = lock
        self.episode = episode
        """The number the running episode will be anchored under."""
        self.recovered: tuple[int, str] | None = None
        """The interrupted episode this open closed, and how (``aborted``, or ``closed`` when it had ended)."""

    @classmethod
    def open(cls, world: str | Path, config: MarketConfig, initial_state: dict) -> EpisodeStore:
        """Lock, check, recover and open ``world`` (see the module docstring); create it when new."""
        path = Path(world)
        if path.is_dir():
            raise MarketConfigError(f"world={str(path)!r} is a directory; give a .sqlite file path")
        if not path.parent.is_dir():
            raise MarketConfigError(f"world={str(path)!r}: folder {str(path.parent)!r} does not exist")
        lock = WorldLock.acquire(path)
        try:
            check = _refuse_if_unusable(path, config)
            n = (check.episodes if check else 0) + 1
            recovery = recovery_plan(path, n, check) if check is not None and check.running is not None else None
            log = MarketLog(path, durable=True)  # the first write: every refusal is above
            if check is None:
                log.create(config.to_dict(), initial_state)
            episodes_dir(path).mkdir(exist_ok=True)
            store = cls(path, log, lock, n)
            if recovery is not None:
                store.recovered = (n, close_interrupted(path, log, *recovery))
                store.episode += 1
        except BaseException:
            lock.release()
            raise
        return store

    def begin(self, first_commit: int, phases: list[str]) -> None:
        """Mark the episode about to play as running (closed as aborted on a later open if it never closes)."""
        self.log.set_meta(RUNNING_KEY, {"episode": self.episode, "first_commit": first_commit, "phases": phases})

    def save_episode(self, market: Episode, first_commit: int) -> Path:
        """Write the episode's trace and summary exclusively and anchor them; return the trace path."""
        n, folder = self.episode, episodes_dir(self.path)
        world = market.market.world
        trace = market.market.trace
        commits = [r.commit for r in trace.records if r.commit is not None]
        summary: dict[str, Any] = {
            "episode": n, "status": "closed", "config": market.config.to_dict(), "phases": market.phases,
            "first_commit": first_commit, "last_commit": len(world.commits), "trace_digest": trace.digest,
            "commits": commits, "state_digest": world.state_digest(), "event_digest": world.event_digest,
            "rankings": market.rankings, "assignment": market.clearing.assignment, "orders": market.orders,
            "scores": market.scores, **views.host_report(market)}
        lines = "".join(json.dumps(r.to_dict(), sort_keys=True, ensure_ascii=False) + "\n" for r in trace.records)
        names = [write_new(folder / f"episode-{n:04d}.jsonl", lines.encode()),
                 write_new(folder / f"episode-{n:04d}.json", json.dumps(summary, indent=1, sort_keys=True).encode())]
        self.log.anchor({"episode": n, "status": "closed", "first_commit": first_commit,
                         "last_commit": len(world.commits), "commit_head": world.event_digest,
                         "state_digest": summary["state_digest"], "trace_digest": trace.digest,
                         "files": {name: _digest(self.path, name) for name in names}})
        self.episode = n + 1
        return folder / names[0]

    @property
    def root_digest(self) -> str:
        """The World's root digest: the last hash of its episode chain."""
        return self.log.root()

    def close(self) -> None:
        """Fold the WAL into the file, close it and release the lock."""
        try:
            self.log.seal()
            self.log.close()
        finally:
            self.lock.release()


def _digest(world: Path, name: str) -> str:
    return file_digest(episodes_dir(world) / name)
