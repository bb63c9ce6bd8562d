"""A small keep-alive HTTP/1.1 client on the standard library, for the client env's hot path.

One action is one request, so the client's own cost per request is most of the transport's
overhead on loopback: ``http.client`` on a kept-alive connection costs about a third of a
general-purpose client's. A dropped connection is reopened; a timeout or connection failure is
raised as :class:`WireError` for the caller to retry (with its ``Idempotency-Key``).
"""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

from ..core.errors import AcworldError


class WireError(AcworldError, ConnectionError):
    """The request could not be completed (timeout, refused or dropped connection)."""


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
            cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
            self._conn = cls(self.host, self.port, timeout=self.timeout)
        return self._conn

    def request(self, method: str, path: str, *, json_body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
        """``(status, content type, body)`` of one request; :class:`WireError` when it did not complete."""
        body = None if json_body is None else json.dumps(json_body, separators=(",", ":")).encode()
        hdrs = {"Accept": "application/json", **(headers or {})}
        if body is not None:
            hdrs["Content-Type"] = "application/json"
        for fresh in (False, True):
            conn = self._connection()
            try:
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
