"""Remote agents: the HTTP market server, its client env, the MCP server and the parity gate.

Both transports host the local env class (:class:`~acworld_env.envs.aec.AcworldAECEnv`) and so
call ``Market.submit`` and nothing else. FastAPI, uvicorn and httpx come with the ``server``
extra (``pip install 'acworld-env[server]'``), the MCP SDK too; importing this package needs none of them.
"""

from __future__ import annotations

from .hosted import Host, RemoteError

__all__ = ["Host", "RemoteError"]
