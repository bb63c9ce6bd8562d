"""``acworld mcp`` through the official SDK's own client: list the tools, play a reference, same trace digest."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

import acworld_env  # noqa: E402
from acworld_env.policies.make import make_policy  # noqa: E402
from acworld_env.remote.mcp_server import END_TOOL, OBSERVE_TOOL, MCPEpisode, http_app  # noqa: E402
from acworld_env.remote.parity import play  # noqa: E402
from acworld_env.remote.serve import ServerThread  # noqa: E402
from acworld_env.vcp.schema import parameters_schema  # noqa: E402
from acworld_env.vcp.union import tools_for  # noqa: E402

pytestmark = pytest.mark.timeout(180)


def _local_digest(task: Any) -> str:
    env = acworld_env.make("capability-v1", task_id=task.task_id)
    play(env, task, make_policy(task.reference))
    return env.unwrapped.episode.market.trace.digest


async def _play(client: Any, task: Any) -> tuple[list[Any], dict[str, Any]]:
    """List the tools, play the task's reference through them, end; ``(tools, end summary)``."""
    listed = (await client.list_tools()).tools
    first = await client.call_tool(OBSERVE_TOOL, {})
    assert not first.is_error and task.request in first.content[0].text
    obs = first.structured_content["observation"]
    policy = make_policy(task.reference)
    policy.reset(0)
    for _ in range(task.max_steps):
        action = policy.act(obs) or {"kind": "get_inbox", "unread_only": True}
        if not isinstance(action, dict):
            action = action.model_dump(mode="json", exclude_none=True)
        result = await client.call_tool(action["kind"], {k: v for k, v in action.items() if k != "kind"})
        assert not result.is_error, result.content
        if result.structured_content["done"]:
            break
        obs = result.structured_content["observation"]
    after = await client.call_tool(action["kind"], {k: v for k, v in action.items() if k != "kind"})
    assert after.is_error and "over" in after.content[0].text
    summary = (await client.call_tool(END_TOOL, {})).structured_content
    return listed, summary


def _check_tools(listed: list[Any], role: str) -> None:
    vcp = [t for t in listed if t.name not in (OBSERVE_TOOL, END_TOOL)]
    kinds = [t.model_fields["kind"].default for t in tools_for(role)]
    assert [t.name for t in vcp] == kinds
    for tool in vcp:
        assert tool.input_schema == parameters_schema(tool.name)
    assert any(t.description.startswith("[read-only]") for t in vcp)
    assert any(not t.description.startswith("[read-only]") for t in vcp)


def test_stdio_server_plays_a_reference_like_a_local_run(tasks: list[Any]) -> None:
    task = next(t for t in tasks if t.counterparties)
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "acworld_env.cli", "mcp", "capability-v1", "--task-id", task.task_id, "--transport", "stdio"])

    async def main() -> tuple[list[Any], dict[str, Any]]:
        async with Client(params) as client:
            return await _play(client, task)

    listed, summary = anyio.run(main)
    _check_tools(listed, task.role)
    assert summary["status"] == "scored" and summary["score"] == 1.0
    assert summary["trace_digest"] == _local_digest(task)


def test_streamable_http_server_plays_a_reference_like_a_local_run(tasks: list[Any]) -> None:
    task = tasks[-1]
    episode = MCPEpisode({"task_id": task.task_id})
    with ServerThread(app=http_app(episode)) as url:

        async def main() -> tuple[list[Any], dict[str, Any]]:
            async with Client(f"{url}/mcp") as client:
                return await _play(client, task)

        listed, summary = anyio.run(main)
    _check_tools(listed, task.role)
    assert summary["status"] == "scored" and summary["trace_digest"] == _local_digest(task)


def test_a_tool_of_the_other_role_is_an_error_result(tasks: list[Any]) -> None:
    task = next(t for t in tasks if t.role == "buyer")
    episode = MCPEpisode({"task_id": task.task_id})
    merchant_only = next(t for t in tools_for("merchant") if t not in tools_for("buyer"))
    result, is_error = episode.call(merchant_only.model_fields["kind"].default, {})
    assert is_error and "no tool" in result["error"]
    records = len(episode.episode.env.episode.market.trace.records)
    bad, is_error = episode.call("search_listings", {"page": "many"})
    assert not is_error and bad["validation"]["accepted"] is False  # a refused action is a recorded result
    assert len(episode.episode.env.episode.market.trace.records) == records + 1
