"""A persistent open-market World's log: the commit log, its recorded head, and the episode chain.

Beside the commits (the World's own hash chain, :class:`~acworld_env.world.CommitLog`) the file
holds what makes every score of every episode checkable:

* **the head** (meta ``open_market_head``): the sequence number and hash of the last commit,
  written in the same transaction as that commit, so a deleted or added commit row shows;
* **the genesis** (meta ``open_market_genesis``): ``H(GENESIS || canonical({market, initial
  state digest}))``, the root every episode hangs from, so an edited initial state shows;
* **the episode chain** (table ``open_market_episodes``): one record per closed or aborted
  episode, hash-chained from the genesis: its commits (first, last, the hash of the last), the
  state digest at its end, and the SHA-256 of each file it wrote (trace, summary with scores and
  welfare). Its last hash is the World's root digest;
* **the running marker** (meta ``open_market_running``): the episode under way; an episode that
  never closed (its process died) still has it on the next open, which closes it as aborted.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from ..core.errors import AcworldError
from ..world import GENESIS, CommitLog, canonical, chain, state_digest

META_KEY = "open_market"
HEAD_KEY = "open_market_head"
GENESIS_KEY = "open_market_genesis"
RUNNING_KEY = "open_market_running"
TABLE = "open_market_episodes"


class WorldFileError(AcworldError, RuntimeError):
    """A persistent World that cannot be opened as it is: truncated, shortened, edited or unanchored."""


def write_new(path: Path, data: bytes) -> str:
    """Create ``path`` holding ``data`` (never over an existing file), flushed to disk; return its name."""
    try:
        with open(path, "xb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except FileExistsError:
        raise WorldFileError(f"{path} already exists: an episode file is never overwritten") from None
    return path.name


def genesis(config: dict[str, int], initial_state: dict) -> str:
    """The root of a World's episode chain: its market configuration and initial state."""
    return chain(GENESIS, {"market": config, "initial_state": state_digest(initial_state)})


class MarketLog(CommitLog):
    """A commit log that records its head with every commit and keeps the episode chain."""

    def __init__(self, path: str | Path, *, durable: bool = True, readonly: bool = False) -> None:
        super().__init__(path, durable=durable, readonly=readonly)
        if not readonly:
            self.conn.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (n INTEGER PRIMARY KEY, body TEXT NOT NULL, "
                              "prev_hash TEXT NOT NULL, hash TEXT NOT NULL)")

    def create(self, config: dict[str, int], initial_state: dict) -> None:
        """Stamp a new World: configuration, initial state, genesis and an empty head, in one transaction."""
        with self.conn:
            self.conn.execute("BEGIN")
            self.set_meta(META_KEY, config)
            self.set_meta("initial_state", initial_state)
            self.set_meta(GENESIS_KEY, genesis(config, initial_state))
            self.set_meta(HEAD_KEY, {"seq": 0, "hash": GENESIS})

    # -- commits: each append moves the head in the same transaction -------------
    def append(self, commit: dict, validation: dict | None = None) -> None:
        """Append one commit (and the validation it cites) and move the head, atomically."""
        self.append_many([commit], [] if validation is None else [validation])

    def append_many(self, commits: list[dict], validations: list[dict]) -> None:
        """Append a batch and move the head to its last commit, in one transaction."""
        if not commits:
            return
        with self.conn:
            self.conn.execute("BEGIN")
            self.conn.executemany("INSERT OR IGNORE INTO validations VALUES (?, ?)",
                                  [(v["validation_id"], canonical(v).decode()) for v in validations])
            self.conn.executemany("INSERT INTO commits VALUES (?, ?, ?, ?, ?, ?)",
                                  [(c["seq"], c["actor"], c["validation_id"], canonical(c["body"]).decode(),
                                    c["prev_hash"], c["hash"]) for c in commits])
            self.set_meta(HEAD_KEY, {"seq": commits[-1]["seq"], "hash": commits[-1]["hash"]})

    # -- the episode chain --------------------------------------------------------
    def episodes(self) -> list[dict[str, Any]]:
        """Every anchored episode record: ``{"n", "body", "prev_hash", "hash"}`` in order."""
        try:
            rows = self.conn.execute(f"SELECT n, body, prev_hash, hash FROM {TABLE} ORDER BY n").fetchall()
        except sqlite3.DatabaseError as exc:
            raise WorldFileError(f"{self.path}: no readable episode chain ({exc}); a World made before episodes "
                                 "were anchored, or not an open-market World") from exc
        out = []
        for n, body, prev, digest in rows:
            try:
                value = json.loads(body)
            except (TypeError, ValueError):
                value = None
            if not isinstance(value, dict):
                raise WorldFileError(f"{self.path}: episode record {n} is not a JSON object")
            out.append({"n": n, "body": value, "prev_hash": prev, "hash": digest})
        return out

    def root(self) -> str:
        """The last hash of the episode chain (the genesis while no episode is anchored)."""
        row = self.conn.execute(f"SELECT hash FROM {TABLE} ORDER BY n DESC LIMIT 1").fetchone()
        return row[0] if row else str(self.get_meta(GENESIS_KEY))

    def anchor(self, body: dict[str, Any]) -> str:
        """Chain one episode record after the last, end the running marker; return the new root."""
        with self.conn:
            self.conn.execute("BEGIN")
            prev = self.root()
            digest = chain(prev, body)
            self.conn.execute(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?)",
                              (body["episode"], canonical(body).decode(), prev, digest))
            self.conn.execute("DELETE FROM meta WHERE key = ?", (RUNNING_KEY,))
        return digest
