"""The OpenEnv template's entry point: the acworld market as an OpenEnv server.

``python -m server.app --host 0.0.0.0 --port 8000`` is the Dockerfile's command;
``uvicorn server.app:app`` serves the same app (bound to loopback rules: only loopback ``Host``
headers are answered; serve beyond loopback through :func:`main` with ``--host``). Routes:
``POST /reset``, ``POST /step``, ``GET /state``, ``GET /schema``, ``GET /metadata``,
``GET /health``, ``WS /ws`` and ``POST /mcp`` (JSON-RPC ``tools/list`` and ``tools/call``).
Everything is built by :mod:`acworld_env.integrations.openenv_app`; this file only exposes it
where ``openenv.yaml`` (``app: server.app:app``) and OpenEnv's tools look for it.
"""

from __future__ import annotations

from acworld_env.integrations.openenv_app import create_openenv_app
from acworld_env.integrations.openenv_app import main as _serve

app = create_openenv_app()
"""The ASGI app ``uvicorn server.app:app`` serves (loopback-bound rules)."""


def main(argv: list[str] | None = None) -> None:
    """Serve until interrupted: ``--host`` (default 127.0.0.1), ``--port`` (default 8000)."""
    _serve(argv)


if __name__ == "__main__":
    main()
