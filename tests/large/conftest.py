"""A small catalog from the large-v1 generator (a few thousand listings), built once per session
(the full-size ``large-v1`` checks are ``@pytest.mark.slow``: ``tests/conftest.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acworld_env.catalog.synth import SynthConfig, synthesize

SMALL = SynthConfig(name="large-ci", listings=4000, merchants=40, seed=20240601)
"""Same generator and defaults as ``large-v1`` (messy labels, seven currencies), 4,000 listings."""


@pytest.fixture(scope="session")
def small_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("large") / "small.sqlite"
    synthesize(SMALL, path)
    return path


@pytest.fixture(scope="session")
def small_tasks(small_catalog: Path) -> list:
    from acworld_env.tasks.large.suite import build_over_file

    return build_over_file(small_catalog, seed=3)
