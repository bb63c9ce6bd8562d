"""The Host-header rule (DNS rebinding) of both HTTP servers: ``acworld serve`` and ``acworld mcp``.

A server bound to a loopback interface answers only requests whose ``Host`` names a loopback
host (``127.0.0.1``, ``localhost``, ``[::1]``, any port). A web page that points its own domain
at 127.0.0.1 (DNS rebinding) sends its domain as ``Host`` and gets 421 ``misdirected_request``,
never a route. A server bound beyond loopback needs its admin credential instead.
"""

from __future__ import annotations

import json
from typing import Any

LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""Interfaces only this machine reaches: a server bound to one of them may run without an admin credential."""


def host_name(header: str) -> str:
    """The host part of a ``Host`` header value (``[::1]:8765`` -> ``::1``, ``localhost:80`` -> ``localhost``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def host_allowed(header: str | None, bind: str) -> bool:
    """Whether a request with ``Host: header`` may reach a server bound to ``bind``."""
    if bind not in LOOPBACK:
        return True
    return bool(header) and host_name(header or "") in LOOPBACK


class HostGate:
    """ASGI middleware applying :func:`host_allowed`: 421 with the usual error body otherwise."""

    def __init__(self, app: Any, bind: str) -> None:
        self.app, self.bind = app, bind

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Pass a request whose Host is allowed (and every non-HTTP event) on; refuse the others."""
        if scope.get("type") == "http" and self.bind in LOOPBACK:
            header = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
            if not host_allowed(header, self.bind):
                message = f"this server answers only loopback hosts (127.0.0.1, localhost, [::1]), not {header[:100]!r}"
                await send_error(send, 421, "misdirected_request", message, close=True)
                return
        await self.app(scope, receive, send)


async def send_error(send: Any, status: int, code: str, message: str, *, close: bool = False,
                     extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """Answer an ASGI request with ``{"error": {"code", "message", "status"}}``."""
    body = json.dumps({"error": {"code": code, "message": message, "status": status}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(extra or [])]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
