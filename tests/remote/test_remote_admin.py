"""The admin credential: with one, only its holder creates envs and episodes; beyond loopback there is always one."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

import acworld_env
from acworld_env.cli import app
from acworld_env.remote import Host
from acworld_env.remote.client import RemoteEnvError
from acworld_env.remote.serve import ServerThread, free_port

ADMIN = "admin-credential-for-tests-0123"


@pytest.fixture(scope="module")
def guarded() -> Iterator[tuple[str, Host]]:
    host = Host()
    with ServerThread(host, admin_token=ADMIN) as url:
        yield url, host


@pytest.mark.parametrize(("headers", "code"), [
    ({}, "missing_credential"),
    ({"Authorization": "Bearer not-the-admin-credential"}, "unknown_credential"),
    ({"Authorization": f"Basic {ADMIN}"}, "missing_credential"),
])
@pytest.mark.parametrize(("path", "body"), [("/v1/episodes", {"suite": "demo"}), ("/v1/envs", {"suite": "demo"})])
def test_creation_without_the_admin_credential_is_401_and_creates_nothing(
        guarded: tuple[str, Host], headers: dict[str, str], code: str, path: str, body: dict[str, Any]) -> None:
    url, host = guarded
    before = (len(host.envs), len(host.episodes))
    resp = httpx.post(url + path, json=body, headers=headers, timeout=30)
    assert resp.status_code == 401 and resp.json()["error"]["code"] == code
    assert resp.headers["www-authenticate"] == "Bearer"
    assert (len(host.envs), len(host.episodes)) == before


def test_the_admin_credential_creates_and_actor_credentials_play(guarded: tuple[str, Host]) -> None:
    url, _ = guarded
    admin = {"Authorization": f"Bearer {ADMIN}"}
    started = httpx.post(url + "/v1/episodes", json={"suite": "demo"}, headers=admin, timeout=30).json()
    eid, turn = started["episode_id"], started["state"]["agent_selection"]
    credential = started["credentials"][turn]
    obs = httpx.get(f"{url}/v1/episodes/{eid}/observation", headers={"Authorization": f"Bearer {credential}"},
                    timeout=30)
    assert obs.status_code == 200 and obs.json()
    # the admin credential is not an actor's: it cannot act in the episode it created
    act = httpx.post(f"{url}/v1/episodes/{eid}/actions", json={"action": {"kind": "get_mandate"}}, headers=admin,
                     timeout=30)
    assert act.status_code == 401


def test_client_env_passes_its_token_and_fails_clearly_without(guarded: tuple[str, Host]) -> None:
    url, _ = guarded
    env = acworld_env.make("demo", transport="http", url=url, token=ADMIN)
    env.reset(seed=0)
    assert env.agents and env.observe(env.agent_selection)
    env.close()
    with pytest.raises(RemoteEnvError) as exc:
        acworld_env.make("demo", transport="http", url=url)
    assert exc.value.status == 401 and "admin credential" in str(exc.value)


def test_serve_beyond_loopback_generates_and_requires_a_credential() -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "acworld_env.cli", "serve", "--host", "0.0.0.0", "--port",
                             str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1)
                break
            except httpx.HTTPError:
                assert proc.poll() is None and time.monotonic() < deadline, "acworld serve did not start"
                time.sleep(0.2)
        refused = httpx.post(f"http://127.0.0.1:{port}/v1/episodes", json={"suite": "demo"}, timeout=30)
        assert refused.status_code == 401
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    token = re.search(r"admin credential (\S+)", err)
    assert token and len(token.group(1)) >= 24, err


def test_a_short_token_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["serve", "--token", "short"])
    assert result.exit_code == 2 and "at least 16" in result.output


MCP_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def test_an_mcp_server_with_a_token_refuses_requests_without_it() -> None:
    pytest.importorskip("mcp")
    from acworld_env.remote.mcp_server import MCPEpisode, http_app

    episode = MCPEpisode({"suite": "demo"})
    with ServerThread(app=http_app(episode, token=ADMIN)) as url:
        bare = httpx.post(f"{url}/mcp", json=MCP_INIT, headers=MCP_HEADERS, timeout=30)
        wrong = httpx.post(f"{url}/mcp", json=MCP_INIT, headers={**MCP_HEADERS, "Authorization": "Bearer nope"},
                           timeout=30)
        good = httpx.post(f"{url}/mcp", json=MCP_INIT, headers={**MCP_HEADERS, "Authorization": f"Bearer {ADMIN}"},
                          timeout=30)
    assert (bare.status_code, bare.json()["error"]["code"]) == (401, "missing_credential")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (401, "unknown_credential")
    assert good.status_code == 200 and "serverInfo" in good.text
