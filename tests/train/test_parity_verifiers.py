"""Parity: the same actions give the same trace digest and score locally, over OpenEnv (HTTP and
WebSocket) and in a verifiers run; the verifiers run records the credits where credit was lost.

The verifiers run is the README's ``vf-eval`` command (its three tasks), run through vf-eval's own
entry point in this process against the OpenEnv server, the model being a loopback
OpenAI-compatible endpoint that replays each task's reference actions (one task's only in part).
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import signal
from pathlib import Path

import httpx
import pytest
from replay_chat import ReplayChat
from train_kit import PARITY_TASKS, local_run, reference_actions, request_marker

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")

pytest.importorskip("verifiers", reason="the train extra is not installed (pip install -e '.[dev,train]')")


@pytest.fixture(scope="module")
def plans():
    """Per task: its reference actions and their local run."""
    out = {}
    for task in PARITY_TASKS:
        actions = reference_actions(task)
        out[task] = {"actions": actions, "local": local_run(task, actions)}
    return out


def _ws_run(url: str, task: str, actions: list[dict]) -> dict:
    from acworld_env.integrations.openenv import AcworldEnv

    async def play() -> dict:
        async with AcworldEnv(base_url=url) as env:
            result = await env.reset(task_id=task)
            rewards = []
            for a in actions:
                result = await env.step(a)
                rewards.append(result.reward)
            obs = result.observation
            return {"trace_digest": obs.summary["trace_digest"], "score": obs.score, "credits": obs.credits,
                    "rewards": rewards, "done": result.done}

    return asyncio.run(play())


def _http_run(url: str, task: str, actions: list[dict]) -> dict:
    first = httpx.post(f"{url}/reset", json={"task_id": task}).json()["observation"]
    rewards, body = [], {}
    for a in actions:
        body = httpx.post(f"{url}/step", json={"action": a, "session": first["session"]}).json()
        rewards.append(body["reward"])
    obs = body["observation"]
    return {"trace_digest": obs["summary"]["trace_digest"], "score": obs["score"], "credits": obs["credits"],
            "rewards": rewards, "done": body["done"]}


def test_same_actions_same_digest_and_score_locally_and_over_http_and_websocket(openenv_url, plans):
    for task, plan in plans.items():
        local = plan["local"]
        for run in (_ws_run(openenv_url, task, plan["actions"]), _http_run(openenv_url, task, plan["actions"])):
            assert run["done"] and run["trace_digest"] == local["trace_digest"], task
            assert run["score"] == local["score"] == 1.0 and run["credits"] == local["credits"]
            assert run["rewards"] == local["rewards"] and sum(run["rewards"]) == pytest.approx(local["score"])


def readme_vf_eval(server: str, endpoint: str) -> list[str]:
    """The README's vf-eval command as arguments, aimed at ``server`` and the model behind ``endpoint``."""
    command = re.search(r"^(vf-eval .*?)$\n(?!  )", README.replace("\\\n", " "), re.M | re.S).group(1)
    command = command.replace("http://127.0.0.1:8765", server).replace("https://api.openai.com/v1", endpoint)
    args = shlex.split(command)
    args[args.index("--model") + 1] = "replay"
    return args[1:]


@pytest.mark.timeout(240)
def test_readme_vf_eval_reward_is_the_env_score_and_credits_are_metrics(openenv_url, tmp_path, monkeypatch):
    from verifiers.v1.cli.eval.main import main as vf_eval

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-replay")
    monkeypatch.chdir(tmp_path)
    chat = ReplayChat({})
    argv = readme_vf_eval(openenv_url, chat.url)
    tasks = json.loads(argv[argv.index("--env.taskset.tasks") + 1])
    assert len(tasks) == 3
    # every task replays its reference, but the second stops after its first action (then "finish"):
    # its reward and metrics must show the credit it lost
    short = tasks[1]
    plans = {t: reference_actions(t) for t in tasks}
    plans[short] = plans[short][:1]
    chat.scripts = {request_marker(t): a for t, a in plans.items()}
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        vf_eval([*argv, "--output-dir", str(tmp_path / "outputs")])
    finally:
        chat.close()
        for sig, handler in handlers.items():  # vf-eval installs its own; the test run keeps pytest's
            signal.signal(sig, handler)
    lines = [json.loads(line) for f in (tmp_path / "outputs").rglob("traces.jsonl") for line in f.open()]
    traces = {ep["task"]["data"]["reset"]["task_id"]: ep["traces"][0] for ep in lines}
    assert sorted(traces) == sorted(tasks), [ep.get("errors") for ep in lines]
    for task, trace in traces.items():
        local = local_run(task, plans[task] + ([{"kind": "finish"}] if task == short else []))
        assert (local["score"] < 1.0) if task == short else (local["score"] == 1.0)
        acworld = trace["info"]["acworld"]
        assert acworld["done"] and acworld["summary"]["trace_digest"] == local["trace_digest"], task
        assert trace["rewards"]["acworld_reward"]["score"] == pytest.approx(local["score"])
        metrics = trace["metrics"]
        assert metrics["score"] == local["score"]
        assert {k[len("credit/"):]: v for k, v in metrics.items() if k.startswith("credit/")} == local["credits"]
        assert {k[len("stage/"):]: v for k, v in metrics.items() if k.startswith("stage/")} == local["stages"]
