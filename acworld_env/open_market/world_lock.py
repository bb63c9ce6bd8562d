"""One process at a time on a persistent World: an exclusive ``flock`` on ``<world>.lock``.

The lock file exists only while a process holds the World (it is removed on release; a process
that dies loses its lock with it, and the next open takes the file over). A second process, or a
second env in the same process, gets :class:`WorldInUseError` at open, before it reads or writes
anything. Taking the lock checks that the locked file is still the one at the path, so a holder
removing it on release never lets two processes in. POSIX only (``fcntl``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from .world_log import WorldFileError


class WorldInUseError(WorldFileError):
    """Another process (or another env of this one) holds the World."""


def lock_path(world: str | Path) -> Path:
    """The lock file of ``world``."""
    return Path(f"{world}.lock")


def _holder(fd: int) -> str:
    with contextlib.suppress(OSError, ValueError):
        pid = int(os.pread(fd, 32, 0).decode().strip() or 0)
        if pid:
            return f" (process {pid})"
    return ""


class WorldLock:
    """An exclusive hold on one World, released by :meth:`release` or by the process ending."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd: int | None = fd

    @classmethod
    def acquire(cls, world: str | Path) -> WorldLock:
        """Hold ``world`` or raise :class:`WorldInUseError` at once (never waits)."""
        path = lock_path(world)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise WorldInUseError(f"{world} is in use by another process{holder}: a World is opened by one "
                                      "env at a time; close the other one first") from None
            try:
                current = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                current = False
            if current:
                break
            os.close(fd)  # the holder before us removed this file on release: lock the new one
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        """Remove the lock file and let go (idempotent)."""
        if self.fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        os.close(self.fd)
        self.fd = None


def held_elsewhere(world: str | Path) -> bool:
    """True when a live process holds ``world`` (reads the lock file only; creates nothing)."""
    try:
        fd = os.open(lock_path(world), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
