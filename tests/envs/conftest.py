"""Shared helpers for the environment tests."""

from __future__ import annotations

import warnings

import pytest

import acworld_env


@pytest.fixture(autouse=True)
def _quiet_api_warnings():
    """PettingZoo's checks warn that Dict/Text spaces are not Box/Discrete: expected here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.fixture(scope="session")
def task_ids() -> list[str]:
    return [t.task_id for t in acworld_env.make("capability-v1").unwrapped.tasks]
