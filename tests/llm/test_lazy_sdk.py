"""An OpenAI-only run never imports the Anthropic SDK, and the reverse (each costs start-up time)."""

from __future__ import annotations

import subprocess
import sys

import pytest

CODE = """
import sys
from acworld_env.policies.llm import policy_from_spec
policy_from_spec({spec!r}, base_url="http://127.0.0.1:9/v1", api_key_env="ACWORLD_TEST_KEY")
print("anthropic" in sys.modules, "openai" in sys.modules)
"""


@pytest.mark.parametrize(("spec", "loaded"), [("openai-compatible:bench-model", "False True"),
                                              ("anthropic:claude-test", "True False")])
def test_only_the_used_sdk_is_imported(spec: str, loaded: str) -> None:
    env = {"ACWORLD_TEST_KEY": "k", "PATH": "/usr/bin:/bin", "HOME": "/tmp"}
    done = subprocess.run([sys.executable, "-c", CODE.format(spec=spec)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == loaded
