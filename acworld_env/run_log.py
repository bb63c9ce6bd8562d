"""A finished run's commit log as bytes, built in memory and written in one piece.

A run's ``commits.sqlite`` used to be built on disk: created in WAL mode, filled, folded back
and taken out of WAL mode. That created and removed four side files (``-journal`` twice,
``-wal``, ``-shm``) and flushed to disk four times per run, for a file nobody reads before the
run ends (a run's log promises no durability; a crashed run is rerun). The same pages are now
built in an in-memory database and written with one ``write``; the header fields an in-memory
database leaves at zero are set to what the on-disk way wrote, so the file is byte for byte the
one it was (a test builds both ways and compares).

Each thread keeps one in-memory log with the schema already created (opening a database and
parsing its schema cost more than filling it): a run's rows go in inside a transaction, the
pages are copied out, and the transaction is rolled back, which leaves the empty log as it was.
"""

from __future__ import annotations

import sqlite3
import threading

from .world import CommitLog
from .world.digest import canonical

SEALED_CHANGE_COUNTER = 3
"""The file change counter of a sealed run log written on disk: 1 when the file was created (in WAL
mode), 2 when the checkpoint folded the WAL back, 3 when the log left WAL mode."""


def _version_number(version: str) -> int:
    """``SQLITE_VERSION_NUMBER`` of a version string (``3.40.1`` -> 3040001)."""
    major, minor, patch = (int(p) for p in (version.split(".") + ["0", "0"])[:3])
    return major * 1_000_000 + minor * 1_000 + patch


_HEADER = {
    24: SEALED_CHANGE_COUNTER,  # file change counter
    92: SEALED_CHANGE_COUNTER,  # the change counter at which the version below was stored
    96: _version_number(sqlite3.sqlite_version),  # the library version that last wrote the file
}
"""Header fields (offset: value) an in-memory database leaves at zero, as the on-disk way wrote them."""

_local = threading.local()


def _empty_log() -> CommitLog:
    """This thread's empty in-memory log (schema created by :class:`CommitLog` itself)."""
    log = getattr(_local, "log", None)
    if log is None:
        log = _local.log = CommitLog(":memory:", durable=False)
    return log


def log_image(initial_state: dict, commits: list[dict], validations: list[dict]) -> bytes:
    """The bytes of a sealed commit log holding ``initial_state``, ``commits`` and ``validations``.

    The rows are those :meth:`CommitLog.set_meta` and :meth:`CommitLog.append_many` write, in
    the same order (validations, then commits), inside one transaction that is rolled back once
    the pages are copied. A failure drops this thread's log, so the next run starts from a new one.
    """
    log = _empty_log()
    conn = log.conn
    conn.execute("BEGIN")
    try:
        log.set_meta("initial_state", initial_state)
        conn.executemany("INSERT OR IGNORE INTO validations VALUES (?, ?)",
                         [(v["validation_id"], canonical(v).decode()) for v in validations])
        conn.executemany("INSERT INTO commits VALUES (?, ?, ?, ?, ?, ?)",
                         [(c["seq"], c["actor"], c["validation_id"], canonical(c["body"]).decode(),
                           c["prev_hash"], c["hash"]) for c in commits])
        image = bytearray(conn.serialize())
        conn.execute("ROLLBACK")
    except BaseException:
        _local.log = None
        log.close()
        raise
    for offset, value in _HEADER.items():
        image[offset:offset + 4] = value.to_bytes(4, "big")
    return bytes(image)

