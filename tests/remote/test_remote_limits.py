"""Limits of the market server: hostile bodies cost it no memory, huge numbers are a 422 naming the
field, and a slow episode creation does not stall other episodes.

The memory and latency figures are read from a server in its own process (``ServerProcess``), so
neither the client's memory nor its threads count.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from remote_kit import bearer

from acworld_env.remote import Host
from acworld_env.remote.probes import (
    ServerProcess,
    growth_kb,
    latencies_during,
    percentile,
    send_body,
)

pytestmark = [pytest.mark.timeout(300),
              pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads memory from /proc (Linux)")]
ADMIN = "limits-admin-credential-0123456"
MAX_GROWTH_KB = 8 * 1024
HUGE = "9" * 5000


@pytest.fixture(scope="module")
def guarded() -> Iterator[ServerProcess]:
    """A server process with an admin credential, warmed up (one episode played a little)."""
    with ServerProcess(token=ADMIN) as proc:
        yield proc


@pytest.fixture(scope="module")
def open_server() -> Iterator[ServerProcess]:
    """A server process without an admin credential (loopback)."""
    with ServerProcess() as proc:
        yield proc


def _episode(url: str, task_id: str, token: str | None = None) -> dict[str, Any]:
    resp = httpx.post(f"{url}/v1/episodes", json={"task_id": task_id}, timeout=60,
                      headers=bearer(token) if token else {})
    assert resp.status_code == 201, resp.text
    started = resp.json()
    actor = started["state"]["agent_selection"]
    httpx.post(f"{url}/v1/episodes/{started['episode_id']}/actions", json={"action": {"kind": "get_balance"}},
               headers=bearer(started["credentials"][actor]), timeout=60).raise_for_status()
    return started


def test_a_64_mb_chunked_body_without_a_credential_costs_no_memory(guarded: ServerProcess, tasks: list[Any]) -> None:
    eid = _episode(guarded.url, tasks[0].task_id, ADMIN)["episode_id"]
    grew, status = growth_kb(guarded, lambda: send_body(guarded.url, f"/v1/episodes/{eid}/actions", 64 << 20))
    assert status == 401
    assert grew < MAX_GROWTH_KB, f"the server grew {grew} kB reading a body it should have refused"


def test_a_16_mb_creation_body_without_the_admin_credential_costs_no_memory(guarded: ServerProcess,
                                                                            tasks: list[Any]) -> None:
    _episode(guarded.url, tasks[0].task_id, ADMIN)
    for chunked in (False, True):
        grew, status = growth_kb(guarded, lambda c=chunked: send_body(guarded.url, "/v1/episodes", 16 << 20,
                                                                      chunked=c))
        assert status == 401 and grew < MAX_GROWTH_KB, (chunked, status, grew)


def test_credentialed_bodies_stop_at_the_limit_whatever_the_headers_say(open_server: ServerProcess,
                                                                        tasks: list[Any]) -> None:
    started = _episode(open_server.url, tasks[0].task_id)
    actor = started["state"]["agent_selection"]
    cred = bearer(started["credentials"][actor])
    cases = [("/v1/episodes", {}, True), ("/v1/episodes", {}, False),
             (f"/v1/episodes/{started['episode_id']}/actions", cred, True)]
    for path, headers, chunked in cases:
        grew, status = growth_kb(open_server, lambda p=path, h=headers, c=chunked: send_body(
            open_server.url, p, 16 << 20, headers=h, chunked=c))
        assert status == 413 and grew < MAX_GROWTH_KB, (path, chunked, status, grew)
    assert httpx.get(f"{open_server.url}/v1/health", timeout=30).json()["ok"] is True


def test_other_episodes_keep_playing_while_a_generated_split_is_created(guarded: ServerProcess,
                                                                        tasks: list[Any]) -> None:
    seed = 7_000 + int(time.time()) % 1000  # a split this server has not generated yet

    def create() -> None:
        resp = httpx.post(f"{guarded.url}/v1/episodes", json={"split": "generated", "seed": seed},
                          headers=bearer(ADMIN), timeout=240)
        assert resp.status_code == 201, resp.text

    during, took = latencies_during(guarded.url, create, task_id=tasks[0].task_id, token=ADMIN)
    p99 = percentile(during, 0.99)
    print(f"creation {took:.2f} s; {len(during)} actions meanwhile, p99 {p99 * 1000:.1f} ms, "
          f"max {max(during, default=0) * 1000:.1f} ms")
    assert took > 1.0  # the generation did run while the actions were timed
    assert len(during) >= 20, f"only {len(during)} actions completed in {took:.1f} s of creation"
    assert p99 < 0.25 and max(during) < max(1.0, took / 2), (p99, max(during))


def _status(url: str, path: str, content: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(url + path, content=content.encode(), timeout=60,
                      headers={"Content-Type": "application/json", **(headers or {})})


def test_huge_numbers_are_a_422_naming_the_field(server: tuple[str, Host], tasks: list[Any]) -> None:
    url, host = server
    task = tasks[0]
    started = httpx.post(f"{url}/v1/episodes", json={"task_id": task.task_id}, timeout=60).json()
    eid, cred = started["episode_id"], bearer(started["credentials"][task.actor])
    market = host.episodes[eid].env.episode.market
    before = len(market.trace.records)
    action = '{"action": {"kind": "propose_offer", "to": "merchant_0", "listing_id": "L-x", "unit_price": @}}'
    acts, env_cred = f"/v1/episodes/{eid}/actions", bearer(started["env_token"])
    cases = [  # (path, body with @ for the number, headers, the field the refusal must name)
        (acts, action, cred, "action.unit_price", HUGE),
        (acts, '{"action": {"kind": "get_balance"}, "seen": -@}', cred, "seen", HUGE),
        (acts, action, cred, "action.unit_price", "NaN"),
        (acts, action, cred, "action.unit_price", "1e999"),
        ("/v1/episodes", '{"split": "generated", "seed": @}', {}, "seed", HUGE),
        ("/v1/episodes", '{"task_id": "' + task.task_id + '", "episode_seed": @}', {}, "episode_seed", HUGE),
        ("/v1/envs", '{"tasks": [{"task_id": "a"}, {"max_steps": @}]}', {}, "tasks[1].max_steps", HUGE),
        (f"/v1/envs/{started['env_id']}/reset", '{"seed": @}', env_cred, "seed", HUGE),
    ]
    for path, content, headers, field, number in cases:
        resp = _status(url, path, content.replace("@", number), headers)
        assert resp.status_code == 422, (field, resp.status_code, resp.text[:300])
        error = resp.json()["error"]
        assert error["code"] == "bad_request" and error["message"].startswith(f"{field}: "), (field, error)
    assert len(market.trace.records) == before
    assert host.episodes[eid].status == "open"
    ok = httpx.post(f"{url}/v1/episodes/{eid}/actions", json={"action": {"kind": "get_balance"}}, headers=cred,
                    timeout=60)
    assert ok.status_code == 200 and len(market.trace.records) == before + 1
