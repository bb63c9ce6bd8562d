"""Remote agents: the HTTP market server, its client env, the MCP server and the parity gate.

Both transports host the local env class (:class:`~acworld_env.envs.aec.AcworldAECEnv`) and so
call ``Market.submit`` and nothing else. FastAPI, uvicorn and httpx come with the ``server``
extra (``pip install 'acworld-env[server]'``), the MCP SDK too; importing this package needs none of them,
nor the env stack: ``Host`` and ``RemoteError`` are imported from :mod:`.hosted` on first use, so
``acworld serve --help`` stays quick.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Host", "RemoteError"]


def __getattr__(name: str) -> Any:
    """``Host`` and ``RemoteError`` from :mod:`acworld_env.remote.hosted`, imported when first asked for."""
    if name in __all__:
        from . import hosted

        return getattr(hosted, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
