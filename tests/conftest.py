"""Puts ``tests/`` on the import path, so test folders share helper modules such as ``fake_chat``;
skips ``@pytest.mark.slow`` tests (scale and full-size checks) unless ACWORLD_SLOW=1; keeps the
menu learner's demonstration cache in a temporary folder per test process (never the user's
``~/.cache``: a test sees what a fresh machine sees); and finds the shared real Shopify dumps for
the tests that read them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHOPIFY = (Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "shopify").resolve()


@pytest.fixture(scope="session", autouse=True)
def _demo_cache(tmp_path_factory: pytest.TempPathFactory):
    """``ACWORLD_DEMO_CACHE`` in this process's temporary folder, unless the caller set one."""
    if os.environ.get("ACWORLD_DEMO_CACHE"):
        yield
        return
    os.environ["ACWORLD_DEMO_CACHE"] = str(tmp_path_factory.mktemp("demo-cache"))
    yield
    os.environ.pop("ACWORLD_DEMO_CACHE", None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("ACWORLD_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="scale or full-size check: set ACWORLD_SLOW=1 to run")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shopify_dir() -> Path:
    """The shared real Shopify dumps (read in place, never copied into the repository)."""
    if not SHOPIFY.is_dir():
        pytest.skip(f"real Shopify dumps not found at {SHOPIFY} (expected ../shared/data/shopify/ next to the "
                    "repository); the tests on real data are skipped")
    return SHOPIFY
