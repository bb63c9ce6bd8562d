"""Shared, expensive fixtures of the task tests: each family's part of the validity gate runs once.

Every family's test file asserts on its own family's report, and the suite test on all ten;
a family's report is computed on first use and kept for the session, so the full suite validates
the 200 frozen tasks once (not once per family file and again for the suite) and a run of one
family's file validates only that family. A family's report is the same whether its tasks are
validated alone or with the others (reports are kept per family).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acworld_env.eval.validate import FamilyReport, validate_tasks
from acworld_env.tasks.frozen import load_frozen
from acworld_env.tasks.spec import TaskSpec


class FrozenReports(dict[str, FamilyReport]):
    """Family -> the validity gate's report over its frozen capability-v1 tasks, computed on first access."""

    def __init__(self, tasks: list[TaskSpec], workdir: Path) -> None:
        super().__init__()
        self.tasks, self.workdir = tasks, workdir
        self.families = sorted({t.family for t in tasks})

    def __missing__(self, family: str) -> FamilyReport:
        tasks = [t for t in self.tasks if t.family == family]
        if not tasks:
            raise KeyError(f"no frozen task of family {family!r}")
        report = self[family] = validate_tasks(tasks, workdir=self.workdir / family)[family]
        return report

    def all(self) -> dict[str, FamilyReport]:
        """Every family's report."""
        return {family: self[family] for family in self.families}


@pytest.fixture(scope="session")
def frozen_reports(tmp_path_factory: pytest.TempPathFactory) -> FrozenReports:
    """The validity gate's report per family over the frozen capability-v1 tasks (lazily, once each)."""
    return FrozenReports(load_frozen("capability-v1"), tmp_path_factory.mktemp("frozen-gate"))
