"""``acworld mcp``: one role's VCP tools for one episode, as an MCP server (official ``mcp`` SDK).

The server hosts one episode of a task (the local env class, through a
:class:`~acworld_env.remote.hosted.Host`) and lists the evaluated actor's VCP tools, read-only
queries and business tools, with the same JSON schemas as the LLM view
(:func:`acworld_env.vcp.schema.parameters_schema`). A tool call is one action through
``Market.submit``; its result is the validation and the actor's next observation, as text and as
structured content. Two session tools stand beside them: ``acworld_observe`` (the current
observation, e.g. to start) and ``acworld_end`` (end the episode: status, score, digests).
Transports: stdio, or streamable HTTP at ``/mcp`` on 127.0.0.1.
"""

from __future__ import annotations

import json
from typing import Any

from ..observe import render_text
from ..vcp.schema import parameters_schema
from ..vcp.union import TOOLS, tools_for
from .gates import HostGate, send_error
from .hosted import Host, HostedEpisode, RemoteError
from .records import bearer_of, check_admin
from .views import visible_info, visible_state, visible_summary

OBSERVE_TOOL = "acworld_observe"
END_TOOL = "acworld_end"
INSTRUCTIONS = ("You act for {actor}, a {role} in an online marketplace. Call {observe} to read your request "
                "and inbox, then one VCP tool per step (money in integer cents). End with submit_answer, abstain "
                "or finish; {end} closes the episode and reports its score.")


class MCPEpisode:
    """One hosted episode and its actor, as the MCP tools see it."""

    def __init__(self, config: dict[str, Any], *, seed: int = 0, host: Host | None = None) -> None:
        self.host = host or Host()
        hosted = self.host.create_env(config)
        self.episode: HostedEpisode = self.host.reset(hosted, seed, None)
        env = self.episode.env
        assert env.task is not None
        self.actor = env.task.actor
        self.role = env.task.initial_state["actors"][self.actor]["role"]

    def tools(self) -> list[dict[str, Any]]:
        """``[{name, description, inputSchema}]``: the role's VCP tools, then the two session tools."""
        out = [{"name": kind, "description": _description(t), "inputSchema": parameters_schema(kind)}
               for t in tools_for(self.role) for kind in [t.model_fields["kind"].default]]
        out.append({"name": OBSERVE_TOOL, "description": "Your current observation: request, inbox, last result.",
                    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}})
        out.append({"name": END_TOOL, "description": "End the episode; returns its status, score and digests.",
                    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}})
        return out

    def observe(self) -> dict[str, Any]:
        """The actor's observation (counted as seen, as when a local agent observes)."""
        raw = self.host.observe(self.episode, self.actor)
        return {"observation": raw, "text": render_text(raw)}

    def call(self, name: str, arguments: dict[str, Any] | None) -> tuple[dict[str, Any], bool]:
        """Run one tool; ``(structured result, is_error)``. A refused action is a result, not an error."""
        if name == OBSERVE_TOOL:
            return self.observe(), False
        if name == END_TOOL:
            return visible_summary(self.host.end(self.episode), self.actor) or {}, False
        if name not in TOOLS or self.role not in TOOLS[name].roles:
            return {"error": f"no tool {name!r} for a {self.role}"}, True
        env = self.episode.env
        if env.agent_selection != self.actor or env.terminations.get(self.actor) or env.truncations.get(self.actor):
            return {"error": f"{self.actor}'s episode is over; call {END_TOOL}"}, True
        try:
            state = visible_state(self.host.act(self.episode, self.actor, {"kind": name, **(arguments or {})}),
                                  self.actor)  # the one rule: the actor's own info and rewards only
        except RemoteError as exc:
            return exc.body(), True
        info = visible_info(state["infos"], self.actor).get(self.actor, {})
        done = bool(state["terminations"].get(self.actor) or state["truncations"].get(self.actor))
        out = {"validation": info.get("validation"), "reward": state["rewards"].get(self.actor, 0.0), "done": done}
        if not done:
            out.update(self.observe())
        return out, False


def _description(tool: Any) -> str:
    doc = (tool.__doc__ or tool.__name__).strip().splitlines()[0]
    return f"[read-only] {doc}" if tool.readonly else doc


def build_server(episode: MCPEpisode) -> Any:
    """The low-level MCP ``Server`` listing ``episode``'s tools and running their calls."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    tools = [types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"])
             for t in episode.tools()]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        result, is_error = episode.call(params.name, dict(params.arguments or {}))
        text = result.get("text") or json.dumps(result, sort_keys=True, default=str)
        if "text" in result and result.get("validation") is not None:
            text = f"validation: {json.dumps(result['validation'], default=str)}\n\n{text}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=json.loads(json.dumps(result, default=str)),
                                    is_error=is_error)

    return Server("acworld", version="1", on_list_tools=list_tools, on_call_tool=call_tool,
                  instructions=INSTRUCTIONS.format(actor=episode.actor, role=episode.role, observe=OBSERVE_TOOL,
                                                   end=END_TOOL))


def run_stdio(episode: MCPEpisode) -> None:
    """Serve over stdin/stdout until the client closes them."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(episode)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def http_app(episode: MCPEpisode, host: str = "127.0.0.1", *, token: str | None = None) -> Any:
    """The streamable-HTTP ASGI app (endpoint ``/mcp``); with ``token``, every request must carry it
    as its bearer credential. Bound to loopback, it answers only loopback ``Host`` headers (the
    market server's rule, :mod:`acworld_env.remote.gates`)."""
    app = build_server(episode).streamable_http_app(host=host)
    return HostGate(app if token is None else BearerGate(app, token), host)


class BearerGate:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` is answered 401
    (``missing_credential`` / ``unknown_credential``, as the market server answers) and never
    reaches the MCP app."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Pass an authorised request (and any non-HTTP event, such as lifespan) on; refuse the others."""
        if scope.get("type") == "http":
            header = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
            try:
                check_admin(bearer_of(header), self.token, what="this MCP server")
            except RemoteError as refusal:
                return await send_error(send, refusal.status, refusal.code, refusal.message, close=True,
                                        extra=[(b"www-authenticate", b"Bearer")])
        await self.app(scope, receive, send)


def run_http(episode: MCPEpisode, *, host: str = "127.0.0.1", port: int = 8766, token: str | None = None) -> None:
    """Serve over streamable HTTP at ``http://HOST:PORT/mcp`` until interrupted (``token``: see :func:`http_app`)."""
    import uvicorn

    uvicorn.run(http_app(episode, host, token=token), host=host, port=port, log_level="warning")
