"""A real uvicorn server on 127.0.0.1 (ephemeral port) for the remote tests, and helpers."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from remote_kit import bearer  # noqa: E402,F401  (the helper, for fixtures here)

from acworld_env.remote import Host  # noqa: E402
from acworld_env.remote.serve import ServerThread  # noqa: E402
from acworld_env.tasks.suites import load_suite  # noqa: E402


@pytest.fixture(autouse=True)
def _quiet_space_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("served-runs")


@pytest.fixture(scope="module")
def server(runs_dir: Path) -> Iterator[tuple[str, Host]]:
    """``(url, host)`` of a live server whose scored episodes are written under ``runs_dir``."""
    host = Host(runs_dir=runs_dir)
    with ServerThread(host) as url:
        yield url, host


@pytest.fixture()
def http(server: tuple[str, Host]) -> Iterator[Any]:
    with httpx.Client(base_url=server[0], timeout=30) as client:
        yield client


@pytest.fixture(scope="session")
def tasks() -> list[Any]:
    return load_suite("capability-v1", "frozen", 0)

