"""The OpenEnv server of the acworld market (``acworld serve --openenv``).

Built with OpenEnv's own ``create_app``: ``POST /reset``, ``POST /step``, ``GET /state``,
``GET /schema``, ``GET /health``, ``WS /ws`` (one environment per WebSocket session, up to
``max_concurrent_envs`` at once). Bound to loopback, the app answers only loopback ``Host``
headers (the market server's rule, :mod:`acworld_env.remote.gates`).
"""

from __future__ import annotations

import contextlib
import functools
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

    from .openenv_env import AcworldOpenEnv
    from .openenv_models import AcworldAction, AcworldObservation

    host = host or Host(idle_timeout=idle_timeout)
    factory = functools.partial(AcworldOpenEnv, host=host)
    app = create_app(factory, AcworldAction, AcworldObservation, env_name="acworld",
                     max_concurrent_envs=max_concurrent_envs)
    app.state.host = host
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
