"""One evaluation per output folder: a lock file holding the owner's pid.

Two ``acworld eval`` commands writing one folder mix their runs (two policies in one
summary that still verifies run by run). The first takes ``<out>/.acworld-eval.lock``
(created exclusively); a second refuses at once and names the owner. A lock whose owner
process is gone (killed, crashed) is stale: the next evaluation takes it over and says so.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from ..core.errors import AcworldError

LOCK_FILE = ".acworld-eval.lock"


class OutputInUse(AcworldError, ValueError):
    """Another live evaluation holds the folder, or the folder cannot be used at all."""


def prepare_out(out: Path) -> None:
    """Check ``out`` can hold an evaluation (before any run starts); :class:`OutputInUse` says why not."""
    if out.exists() and not out.is_dir():
        raise OutputInUse(f"--out {out} is an existing file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputInUse(f"cannot create --out {out}: {exc.strerror or exc}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise OutputInUse(f"--out {out} is not writable")


class OutLock:
    """The lock on an output folder; use as a context manager, or :meth:`acquire` / :meth:`release`."""

    def __init__(self, out: Path) -> None:
        self.path = out / LOCK_FILE
        self.took_over: int | None = None
        """Pid of a dead owner whose stale lock was taken over, if any."""
        self._held = False

    def acquire(self) -> OutLock:
        """Take the lock or raise :class:`OutputInUse`."""
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                owner = _owner(self.path)
                if owner is not None and _alive(owner):
                    raise OutputInUse(f"{self.path.parent} is in use by another evaluation (pid {owner}); "
                                      "wait for it, or choose another --out") from None
                self.took_over = owner if owner is not None else -1
                self.path.unlink(missing_ok=True)
                continue
            except OSError as exc:
                raise OutputInUse(f"cannot write to --out {self.path.parent}: {exc.strerror or exc}") from None
            with os.fdopen(fd, "w") as fh:
                json.dump({"pid": os.getpid(), "host": socket.gethostname()}, fh)
            self._held = True
            return self
        raise OutputInUse(f"{self.path.parent}: could not take the lock (another evaluation keeps taking it)")

    def release(self) -> None:
        """Remove the lock if this process holds it."""
        if self._held and _owner(self.path) == os.getpid():
            self.path.unlink(missing_ok=True)
        self._held = False

    def __enter__(self) -> OutLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _owner(path: Path) -> int | None:
    """The pid in a lock file; ``None`` when unreadable (a torn write counts as stale).

    A lock taken on another host (a shared file system) cannot be checked from here, so it is
    reported as held by pid 0, which :func:`_alive` treats as alive.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        pid, host = doc.get("pid"), doc.get("host")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(pid, int):
        return None
    return pid if host in (None, socket.gethostname()) else 0


def _alive(pid: int) -> bool:
    """Whether a process with this pid exists on this machine (pid 0: an owner on another host)."""
    if pid == 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True
