"""Fixtures of the LLM policy tests: a fake provider server and a fake key."""

from __future__ import annotations

import logging

import pytest
from llm_kit import FAKE_KEY, FakeLLM

from acworld_env.policies.llm.limits import reset_limits


@pytest.fixture
def fake_llm():
    """A running scripted server."""
    server = FakeLLM()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, caplog):
    """No real endpoints or keys leak in from the environment; the fake key is set; all logs captured."""
    for var in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "OPENAI_ORG_ID",
                "OPENAI_PROJECT_ID", "OPENAI_LOG", "ANTHROPIC_LOG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    caplog.set_level(logging.DEBUG)
    reset_limits()
    yield
    reset_limits()
