"""Faults: a timed-out request retried with its key, a client that goes away, bad bodies, idle episodes.

Each gets a clear status and error body; nothing partial is committed; the episode is resumed, or
closed and marked unscored with its reason.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from remote_kit import bearer

import acworld_env
from acworld_env.policies.make import make_policy
from acworld_env.remote import Host, RemoteError
from acworld_env.remote.parity import play
from acworld_env.remote.protocol import MAX_BODY_BYTES
from acworld_env.remote.serve import ServerThread

pytestmark = pytest.mark.timeout(120)
DELAY = 0.5


@pytest.fixture(scope="module")
def slow() -> Iterator[tuple[str, Host]]:
    """A server whose every step waits DELAY seconds first, and that closes episodes idle for 1.5 s."""
    host = Host(step_delay=DELAY, idle_timeout=1.5)
    with ServerThread(host) as url:
        yield url, host


def _records(host: Host, eid: str) -> int:
    return len(host.episodes[eid].env.episode.market.trace.records)


def _start(url: str, task_id: str) -> tuple[dict[str, Any], str]:
    started = httpx.post(f"{url}/v1/episodes", json={"task_id": task_id}, timeout=30).json()
    return started, started["state"]["agent_selection"]


def test_timed_out_request_retried_with_its_key_runs_once(slow: tuple[str, Host], tasks: list[Any]) -> None:
    url, host = slow
    started, actor = _start(url, tasks[0].task_id)
    eid, headers = started["episode_id"], {**bearer(started["credentials"][actor]), "Idempotency-Key": "k-1"}
    body = {"action": {"kind": "search_listings", "text": "grinder"}}
    before = _records(host, eid)
    with pytest.raises(httpx.ReadTimeout):  # the client gives up; the server still runs the step
        httpx.post(f"{url}/v1/episodes/{eid}/actions", json=body, headers=headers, timeout=DELAY / 5)
    retry = httpx.post(f"{url}/v1/episodes/{eid}/actions", json=body, headers=headers, timeout=30)
    assert retry.status_code == 200 and retry.json()["replayed"] is True
    assert retry.headers["idempotent-replay"] == "true"
    assert _records(host, eid) == before + 1  # one action, one lineage record, whatever the retries
    again = httpx.post(f"{url}/v1/episodes/{eid}/actions", json=body, headers=headers, timeout=30)
    assert again.json()["version"] == retry.json()["version"] and _records(host, eid) == before + 1
    other = httpx.post(f"{url}/v1/episodes/{eid}/actions", json={"action": None}, headers=headers, timeout=30)
    assert other.status_code == 409 and other.json()["error"]["code"] == "idempotency_conflict"
    assert _records(host, eid) == before + 1


def test_client_env_retries_a_timeout_without_acting_twice(slow: tuple[str, Host], tasks: list[Any]) -> None:
    url, host = slow
    task = tasks[3]
    env = acworld_env.make("capability-v1", transport="http", url=url, task_id=task.task_id, timeout=DELAY / 3,
                           retries=6)
    try:
        env.reset(seed=0)
        raw = env.unwrapped
        before = _records(host, raw.episode_id)
        env.step({"kind": "search_listings", "text": "kettle"})
        assert _records(host, raw.episode_id) == before + 1
        assert raw.infos[task.actor]["validation"]["kind"] == "search_listings"
    finally:
        env.close()


@pytest.mark.parametrize("content,status,code", [
    (b"x" * (MAX_BODY_BYTES + 1), 413, "body_too_large"),
    (b'{"action": {"kind": "search_listings", ', 400, "malformed_body"),
    (b"\xff\xfe not utf-8", 400, "malformed_body"),
    (b'["search_listings"]', 422, "bad_request"),
    (b'{"kind": "search_listings"}', 422, "bad_request"),
    (b'{"action": null, "sudo": true}', 422, "bad_request"),
    (b'{"action": null, "seen": -1}', 422, "bad_request"),
])
def test_bad_bodies_are_refused_before_the_market(server: tuple[str, Host], tasks: list[Any], content: bytes,
                                                  status: int, code: str) -> None:
    url, host = server
    started, actor = _start(url, tasks[4].task_id)
    eid = started["episode_id"]
    before = (_records(host, eid), host.episodes[eid].env.episode.market.world.state_digest())
    resp = httpx.post(f"{url}/v1/episodes/{eid}/actions", content=content, timeout=30,
                      headers={**bearer(started["credentials"][actor]), "Content-Type": "application/json"})
    assert resp.status_code == status and resp.json()["error"]["code"] == code, resp.text
    assert resp.json()["error"]["message"]
    assert (_records(host, eid), host.episodes[eid].env.episode.market.world.state_digest()) == before


def test_a_client_that_goes_away_can_resume_and_gets_the_local_run(server: tuple[str, Host], tasks: list[Any]) -> None:
    url, host = server
    task = tasks[5]
    local = acworld_env.make("capability-v1", task_id=task.task_id)
    play(local, task, make_policy(task.reference))
    want = local.unwrapped.episode.market.trace.digest
    started, actor = _start(url, task.task_id)
    eid, cred = started["episode_id"], bearer(started["credentials"][actor])
    policy = make_policy(task.reference)
    policy.reset(0)
    first = httpx.Client(base_url=url, timeout=30)
    obs = first.get(f"/v1/episodes/{eid}/observation", headers=cred).json()["raw"]
    first.post(f"/v1/episodes/{eid}/actions", json={"action": policy.act(obs)}, headers=cred)
    first.close()  # the process holding the connection is gone; the episode stays open
    with httpx.Client(base_url=url, timeout=30) as second:
        state = second.get(f"/v1/episodes/{eid}", headers=cred).json()
        assert state["status"] == "open" and state["agent_selection"] == actor
        while not (state["terminations"][actor] or state["truncations"][actor]):
            obs = second.get(f"/v1/episodes/{eid}/observation", headers=cred).json()["raw"]
            state = second.post(f"/v1/episodes/{eid}/actions", json={"action": policy.act(obs)}, headers=cred).json()
        summary = second.post(f"/v1/episodes/{eid}/end", headers=cred).json()
    assert summary["status"] == "scored" and summary["trace_digest"] == want


def test_an_abandoned_episode_is_closed_unscored_with_its_reason(slow: tuple[str, Host], tasks: list[Any]) -> None:
    url, host = slow
    started, actor = _start(url, tasks[6].task_id)
    eid, cred = started["episode_id"], bearer(started["credentials"][actor])
    records = _records(host, eid)
    time.sleep(2.2)  # longer than the idle timeout
    resp = httpx.post(f"{url}/v1/episodes/{eid}/actions", json={"action": None}, headers=cred, timeout=30)
    assert resp.status_code == 410 and resp.json()["error"]["code"] == "episode_closed"
    assert "abandoned" in resp.json()["error"]["message"]
    status = httpx.get(f"{url}/v1/episodes/{eid}", headers=cred, timeout=30).json()
    assert status["status"] == "unscored" and "no request for 1.5 s" in status["reason"]
    assert status["summary"]["score"] is None and _records(host, eid) == records


def test_a_step_that_fails_on_the_server_closes_the_episode_unscored(server: tuple[str, Host], tasks: list[Any],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    url, host = server
    started, actor = _start(url, tasks[7].task_id)
    eid, cred = started["episode_id"], bearer(started["credentials"][actor])

    def broken(action: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(host.episodes[eid].env, "step", broken)
    resp = httpx.post(f"{url}/v1/episodes/{eid}/actions", json={"action": None}, headers=cred, timeout=30)
    assert resp.status_code == 500 and resp.json()["error"]["code"] == "step_failed"
    assert "Traceback" not in resp.text
    status = httpx.get(f"{url}/v1/episodes/{eid}", headers=cred, timeout=30).json()
    assert status["status"] == "unscored" and "disk on fire" in status["reason"]
    again = httpx.post(f"{url}/v1/episodes/{eid}/actions", json={"action": None}, headers=cred, timeout=30)
    assert again.status_code == 410


def test_a_full_server_makes_room_from_ended_episodes_only(tasks: list[Any]) -> None:
    host = Host(max_envs=2)
    first = host.create_env({"task_id": tasks[0].task_id})
    ep = host.reset(first, 0, None)
    second = host.create_env({"task_id": tasks[0].task_id})
    host.reset(second, 0, None)
    with pytest.raises(RemoteError) as full:
        host.create_env({"task_id": tasks[0].task_id})
    assert full.value.status == 503 and full.value.code == "server_full"
    host.end(ep)
    third = host.create_env({"task_id": tasks[0].task_id})
    assert first.env_id not in host.envs and {second.env_id, third.env_id} <= set(host.envs)
    assert ep.episode_id not in host.episodes and not any(e == ep.episode_id for e, _ in host.tokens.values())
