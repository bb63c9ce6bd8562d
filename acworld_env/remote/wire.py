"""A small keep-alive HTTP/1.1 client on the standard library, for the client env's hot path.

One action is one request, so the client's own cost per request is most of the transport's
overhead on loopback: ``http.client`` on a kept-alive connection costs about a third of a
general-purpose client's. A dropped connection is reopened; a timeout or connection failure is
raised as :class:`WireError` for the caller to retry (with its ``Idempotency-Key``).
"""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any
from urllib.parse import urlsplit

from ..core.errors import AcworldError


class WireError(AcworldError, ConnectionError):
    """The request could not be completed (timeout, refused or dropped connection)."""


class _OneWrite(http.client.HTTPConnection):
    """An ``HTTPConnection`` that writes a request's headers and bytes body in one ``send``.

    (``http.client`` writes them separately: two syscalls, and a server woken twice per request.)
    """

    def _send_output(self, message_body: Any = None, encode_chunked: bool = False) -> None:
        if isinstance(message_body, bytes) and not encode_chunked:
            self._buffer.extend((b"", b""))  # type: ignore[attr-defined]
            msg = b"\r\n".join(self._buffer) + message_body  # type: ignore[attr-defined]
            del self._buffer[:]  # type: ignore[attr-defined]
            self.send(msg)
            return
        super()._send_output(message_body, encode_chunked)  # type: ignore[misc]


class Wire:
    """Requests to one ``http://host:port`` base URL over one kept-alive connection (not thread-safe)."""

    def __init__(self, base_url: str, timeout: float = 60.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"url must be http://HOST:PORT or https://HOST:PORT, not {base_url!r}")
        self.scheme, self.host = parts.scheme, parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.prefix = parts.path.rstrip("/")
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self.scheme == "https" else _OneWrite
            conn = cls(self.host, self.port, timeout=self.timeout)
            conn.connect()
            # http.client writes the headers and the body separately: without TCP_NODELAY the body
            # waits for the server's delayed ACK (up to 40 ms on Linux) behind Nagle's algorithm.
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._conn = conn
        return self._conn

    def request(self, method: str, path: str, *, json_body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
        """``(status, content type, body)`` of one request; :class:`WireError` when it did not complete."""
        body = None if json_body is None else json.dumps(json_body, separators=(",", ":")).encode()
        hdrs = {"Accept": "application/json", **(headers or {})}
        if body is not None:
            hdrs["Content-Type"] = "application/json"
        for fresh in (False, True):
            try:
                conn = self._connection()
                conn.request(method, self.prefix + path, body=body, headers=hdrs)
                resp = conn.getresponse()
                data = resp.read()
                if resp.getheader("connection", "").lower() == "close":
                    self.close()
                return resp.status, resp.getheader("content-type", ""), data
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self.close()  # a kept-alive connection the server closed: reopen once, then give up
                if fresh:
                    raise WireError(f"{method} {path}: {exc!r}") from None
            except (TimeoutError, OSError, http.client.HTTPException) as exc:
                self.close()
                raise WireError(f"{method} {path}: {exc!r}") from None
        raise WireError(f"{method} {path}: no response")  # pragma: no cover  (the loop returns or raises)

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
