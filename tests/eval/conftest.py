"""Fixtures of the evaluation tests: one reference and one random evaluation of capability-v1, shared."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from eval_kit import cli


@pytest.fixture(scope="session")
def reference_eval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``acworld eval capability-v1 --policy reference`` (read-only for tests: copy before changing)."""
    out = tmp_path_factory.mktemp("evals") / "reference"
    result = cli("eval", "capability-v1", "--policy", "reference", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session")
def random_eval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``acworld eval capability-v1 --policy random`` (read-only for tests)."""
    out = tmp_path_factory.mktemp("evals") / "random"
    result = cli("eval", "capability-v1", "--policy", "random", "--out", out, "--quiet", "--concurrency", "8")
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def copy_of(tmp_path: Path):
    """Copy an evaluation folder into this test's tmp_path (to tamper with or resume)."""

    def copy(src: Path) -> Path:
        dst = tmp_path / src.name
        shutil.copytree(src, dst)
        return dst

    return copy
