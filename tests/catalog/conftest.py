"""Shared fixtures for catalog tests (slow tests and the Shopify dumps: ``tests/conftest.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acworld_env.catalog import Catalog, default_catalog_path
from acworld_env.catalog.synth import SynthConfig, synthesize


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
