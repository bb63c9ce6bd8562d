"""``acworld serve --openenv``: OpenEnv's own clients reset, list and call tools, and reach done.

Malformed actions come back as observations with the market's rejection code (never a 500);
credits and score are observation fields on the wire; a session sees only its own actor; 64
concurrent sessions complete.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from train_kit import PARITY_TASKS, local_run, reference_actions

from acworld_env.remote.serve import free_port

TASK = PARITY_TASKS[0]


def test_cli_serves_on_loopback_and_generic_client_plays_a_task_by_tools(monkeypatch):
    """``acworld serve --openenv --port P``: the app it builds, served where the command binds it."""
    import uvicorn
    from openenv import GenericEnvClient
    from typer.testing import CliRunner

    from acworld_env.cli import app
    from acworld_env.remote.serve import ServerThread

    bound: dict = {}

    def run_in_background(asgi, host: str, port: int, **kwargs) -> None:  # uvicorn.run, without blocking the test
        bound.update(host=host, port=port, server=ServerThread(app=asgi, host=host, port=port))
        bound["server"].start()

    monkeypatch.setattr(uvicorn, "run", run_in_background)
    port = free_port()
    result = CliRunner().invoke(app, ["serve", "--openenv", "--port", str(port)])
    assert result.exit_code == 0, result.output
    assert (bound["host"], bound["port"]) == ("127.0.0.1", port)
    url = f"http://127.0.0.1:{port}"
    actions = reference_actions(TASK)

    async def play() -> dict:
        async with GenericEnvClient(base_url=url) as env:
            first = await env.reset(task_id=TASK)
            listed = await env.step({"type": "list_tools"})
            result = first
            for a in actions:
                args = {k: v for k, v in a.items() if k != "kind"}
                result = await env.step({"type": "call_tool", "tool_name": a["kind"], "arguments": args})
            return {"first": first, "listed": listed, "last": result}

    try:
        out = asyncio.run(play())
        refused = httpx.get(f"{url}/schema", headers={"host": "attacker.example"})
    finally:
        bound["server"].stop()
    assert refused.status_code == 421  # loopback-bound: other Host headers are refused
    names = {t["function"]["name"] for t in out["listed"].observation["tools"]}
    assert {a["kind"] for a in actions} <= names and out["first"].observation["tools"]
    last = out["last"]
    ref = local_run(TASK, actions)
    assert last.done and last.observation["score"] == ref["score"] == 1.0
    assert last.observation["credits"] == ref["credits"] and last.observation["trace_digest"] == ref["trace_digest"]
    assert last.observation["summary"]["status"] == "scored"


def test_malformed_actions_are_observations_with_the_rejection_code(openenv_url):
    session = httpx.post(f"{openenv_url}/reset", json={"task_id": TASK}).json()["observation"]["session"]
    cases = {"unknown_tool": {"kind": "no_such_tool"}, "malformed_json": {"type": "call_tool", "tool_name": "x",
                                                                         "arguments": "{not json"}}
    for code, action in {**cases, "unknown_tool ": {"foo": [1, 2]}}.items():
        r = httpx.post(f"{openenv_url}/step", json={"action": action, "session": session})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["observation"]["validation"]["code"] == code.strip() and body["reward"] == 0.0 and not body["done"]
    for extra in ({}, {"session": "not-a-credential"}):  # no episode named: a refusal as an observation
        r = httpx.post(f"{openenv_url}/step", json={"action": {"kind": "finish"}, **extra})
        assert r.status_code == 200 and r.json()["observation"]["error"]["code"] in ("no_episode", "unknown_credential")
    r = httpx.post(f"{openenv_url}/reset", json={"task_id": "capability-v1/T99/none"})
    assert r.status_code == 200 and r.json()["observation"]["error"]["code"] == "bad_reset"
    r = httpx.post(f"{openenv_url}/reset", json={"task_id": TASK, "role": "merchant"})
    assert r.json()["observation"]["error"]["code"] == "bad_reset"


def test_schema_publishes_both_action_shapes_and_credit_fields(openenv_url):
    schema = httpx.get(f"{openenv_url}/schema").json()
    assert {"kind", "type", "tool_name", "arguments"} <= set(schema["action"]["properties"])
    assert {"credits", "score", "stages", "text", "observation", "validation"} <= set(schema["observation"]["properties"])


def test_reset_by_split_seed_and_index_and_terminal_rewards(openenv_url):
    r = httpx.post(f"{openenv_url}/reset", json={"split": "frozen", "index": 3, "role": "merchant",
                                                 "reward": "terminal"}).json()["observation"]
    assert r["role"] == "merchant" and r["reward_mode"] == "terminal" and r["error"] is None
    actions = reference_actions(TASK)
    session = httpx.post(f"{openenv_url}/reset", json={"task_id": TASK, "reward": "terminal"}).json()
    rewards = [httpx.post(f"{openenv_url}/step", json={"action": a, "session": session["observation"]["session"]})
               .json()["reward"] for a in actions]
    assert rewards[:-1] == [0.0] * (len(actions) - 1) and rewards[-1] == 1.0


def test_a_session_sees_only_its_own_actor_and_episode(openenv_url):
    from acworld_env.integrations.openenv import AcworldEnv

    async def two() -> tuple:
        async with AcworldEnv(base_url=openenv_url) as a, AcworldEnv(base_url=openenv_url) as b:
            ra = await a.reset(task_id=PARITY_TASKS[1])
            rb = await b.reset(task_id=PARITY_TASKS[2])
            return ra.observation, rb.observation, await a.state(), await b.state()

    oa, ob, sa, sb = asyncio.run(two())
    assert oa.actor == sa.actor == "merchant_0" and ob.actor == sb.actor == "buyer_0"
    assert oa.observation["actor"] == "merchant_0" and "buyer_0" not in str(oa.observation.get("mandate", ""))
    assert sa.episode_id != sb.episode_id
    # a plain-HTTP session credential acts only in its own episode, as its own actor
    other = httpx.post(f"{openenv_url}/reset", json={"task_id": PARITY_TASKS[2]}).json()["observation"]
    r = httpx.post(f"{openenv_url}/step", json={"action": {"kind": "get_inbox"}, "session": other["session"]}).json()
    assert r["observation"]["actor"] == "buyer_0" and r["observation"]["task_id"] == PARITY_TASKS[2]


@pytest.mark.timeout(120)
def test_64_concurrent_sessions_complete(openenv_url):
    from acworld_env.integrations.openenv import AcworldEnv

    plans = {t: reference_actions(t) for t in PARITY_TASKS}
    refs = {t: local_run(t, a) for t, a in plans.items()}

    async def one(i: int) -> tuple[str, float, str]:
        task = PARITY_TASKS[i % len(PARITY_TASKS)]
        async with AcworldEnv(base_url=openenv_url, message_timeout_s=120) as env:
            result = await env.reset(task_id=task)
            for a in plans[task]:
                result = await env.step(a)
            assert result.done
            return task, result.observation.score, result.observation.trace_digest or ""

    async def all_of_them() -> list:
        return await asyncio.gather(*(one(i) for i in range(64)))

    done = asyncio.run(all_of_them())
    assert len(done) == 64
    assert all(score == refs[t]["score"] == 1.0 and digest == refs[t]["trace_digest"] for t, score, digest in done)


def test_importing_acworld_env_imports_no_training_framework():
    import subprocess
    import sys

    code = ("import sys, acworld_env; acworld_env.make('capability-v1'); import acworld_env.integrations; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'openenv', 'verifiers', 'trl', 'torch', "
            "'transformers', 'gradio'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr


def test_generic_client_resets_every_frozen_task_by_id(openenv_url):
    from openenv import GenericEnvClient

    from acworld_env.tasks.suites import load_suite

    tasks = load_suite("capability-v1", "frozen", 0)

    async def reset_all() -> list[dict]:
        async with GenericEnvClient(base_url=openenv_url) as env:
            return [(await env.reset(task_id=t.task_id)).observation for t in tasks]

    seen = asyncio.run(reset_all())
    assert len(seen) == len(tasks) == 200
    for task, obs in zip(tasks, seen, strict=True):
        assert obs["error"] is None and obs["task_id"] == task.task_id and obs["actor"] == task.actor
        assert obs["tools"] and obs["text"] and obs["credits"] and obs["score"] == 0.0
