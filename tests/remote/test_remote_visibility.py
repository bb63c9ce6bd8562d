"""One visibility rule over HTTP: an actor's credential reads its own info, its own transcript, its own keys.

The demo task in self-play: the Buyer (ceiling $100) and the Merchant (floor $90) are both agents
on one server. The Merchant reads its mandate (a tool result holding its floor) and tries to
tell the Buyer its floor (the privacy guard refuses it). Nothing of that may reach the Buyer's
credential; the Merchant's and the env's credentials read it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from remote_kit import bearer

from acworld_env.remote import Host, records
from acworld_env.remote.protocol import ENV_CREDENTIAL_HEADER
from acworld_env.remote.records import same_secret

FLOOR_TEXT = "My floor is $90.00, take it or leave it"


def _act(http: Any, eid: str, token: str, action: dict[str, Any] | None, **headers: str) -> dict[str, Any]:
    resp = http.post(f"/v1/episodes/{eid}/actions", json={"action": action}, headers={**bearer(token), **headers})
    assert resp.status_code == 200, resp.text
    return resp.json()


@pytest.fixture()
def duel(http: Any) -> dict[str, Any]:
    """A demo self-play episode after: Buyer says hello, Merchant reads its mandate, Buyer searches,
    Merchant tries to send its floor (refused), Buyer reads its balance. Every reply is kept."""
    started = http.post("/v1/episodes", json={"suite": "demo", "counterparties": "agents"}).json()
    eid, creds = started["episode_id"], started["credentials"]
    buyer, merchant = creds["buyer_0"], creds["merchant_0"]
    replies = {
        "hello": _act(http, eid, buyer, {"kind": "send_message", "to": "merchant_0", "text": "Hello, is it in stock?"}),
        "mandate": _act(http, eid, merchant, {"kind": "get_mandate"}),
        "search": _act(http, eid, buyer, {"kind": "search_listings", "text": "grinder"}),
        "leak": _act(http, eid, merchant, {"kind": "send_message", "to": "buyer_0", "text": FLOOR_TEXT}),
        "balance": _act(http, eid, buyer, {"kind": "get_balance"}),
    }
    return {"started": started, "eid": eid, "buyer": buyer, "merchant": merchant, "replies": replies}


def test_an_action_reply_carries_only_the_callers_info(http: Any, duel: dict[str, Any]) -> None:
    replies = duel["replies"]
    mandate = replies["mandate"]["infos"]["merchant_0"]["validation"]
    assert mandate["accepted"] and "9000" in json.dumps(mandate["result"])  # the Merchant reads its own floor
    assert replies["leak"]["infos"]["merchant_0"]["validation"]["code"] == "privacy_leak"
    for name in ("hello", "search", "balance"):
        reply = replies[name]
        assert set(reply["infos"]) == {"buyer_0"}, name
        assert set(reply["rewards"]) == set(reply["cumulative_rewards"]) == {"buyer_0"}
        assert "9000" not in json.dumps(reply["infos"]) and "privacy_leak" not in json.dumps(reply)
    assert set(replies["mandate"]["infos"]) == {"merchant_0"}
    status = http.get(f"/v1/episodes/{duel['eid']}", headers=bearer(duel["buyer"])).json()
    assert set(status["infos"]) == {"buyer_0"} and "9000" not in json.dumps(status["infos"])
    assert "privacy_leak" not in json.dumps(status)


def test_the_env_credential_reads_every_agents_info(http: Any, duel: dict[str, Any]) -> None:
    env_token = duel["started"]["env_token"]
    status = http.get(f"/v1/episodes/{duel['eid']}", headers=bearer(env_token)).json()
    assert set(status["infos"]) == {"buyer_0", "merchant_0"}
    assert status["infos"]["merchant_0"]["validation"]["code"] == "privacy_leak"
    both = _act(http, duel["eid"], duel["merchant"], {"kind": "get_balance"}, **{ENV_CREDENTIAL_HEADER: env_token})
    assert set(both["infos"]) == {"buyer_0", "merchant_0"}
    wrong = http.post(f"/v1/episodes/{duel['eid']}/actions", json={"action": None},
                      headers={**bearer(duel["buyer"]), ENV_CREDENTIAL_HEADER: duel["buyer"]})
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "wrong_credential"


def test_the_global_state_vector_is_for_the_host_only(http: Any, duel: dict[str, Any]) -> None:
    path = f"/v1/episodes/{duel['eid']}/state"
    refused = http.get(path, headers=bearer(duel["buyer"]))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "host_only"
    assert len(http.get(path, headers=bearer(duel["started"]["env_token"])).json()["state"]) > 0


def test_a_transcript_holds_what_its_actor_sent_or_was_delivered(http: Any, duel: dict[str, Any]) -> None:
    path = f"/v1/episodes/{duel['eid']}/transcript"
    buyer = http.get(path, headers=bearer(duel["buyer"])).text
    merchant = http.get(path, headers=bearer(duel["merchant"])).text
    host = http.get(path, headers=bearer(duel["started"]["env_token"])).text
    # The refused message: to its sender with the code, to the host, never to its counterparty.
    assert "90.00" not in buyer and "privacy_leak" not in buyer and "get_mandate" not in buyer
    assert "REJECTED privacy_leak" in merchant and "90.00" in merchant
    assert "REJECTED privacy_leak" in host and "90.00" in host and "get_mandate" in host
    # Each sees its own proposals, and the other's only as delivered messages.
    assert "search_listings" in buyer and "get_balance" in buyer and "search_listings" not in merchant
    assert "-> merchant_0: message 'Hello, is it in stock?'" in merchant
    assert "get_mandate" in merchant and "send_message(to=merchant_0" not in merchant
    assert len(host.splitlines()) > len(buyer.splitlines())


def test_idempotency_keys_are_per_actor(http: Any, server: tuple[str, Host]) -> None:
    started = http.post("/v1/episodes", json={"suite": "demo", "counterparties": "agents"}).json()
    eid, creds = started["episode_id"], started["credentials"]
    market = server[1].episodes[eid].env.episode.market
    body = {"action": {"kind": "get_balance"}}
    first = http.post(f"/v1/episodes/{eid}/actions", json=body,
                      headers={**bearer(creds["buyer_0"]), "Idempotency-Key": "shared-key"})
    assert first.status_code == 200 and first.json()["replayed"] is False
    records = len(market.trace.records)
    # The Merchant sends the Buyer's key with the Buyer's body: a fresh request of its own, not the Buyer's reply.
    same = http.post(f"/v1/episodes/{eid}/actions", json=body,
                     headers={**bearer(creds["merchant_0"]), "Idempotency-Key": "shared-key"})
    assert same.status_code == 200 and same.json()["replayed"] is False
    assert set(same.json()["infos"]) == {"merchant_0"} and len(market.trace.records) == records + 1
    # ... and with another body too (no conflict with the Buyer's key).
    other = http.post(f"/v1/episodes/{eid}/actions", json={"action": {"kind": "get_inventory"}},
                      headers={**bearer(creds["buyer_0"]), "Idempotency-Key": "merchant-key"})
    assert other.status_code == 200
    mine = http.post(f"/v1/episodes/{eid}/actions", json={"action": {"kind": "get_mandate"}},
                     headers={**bearer(creds["merchant_0"]), "Idempotency-Key": "merchant-key"})
    assert mine.status_code == 200 and mine.json()["replayed"] is False
    # The Buyer's own retry is still a replay of its own reply.
    again = http.post(f"/v1/episodes/{eid}/actions", json=body,
                      headers={**bearer(creds["buyer_0"]), "Idempotency-Key": "shared-key"})
    assert again.json()["replayed"] is True and set(again.json()["infos"]) == {"buyer_0"}


def test_every_credential_is_compared_in_constant_time(http: Any, duel: dict[str, Any],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[bytes] = []
    real = records.hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        compared.extend([a, b])
        return real(a, b)

    monkeypatch.setattr(records.hmac, "compare_digest", spy)
    env_token, eid = duel["started"]["env_token"], duel["eid"]
    assert http.get(f"/v1/episodes/{eid}", headers=bearer(env_token)).status_code == 200
    assert env_token.encode() in compared
    compared.clear()
    assert http.get(f"/v1/episodes/{eid}/observation", headers=bearer(duel["buyer"])).status_code == 200
    assert duel["buyer"].encode() in compared
    compared.clear()
    env_id = duel["started"]["env_id"]
    assert http.post(f"/v1/envs/{env_id}/reset", json={}, headers=bearer("x" * len(env_token))).status_code == 403
    assert env_token.encode() in compared
    assert not same_secret(None, env_token) and not same_secret(env_token, None) and same_secret("é", "é")


def test_the_run_folders_server_path_is_for_the_host(http: Any, tasks: list[Any]) -> None:
    from acworld_env.policies.make import make_policy

    task = tasks[0]
    started = http.post("/v1/episodes", json={"task_id": task.task_id}).json()
    eid, token = started["episode_id"], started["credentials"][task.actor]
    policy = make_policy(task.reference)
    policy.reset(0)
    state = started["state"]
    while not (state["terminations"][task.actor] or state["truncations"][task.actor]):
        obs = http.get(f"/v1/episodes/{eid}/observation", headers=bearer(token)).json()["raw"]
        state = _act(http, eid, token, policy.act(obs))
    mine = http.post(f"/v1/episodes/{eid}/end", headers=bearer(token)).json()
    host = http.post(f"/v1/episodes/{eid}/end", headers=bearer(started["env_token"])).json()
    assert mine["status"] == host["status"] == "scored" and mine["trace_digest"] == host["trace_digest"]
    assert host["run_dir"].endswith(eid) and "/" in host["run_dir"] and mine["run_dir"] == eid
    status = http.get(f"/v1/episodes/{eid}", headers=bearer(token)).json()
    assert status["summary"]["run_dir"] == eid
