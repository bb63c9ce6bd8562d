"""Shared fixtures for catalog tests; ``@pytest.mark.slow`` tests run only with ACWORLD_SLOW=1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acworld_env.catalog import Catalog, default_catalog_path
from acworld_env.catalog.synth import SynthConfig, synthesize

REPO = Path(__file__).resolve().parents[2]
SHOPIFY = (REPO / ".." / "shared" / "data" / "shopify").resolve()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("ACWORLD_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="scale test: set ACWORLD_SLOW=1 to run")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shopify_dir() -> Path:
    """The shared real Shopify dumps (never copied into the repository)."""
    if not SHOPIFY.is_dir():
        pytest.skip(f"real Shopify dumps not found at {SHOPIFY} (expected ../shared/data/shopify/"
                    " next to the repository); ingestion tests on real data skipped")
    return SHOPIFY


@pytest.fixture(scope="session")
def capability() -> Catalog:
    """The shipped capability-v1 catalog."""
    return Catalog.open(default_catalog_path())


SMALL = SynthConfig(listings=4000, merchants=17, seed=11, name="small-test")


@pytest.fixture(scope="session")
def small_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A messy multi-currency synthetic catalog (all departments)."""
    path = tmp_path_factory.mktemp("cat") / "small.sqlite"
    synthesize(SMALL, path)
    return path


@pytest.fixture(scope="session")
def small(small_path: Path) -> Catalog:
    return Catalog.open(small_path)
