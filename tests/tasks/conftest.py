"""Shared, expensive fixtures of the task tests: the validity gate over the whole frozen suite runs once.

Every family's test file asserts on its own family's report; computing the reports once for the
200 frozen tasks (rather than once per family file and again for the suite) keeps the suite fast
without weakening any assertion: a family's report is the same whether its tasks are validated
alone or with the others (reports are kept per family).
"""

from __future__ import annotations

import pytest

from acworld_env.eval.validate import FamilyReport, validate_tasks
from acworld_env.tasks.frozen import load_frozen


@pytest.fixture(scope="session")
def frozen_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, FamilyReport]:
    """The validity gate's report per family over every frozen capability-v1 task."""
    return validate_tasks(load_frozen("capability-v1"), workdir=tmp_path_factory.mktemp("frozen-gate"))
