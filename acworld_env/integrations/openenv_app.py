"""The OpenEnv server of the acworld market (``acworld serve --openenv``).

Built with OpenEnv's own ``create_app``: ``POST /reset``, ``POST /step``, ``GET /state``,
``GET /schema``, ``GET /metadata``, ``GET /health``, ``WS /ws`` (one environment per WebSocket
session, up to ``max_concurrent_envs`` at once); ``POST /mcp`` is ours
(:mod:`~acworld_env.integrations.openenv_mcp`: the market's tools over MCP's JSON-RPC). Bound to
loopback, the app answers only loopback ``Host`` headers (the market server's rule,
:mod:`acworld_env.remote.gates`). The OpenEnv template's entry point, ``server/app.py`` at the
repository root, serves this app (:func:`main`).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from typing import Any

from ..remote.gates import HostGate
from ..remote.hosted import Host

DEFAULT_PORT = 8000
MAX_CONCURRENT_ENVS = 256
"""Default number of simultaneous WebSocket sessions."""


def create_openenv_app(host: Host | None = None, *, max_concurrent_envs: int = MAX_CONCURRENT_ENVS,
                       bind: str = "127.0.0.1", idle_timeout: float = 900.0) -> Any:
    """The ASGI app: OpenEnv's server over :class:`~.openenv_env.AcworldOpenEnv` sessions sharing ``host``."""
    from openenv.core.env_server.http_server import create_app

    from .openenv_env import AcworldOpenEnv, package_version
    from .openenv_mcp import install_mcp_route
    from .openenv_models import AcworldAction, AcworldObservation, AcworldState

    host = host or Host(idle_timeout=idle_timeout)
    factory = functools.partial(AcworldOpenEnv, host=host)
    extra: dict[str, Any] = {}
    if "state_cls" in inspect.signature(create_app).parameters:  # openenv>=0.4; openenv-core 0.3 has no state_cls
        extra["state_cls"] = AcworldState
    app = create_app(factory, AcworldAction, AcworldObservation, env_name="acworld",
                     max_concurrent_envs=max_concurrent_envs, **extra)
    app.state.host = host
    install_mcp_route(app, host, version=package_version())
    return HostGate(QuietDisconnect(app), bind)


class QuietDisconnect:
    """ASGI middleware: a WebSocket client that hangs up first ends its session quietly (OpenEnv's
    endpoint then tries to close the socket itself, which raises after the client's close)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Pass everything on; swallow only a WebSocket session's disconnect."""
        if scope.get("type") != "websocket":
            return await self.app(scope, receive, send)
        from starlette.websockets import WebSocketDisconnect

        with contextlib.suppress(WebSocketDisconnect):
            await self.app(scope, receive, send)


def serve_openenv(*, host: str = "127.0.0.1", port: int = DEFAULT_PORT, max_concurrent_envs: int = MAX_CONCURRENT_ENVS,
                  idle_timeout: float = 900.0, log_level: str = "info") -> None:
    """Serve until interrupted."""
    import uvicorn

    app = create_openenv_app(max_concurrent_envs=max_concurrent_envs, bind=host, idle_timeout=idle_timeout)
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False, ws_max_size=16 * 2**20)


def main(argv: list[str] | None = None) -> None:
    """``python -m server.app [--host H] [--port P]``: the OpenEnv template's entry point (the
    Dockerfile's command). Binds 127.0.0.1 unless told otherwise; a container passes ``--host 0.0.0.0``."""
    import argparse

    parser = argparse.ArgumentParser(prog="server.app", description="The acworld OpenEnv server.")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("--max-concurrent-envs", type=int, default=MAX_CONCURRENT_ENVS,
                        help="simultaneous WebSocket sessions")
    parser.add_argument("--idle-timeout", type=float, default=900.0, help="seconds before an idle episode is closed")
    args = parser.parse_args(argv)
    serve_openenv(host=args.host, port=args.port, max_concurrent_envs=args.max_concurrent_envs,
                  idle_timeout=args.idle_timeout)
