"""The HTTP API itself, over a real server and real httpx: create, observe, act, result, end; schema."""

from __future__ import annotations

from typing import Any

from remote_kit import bearer

from acworld_env.envs.spaces import decode_observation
from acworld_env.policies.make import make_policy
from acworld_env.remote.hosted import Host


def _start(http: Any, **body: Any) -> dict[str, Any]:
    resp = http.post("/v1/episodes", json=body)
    assert resp.status_code == 201, resp.text
    return resp.json()


def test_play_a_task_over_plain_http(http: Any, server: tuple[str, Host], tasks: list[Any]) -> None:
    task = tasks[0]
    started = _start(http, task_id=task.task_id)
    eid, token = started["episode_id"], started["credentials"][task.actor]
    assert started["roles"] == {task.actor: task.initial_state["actors"][task.actor]["role"]}
    policy = make_policy(task.reference)
    policy.reset(0)
    for _ in range(task.max_steps):
        obs = http.get(f"/v1/episodes/{eid}/observation", headers=bearer(token)).json()
        assert obs["actor"] == task.actor and obs["text"]
        action = policy.act(obs["raw"])
        reply = http.post(f"/v1/episodes/{eid}/actions", json={"action": action}, headers=bearer(token)).json()
        if reply["terminations"][task.actor] or reply["truncations"][task.actor]:
            break
    result = http.get(f"/v1/episodes/{eid}/result", headers=bearer(token)).json()
    assert result["validation"]["accepted"] is True and result["summary"] is None
    summary = http.post(f"/v1/episodes/{eid}/end", headers=bearer(token)).json()
    assert summary["status"] == "scored" and summary["score"] == 1.0 and summary["run_dir"] == eid
    assert http.get(f"/v1/episodes/{eid}/result", headers=bearer(token)).json()["summary"] == summary


def test_generated_split_by_seed(http: Any) -> None:
    started = _start(http, split="generated", seed=7, task_id=None)
    state = started["state"]
    assert state["task_id"] and state["agents"] and state["observation"]["raw"]["request"]
    actor = state["agent_selection"]
    obs = state["observation"]["raw"]
    assert decode_observation({"json": __import__("json").dumps(obs)})["request"] == obs["request"]
    summary = http.post(f"/v1/episodes/{started['episode_id']}/end", headers=bearer(started["credentials"][actor]))
    assert summary.json()["status"] == "unscored" and "before the evaluated actor" in summary.json()["reason"]


def test_invalid_action_is_a_recorded_rejection_not_an_http_error(http: Any, tasks: list[Any]) -> None:
    task = tasks[1]
    started = _start(http, task_id=task.task_id)
    eid, token = started["episode_id"], started["credentials"][task.actor]
    reply = http.post(f"/v1/episodes/{eid}/actions", json={"action": {"kind": "no_such_tool"}}, headers=bearer(token))
    assert reply.status_code == 200
    validation = reply.json()["infos"][task.actor]["validation"]
    assert validation["accepted"] is False and validation["code"] == "unknown_tool"


def test_bad_env_arguments_are_a_clear_422(http: Any) -> None:
    for body, word in [({"task_id": "nope/none"}, "no task"), ({"suite": "nosuch"}, "nosuch"),
                       ({"colour": "red"}, "colour"), ({"reward": "money"}, "reward")]:
        resp = http.post("/v1/episodes", json=body)
        assert resp.status_code == 422, (body, resp.text)
        assert word in resp.json()["error"]["message"]


def test_openapi_schema_is_generated_from_the_vcp_models(http: Any) -> None:
    from acworld_env.vcp.union import TOOLS

    schema = http.get("/openapi.json").json()
    comps = schema["components"]["schemas"]
    union = comps["VCPAction"]
    assert union["discriminator"]["propertyName"] == "kind"
    assert set(union["discriminator"]["mapping"]) == set(TOOLS)
    for cls in TOOLS.values():
        assert comps[cls.__name__]["properties"]["kind"]["const"] == cls.model_fields["kind"].default
    body = schema["paths"]["/v1/episodes/{episode_id}/actions"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/ActionRequest"
    assert "EnvConfig" in comps or "EpisodeRequest" in comps


def test_tools_endpoint_matches_the_llm_view(http: Any) -> None:
    from acworld_env.vcp import openai_tools

    assert http.get("/v1/tools/buyer").json() == openai_tools("buyer")
    assert http.get("/v1/tools/pirate").status_code == 404
