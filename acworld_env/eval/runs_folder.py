"""An evaluation's ``runs/`` folder, made so that creating run folders stays cheap after deletions nearby.

On ext4 without a journal (this project's test box; common for cloud scratch disks), the inode
allocator will not reuse an inode freed in the last minute (six, while the freed inode's table
block is not yet written back): to create a file it walks its block group's free inodes from
the first, looks each one's table block up in the buffer cache and skips the recently freed.
After a few thousand deletions in that group (``rm -rf`` of the last evaluation, another job's
temporary files) every file created there pays for all of them; ``perf`` shows the kernel time
in ``recently_deleted`` under ``__ext4_new_inode``. A run creates six (its folder and five files).

So ``runs/`` is marked as the top of a directory hierarchy (``chattr +T``: the ``FS_TOPDIR_FL``
inode flag). ext4 places every folder made in such a folder as it places folders under the root
(Orlov's spread: a block group with free inodes and blocks above the average), not beside its
parent, where the deletions are; a run's files then go to its folder's group. Measured on the test
box after 6,000 files were deleted beside the output folder: 0.17-0.25 ms of kernel time per run
(folder and five files) with the flag, 1.55-3.46 ms without. A file system without the flag, a
folder the user may not flag, or another platform: the folder is made as before. No artifact byte
depends on it (a copy of the folder drops the flag, and nothing reads it).
"""

from __future__ import annotations

import os
import platform
import struct
import sys
from pathlib import Path

FS_TOPDIR_FL = 0x00020000
"""``chattr +T``: folders made inside are spread like top-level folders (ext2/3/4)."""

_ARCHES = {"x86_64", "amd64", "aarch64", "arm64"}
"""Machines whose ``ioctl`` numbers use the generic encoding computed below."""


def _ioctl_number(direction: int, nr: int) -> int:
    """``_IOC(direction, 'f', nr, sizeof(long))``: ``FS_IOC_GETFLAGS`` (read, 1) and ``FS_IOC_SETFLAGS`` (write, 2)."""
    return (direction << 30) | (struct.calcsize("l") << 16) | (ord("f") << 8) | nr


FS_IOC_GETFLAGS = _ioctl_number(2, 1)
FS_IOC_SETFLAGS = _ioctl_number(1, 2)


def make_runs_folder(out: Path) -> Path:
    """``out/runs``, created if missing and flagged as a top folder where the file system allows it.

    Never raises: a ``runs`` that cannot be made (a file in its place) is left for the runs to
    report, each as an unscored run with the reason, as when they made it themselves.
    """
    runs = out / "runs"
    try:
        runs.mkdir(parents=True, exist_ok=True)
    except OSError:
        return runs
    mark_top_folder(runs)
    return runs


def mark_top_folder(folder: Path) -> bool:
    """Set ``FS_TOPDIR_FL`` on ``folder``; True when it is set now, False where it cannot be (never raises)."""
    if sys.platform != "linux" or platform.machine().lower() not in _ARCHES:
        return False
    import array
    import fcntl

    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        flags = array.array("i", [0])  # the kernel reads and writes an int, whatever the number says
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags, True)
        if not flags[0] & FS_TOPDIR_FL:
            flags[0] |= FS_TOPDIR_FL
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, flags)
        return True
    except OSError:  # no such flags here (tmpfs, overlayfs, NFS, ...), or not ours to set
        return False
    finally:
        os.close(fd)


def has_top_flag(folder: Path) -> bool | None:
    """Whether ``folder`` carries ``FS_TOPDIR_FL``; None where flags cannot be read."""
    if sys.platform != "linux" or platform.machine().lower() not in _ARCHES:
        return None
    import array
    import fcntl

    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        flags = array.array("i", [0])
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags, True)
        return bool(flags[0] & FS_TOPDIR_FL)
    except OSError:
        return None
    finally:
        os.close(fd)
