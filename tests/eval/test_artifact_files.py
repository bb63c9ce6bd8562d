"""Artifact files written by system calls: the bytes, the truncation and the permissions of ``open``."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from acworld_env.artifacts import write_file, write_new_file


def test_write_file_writes_the_whole_file_and_truncates_a_longer_one(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    big = bytes(range(256)) * 5000  # over a megabyte: written whatever a single write takes
    write_file(path, big)
    assert path.read_bytes() == big
    write_file(path, b"{}\n")
    assert path.read_bytes() == b"{}\n"
    with pytest.raises(FileExistsError):
        write_file(path, b"x", exclusive=True)
    assert path.read_bytes() == b"{}\n"


def test_files_get_the_permissions_open_gives(tmp_path: Path) -> None:
    write_file(tmp_path / "ours", b"x")
    (tmp_path / "theirs").write_bytes(b"x")
    mode = stat.S_IMODE
    assert mode(os.stat(tmp_path / "ours").st_mode) == mode(os.stat(tmp_path / "theirs").st_mode)


def test_write_new_file_replaces_rather_than_rewrites(tmp_path: Path) -> None:
    path, other = tmp_path / "commits.sqlite", tmp_path / "elsewhere.sqlite"
    write_new_file(path, b"first")
    os.link(path, other)  # a second name for the old file keeps the old bytes
    write_new_file(path, b"second")
    assert path.read_bytes() == b"second" and other.read_bytes() == b"first"
