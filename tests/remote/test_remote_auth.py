"""Credentials: each acts only as its actor in its episode; a refusal is recorded and the World is unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from remote_kit import bearer

from acworld_env.remote.hosted import Host


def _world(host: Host, eid: str) -> tuple[str, int, str]:
    market = host.episodes[eid].env.episode.market
    return market.world.state_digest(), len(market.trace.records), market.trace.digest


@pytest.fixture()
def two(http: Any, tasks: list[Any]) -> tuple[dict[str, Any], dict[str, Any], str]:
    task = tasks[2]
    a = http.post("/v1/episodes", json={"task_id": task.task_id}).json()
    b = http.post("/v1/episodes", json={"task_id": task.task_id}).json()
    return a, b, task.actor


ACTION = {"action": {"kind": "search_listings", "text": "kettle"}}


@pytest.mark.parametrize("headers,status,code", [
    ({}, 401, "missing_credential"),
    ({"Authorization": "Bearer not-a-token"}, 401, "unknown_credential"),
    ({"Authorization": "Basic abc"}, 401, "missing_credential"),
])
def test_missing_or_wrong_credential_is_401(http: Any, server: tuple[str, Host], two: Any, headers: dict,
                                            status: int, code: str) -> None:
    a, _, _ = two
    eid = a["episode_id"]
    before = _world(server[1], eid)
    for method, path, body in [("POST", "actions", ACTION), ("GET", "observation", None), ("GET", "result", None)]:
        resp = http.request(method, f"/v1/episodes/{eid}/{path}", json=body, headers=headers)
        assert resp.status_code == status and resp.json()["error"]["code"] == code
        assert resp.headers["www-authenticate"] == "Bearer"
    assert _world(server[1], eid) == before
    assert [e["code"] for e in server[1].episodes[eid].audit][-3:] == [code] * 3


def test_another_episodes_credential_is_403(http: Any, server: tuple[str, Host], two: Any) -> None:
    a, b, actor = two
    before = _world(server[1], a["episode_id"])
    resp = http.post(f"/v1/episodes/{a['episode_id']}/actions", json=ACTION, headers=bearer(b["credentials"][actor]))
    assert resp.status_code == 403 and resp.json()["error"]["code"] == "other_episode"
    assert b["episode_id"] in resp.json()["error"]["message"]
    assert _world(server[1], a["episode_id"]) == before
    assert server[1].episodes[a["episode_id"]].audit[-1]["code"] == "other_episode"
    status = http.get(f"/v1/episodes/{a['episode_id']}", headers=bearer(a["credentials"][actor])).json()
    assert status["audit"][-1]["status"] == 403


def test_acting_as_another_actor_is_403(http: Any, server: tuple[str, Host], two: Any) -> None:
    a, _, actor = two
    eid = a["episode_id"]
    before = _world(server[1], eid)
    resp = http.post(f"/v1/episodes/{eid}/actions", json={**ACTION, "actor": "merchant_0"},
                     headers=bearer(a["credentials"][actor]))
    assert resp.status_code == 403 and resp.json()["error"]["code"] == "wrong_actor"
    assert _world(server[1], eid) == before
    ok = http.post(f"/v1/episodes/{eid}/actions", json={**ACTION, "actor": actor}, headers=bearer(a["credentials"][actor]))
    assert ok.status_code == 200 and _world(server[1], eid) != before


def test_self_play_credentials_are_per_actor(http: Any, server: tuple[str, Host], tasks: list[Any]) -> None:
    task = next(t for t in tasks if len(t.initial_state["actors"]) > 1)
    started = http.post("/v1/episodes", json={"task_id": task.task_id, "counterparties": "agents"}).json()
    creds, eid = started["credentials"], started["episode_id"]
    assert len(creds) > 1 and len(set(creds.values())) == len(creds)
    turn = started["state"]["agent_selection"]
    other = next(a for a in creds if a != turn)
    before = _world(server[1], eid)
    resp = http.post(f"/v1/episodes/{eid}/actions", json={"action": None}, headers=bearer(creds[other]))
    assert resp.status_code == 409 and resp.json()["error"]["code"] == "not_your_turn"
    assert _world(server[1], eid) == before
    own = http.get(f"/v1/episodes/{eid}/observation", headers=bearer(creds[other])).json()
    assert own["actor"] == other


def test_env_credential_guards_reset(http: Any) -> None:
    made = http.post("/v1/envs", json={"suite": "demo"}).json()
    path = f"/v1/envs/{made['env_id']}/reset"
    assert http.post(path, json={}).status_code == 401
    assert http.post(path, json={}, headers=bearer("x")).status_code == 403
    started = http.post(path, json={"seed": 3}, headers=bearer(made["env_token"]))
    assert started.status_code == 201 and started.json()["state"]["infos"]
    assert http.delete(f"/v1/envs/{made['env_id']}", headers=bearer(made["env_token"])).json() == {"closed": made["env_id"]}
    assert http.post(path, json={}, headers=bearer(made["env_token"])).status_code == 404
