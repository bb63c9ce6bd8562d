"""``POST /mcp`` of the acworld OpenEnv server: MCP's JSON-RPC tool listing and calls.

OpenEnv's own ``/mcp`` serves only environments built on its MCP classes; this one serves the
market's tools the way ``acworld mcp`` does (:class:`~acworld_env.remote.mcp_server.MCPEpisode`:
the actor's VCP tools with the LLM view's schemas, plus ``acworld_observe`` and ``acworld_end``),
and every reply passes through the one visibility rule (:mod:`acworld_env.remote.views`).

One request is one JSON-RPC 2.0 message. Methods:

* ``initialize``: the server's name, version and tool capability; ``ping``.
* ``tools/list``: ``acworld_reset`` (start an episode); with ``params.session`` (the credential a
  reset hands out) also that actor's tools.
* ``tools/call``: ``acworld_reset`` with the reset arguments of ``/reset`` (``task_id``, or
  ``split`` + ``seed`` + ``index``, ``role``, ``reward``, ...): the first observation and its
  ``session``; any other tool with ``params.session``: one action of that actor (a refused
  action is a result with ``validation.code``; a refused request a result with ``isError``).

A notification (a message without ``id``) is answered 202 with no body, as MCP's HTTP transport
does; a body that is not a JSON-RPC request is a JSON-RPC error, never a 500.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..remote.hosted import Host, HostedEpisode, RemoteError
from ..remote.mcp_server import END_TOOL, INSTRUCTIONS, OBSERVE_TOOL, MCPEpisode
from .openenv_env import WORK, AcworldOpenEnv, session_episode
from .openenv_models import RESET_KEYS

RESET_TOOL = "acworld_reset"
PROTOCOL_VERSION = "2025-06-18"
"""The MCP protocol version answered when the client names none."""
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602

RESET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task_id": {"type": "string", "description": "A frozen task, e.g. capability-v1/T4/buyer/private_value/01"},
        "split": {"type": "string", "enum": ["frozen", "generated"]},
        "seed": {"type": "integer", "description": "Task-generation seed of the generated split"},
        "index": {"type": "integer", "description": "The index-th task of the split (of `role` if given)"},
        "role": {"type": "string", "enum": ["buyer", "merchant"]},
        "reward": {"type": "string", "enum": ["potential", "terminal"]},
        "score": {"type": "string", "enum": ["score", "safe"]},
        "hints": {"type": "string"},
        "suite": {"type": "string"},
        "episode_seed": {"type": "integer"},
    },
    "additionalProperties": False,
}
RESET_DESCRIPTION = ("Start an episode of a task; returns the first observation and `session`, the credential "
                     "to send as params.session with every later tools/list and tools/call.")


class SessionTools(MCPEpisode):
    """The MCP tools of an episode a reset already started (``acworld mcp``'s tools and calls,
    bound to a hosted episode instead of starting one)."""

    def __init__(self, host: Host, episode: HostedEpisode, actor: str) -> None:  # noqa: D107 (no super: binds)
        self.host, self.episode, self.actor = host, episode, actor
        self.role = episode.env.task.initial_state["actors"][actor]["role"]


def reset_tool() -> dict[str, Any]:
    """The ``acworld_reset`` tool as MCP lists it."""
    return {"name": RESET_TOOL, "description": RESET_DESCRIPTION, "inputSchema": RESET_SCHEMA}


def tool_result(result: dict[str, Any], is_error: bool) -> dict[str, Any]:
    """A ``CallToolResult``: the structured result, and as text the validation and the view."""
    text = result.get("text") or json.dumps(result, sort_keys=True, default=str)
    if "text" in result and result.get("validation") is not None:
        text = f"validation: {json.dumps(result['validation'], default=str)}\n\n{text}"
    return {"content": [{"type": "text", "text": text}], "structuredContent": json.loads(json.dumps(result, default=str)),
            "isError": is_error}


class MCPHandler:
    """Answers one JSON-RPC message for the episodes of ``host`` (the OpenEnv sessions' host)."""

    def __init__(self, host: Host, *, version: str) -> None:
        self.host, self.version = host, version

    def handle(self, message: Any) -> dict[str, Any] | None:
        """The JSON-RPC response to ``message``; None for a notification."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
            return _error(message.get("id") if isinstance(message, dict) else None, INVALID_REQUEST,
                          'not a JSON-RPC 2.0 request (expected {"jsonrpc": "2.0", "method": ..., "id": ...})')
        if "id" not in message:
            return None
        rid, method, params = message["id"], message["method"], message.get("params") or {}
        if not isinstance(params, dict):
            return _error(rid, INVALID_PARAMS, "params must be an object")
        if method == "initialize":
            return _ok(rid, {"protocolVersion": params.get("protocolVersion") or PROTOCOL_VERSION,
                             "capabilities": {"tools": {"listChanged": False}},
                             "serverInfo": {"name": "acworld", "version": self.version},
                             "instructions": INSTRUCTIONS.format(actor="the actor of your session", role="buyer or "
                                                                 "merchant", observe=OBSERVE_TOOL, end=END_TOOL)})
        if method == "ping":
            return _ok(rid, {})
        if method == "tools/list":
            return self._list(rid, params)
        if method == "tools/call":
            return self._call(rid, params)
        return _error(rid, METHOD_NOT_FOUND, f"no method {method!r} (initialize, ping, tools/list, tools/call)")

    def _session_tools(self, session: Any) -> SessionTools:
        if not isinstance(session, str) or not session:
            raise RemoteError(401, "missing_credential", f"send the `session` that {RESET_TOOL} returned "
                                                         "as params.session")
        ep, actor = session_episode(self.host, session, path="openenv /mcp")
        return SessionTools(self.host, ep, actor)

    def _list(self, rid: Any, params: dict[str, Any]) -> dict[str, Any]:
        tools = [reset_tool()]
        if params.get("session") is not None:
            try:
                with WORK:
                    tools += self._session_tools(params["session"]).tools()
            except RemoteError as exc:
                return _error(rid, INVALID_PARAMS, exc.message, data=exc.body()["error"])
        return _ok(rid, {"tools": tools})

    def _call(self, rid: Any, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return _error(rid, INVALID_PARAMS, "tools/call needs params.name (a string) and params.arguments (an object)")
        if name == RESET_TOOL:
            return _ok(rid, self._reset(arguments))
        try:
            with WORK:
                result, is_error = self._session_tools(params.get("session")).call(name, arguments)
        except RemoteError as exc:
            result, is_error = exc.body(), True
        return _ok(rid, tool_result(result, is_error))

    def _reset(self, arguments: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(arguments) - set(RESET_KEYS))
        if unknown:
            error = RemoteError(422, "bad_reset", f"unknown reset arguments {unknown}; known: {list(RESET_KEYS)}")
            return tool_result(error.body(), True)
        obs = AcworldOpenEnv(self.host).reset(**arguments)  # the /reset path: its checks, its visible observation
        view = obs.model_dump(exclude={"tools", "metadata"})
        return tool_result(view, obs.error is not None)


def _ok(rid: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def _error(rid: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": rid, "error": error}


def install_mcp_route(app: Any, host: Host, *, version: str) -> None:
    """Replace OpenEnv's ``/mcp`` routes (HTTP and WebSocket) of the FastAPI ``app`` by ``POST /mcp``
    answered by :class:`MCPHandler` over ``host``."""
    handler = MCPHandler(host, version=version)
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) != "/mcp"]

    async def mcp_endpoint(request: Request) -> Response:
        """One JSON-RPC message in, its response out (202 for a notification)."""
        try:
            message = json.loads(await request.body())
        except (json.JSONDecodeError, UnicodeDecodeError):
            return JSONResponse(_error(None, PARSE_ERROR, "the body is not JSON"))
        reply = await run_in_threadpool(handler.handle, message)
        return Response(status_code=202) if reply is None else JSONResponse(reply)

    app.add_api_route("/mcp", mcp_endpoint, methods=["POST"], tags=["MCP"], summary="MCP JSON-RPC: tools/list, "
                      "tools/call (acworld_reset, then the session actor's tools)")
