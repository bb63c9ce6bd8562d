"""The runs folder is flagged as a top folder where the file system has the flag, and made as before elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from acworld_env.eval.runner import EvalConfig, run_eval
from acworld_env.eval.runs_folder import has_top_flag, make_runs_folder, mark_top_folder


def test_the_runs_folder_is_made_and_flagged_where_the_flag_exists(tmp_path: Path) -> None:
    runs = make_runs_folder(tmp_path / "out")
    assert runs == tmp_path / "out" / "runs" and runs.is_dir()
    flagged = has_top_flag(runs)
    if flagged is None:
        pytest.skip("this file system has no inode flags")
    assert flagged == mark_top_folder(runs)  # set where it can be; asking again changes nothing
    assert make_runs_folder(tmp_path / "out") == runs


def test_a_folder_that_cannot_be_flagged_is_left_as_it_is(tmp_path: Path) -> None:
    assert mark_top_folder(tmp_path / "missing") is False  # never raises
    plain = tmp_path / "file"
    plain.write_text("x")
    assert mark_top_folder(plain) is False
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "runs").write_text("in the way")
    assert make_runs_folder(tmp_path / "out") == tmp_path / "out" / "runs"  # left for the runs to report


def test_an_evaluation_flags_its_runs_folder(tmp_path: Path) -> None:
    probe = make_runs_folder(tmp_path / "probe")
    if not has_top_flag(probe):
        pytest.skip("this file system cannot flag a top folder")
    summary = run_eval(EvalConfig(env_id="capability-v1", policy="reference", out=tmp_path / "out", concurrency=1,
                                  tasks="*/T4/buyer/zopa/*"), progress=False)
    assert summary["scored"] == 3 and has_top_flag(tmp_path / "out" / "runs") is True
