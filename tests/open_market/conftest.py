"""Open-market tests; ``@pytest.mark.slow`` ones (scale) run only with ACWORLD_SLOW=1."""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip this folder's slow tests unless ACWORLD_SLOW=1."""
    if os.environ.get("ACWORLD_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="scale test: set ACWORLD_SLOW=1 to run")
    here = os.path.dirname(__file__)
    for item in items:
        if "slow" in item.keywords and str(item.fspath).startswith(here):
            item.add_marker(skip)
