"""Fixtures of the training-framework tests: an OpenEnv server on 127.0.0.1 for the module.

The tests need the ``train`` extra (``pip install -e '.[dev,train]'``); without OpenEnv they skip
with the reason.
"""

from __future__ import annotations

import pytest

pytest.importorskip("openenv", reason="the train extra is not installed (pip install -e '.[dev,train]')")


@pytest.fixture(scope="module")
def openenv_url():
    """The URL of an acworld OpenEnv server running in this process."""
    from acworld_env.integrations.openenv_app import create_openenv_app
    from acworld_env.remote.serve import ServerThread

    with ServerThread(app=create_openenv_app(max_concurrent_envs=128)) as url:
        yield url
