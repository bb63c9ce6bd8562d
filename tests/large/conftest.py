"""A small catalog from the large-v1 generator (a few thousand listings), built once per session;
``@pytest.mark.slow`` tests (the full-size ``large-v1`` checks) run only with ACWORLD_SLOW=1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acworld_env.catalog.synth import SynthConfig, synthesize

REPO = Path(__file__).resolve().parents[2]
SHOPIFY = (REPO / ".." / "shared" / "data" / "shopify").resolve()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("ACWORLD_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="full-size large-v1 check: set ACWORLD_SLOW=1 to run")
    for item in items:
        if "slow" in item.keywords and "tests/large" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shopify_dir() -> Path:
    """The shared real Shopify dumps (read in place, never copied into the repository)."""
    if not SHOPIFY.is_dir():
        pytest.skip(f"real Shopify dumps not found at {SHOPIFY} (expected ../shared/data/shopify/ next to the "
                    "repository); the large track over a user's catalog is not tested on real data")
    return SHOPIFY


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
