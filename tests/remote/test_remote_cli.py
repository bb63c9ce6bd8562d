"""``acworld serve`` and ``acworld mcp`` on the command line: a real server process, clear usage errors."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import pytest
from typer.testing import CliRunner

from acworld_env.cli import app
from acworld_env.remote.serve import free_port


@pytest.mark.timeout(90)
def test_acworld_serve_binds_loopback_and_serves() -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "acworld_env.cli", "serve", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1)
                break
            except httpx.HTTPError:
                assert proc.poll() is None and time.monotonic() < deadline, "acworld serve did not start"
                time.sleep(0.2)
        assert health.json()["ok"] is True
        started = httpx.post(f"http://127.0.0.1:{port}/v1/episodes", json={"suite": "demo"}, timeout=30)
        assert started.status_code == 201 and started.json()["credentials"]
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert f"http://127.0.0.1:{port}" in err.decode()


def test_usage_errors_exit_2_with_one_line() -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["mcp", "capability-v1", "--transport", "carrier-pigeon"])
    assert bad.exit_code == 2 and "stdio or http" in bad.output
    missing = runner.invoke(app, ["mcp", "capability-v1", "--task-id", "capability-v1/T99/none"])
    assert missing.exit_code == 2 and "no task" in missing.output and "Traceback" not in missing.output
    assert runner.invoke(app, ["serve", "--help"]).exit_code == 0
