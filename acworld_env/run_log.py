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
The initial state's stored text (the largest row, the same for every run of a task) is encoded
once per distinct state (:func:`initial_state_text`).
"""

from __future__ import annotations

import json
import marshal
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

_INITIAL_TEXT: dict[bytes, str] = {}
"""Stored text of initial states by their exact ``marshal`` image (most recent last)."""
_INITIAL_TEXT_MAX = 256
_INITIAL_TEXT_LOCK = threading.Lock()


def initial_state_text(initial_state: dict) -> str:
    """The ``meta`` row :meth:`CommitLog.set_meta` stores for ``initial_state`` (``json.dumps`` with sorted
    keys), encoded once per distinct state.

    The key is the state's exact ``marshal`` image, which keeps every type (``True`` is not ``1``,
    ``1`` is not ``1.0``), so two states share a text only when ``json.dumps`` would write the same
    one; writing the image costs a tenth of encoding the JSON. A state ``marshal`` cannot write is
    encoded each time.
    """
    try:
        image = marshal.dumps(initial_state, 2)
    except ValueError:
        return json.dumps(initial_state, sort_keys=True)
    text = _INITIAL_TEXT.get(image)
    if text is None:
        text = json.dumps(initial_state, sort_keys=True)
        with _INITIAL_TEXT_LOCK:  # runs in other threads fill it too
            if len(_INITIAL_TEXT) >= _INITIAL_TEXT_MAX:
                del _INITIAL_TEXT[next(iter(_INITIAL_TEXT))]
            _INITIAL_TEXT[image] = text
    return text


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
        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", ("initial_state", initial_state_text(initial_state)))
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

