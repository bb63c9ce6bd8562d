"""The participant's HTTP client of a sealed round (one kept-alive connection per thread).

Transient failures are retried: a connection that drops (every action carries an
``Idempotency-Key``, so a retried action never runs twice; opening a slot again returns the same
episode), and a 429 ``rate_limited`` (after its ``Retry-After``). The token is sent only in the
``Authorization`` header; no message this client raises quotes it.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from ..remote.records import RemoteError
from ..remote.wire import Wire, WireError

PREFIX = "/v1/sealed"
MAX_RATE_WAITS = 200
"""429 replies one request waits out before it gives up."""


class SealedClientError(RemoteError):
    """The host refused a request, or could not be reached after retries."""


class SealedClient:
    """Requests to a sealed round's host as one participant (thread-safe: a connection per thread)."""

    def __init__(self, url: str, token: str, *, timeout: float = 60.0, retries: int = 3) -> None:
        self.url, self.timeout, self.retries = url.rstrip("/"), timeout, retries
        self._token = token
        self._local = threading.local()
        Wire(self.url, timeout=timeout)  # a bad URL is refused here, before anything runs

    def _wire(self) -> Wire:
        wire = getattr(self._local, "wire", None)
        if wire is None:
            wire = self._local.wire = Wire(self.url, timeout=self.timeout)
        return wire

    def call(self, method: str, path: str, body: Any = None, *, key: str | None = None,
             auth: bool = True) -> Any:
        """One request (retried as the module docstring says); the JSON reply or a :class:`SealedClientError`."""
        headers = {"Authorization": f"Bearer {self._token}"} if auth else {}
        if key:
            headers["Idempotency-Key"] = key
        failures = waits = 0
        while True:
            try:
                status, ctype, data = self._wire().request(method, PREFIX + path, json_body=body, headers=headers)
            except WireError as exc:
                failures += 1
                if failures > self.retries:
                    raise SealedClientError(503, "unreachable", f"{self.url}: {exc}") from None
                time.sleep(min(2.0, 0.2 * failures))
                continue
            if status == 429 and waits < MAX_RATE_WAITS:
                waits += 1
                time.sleep(_retry_after(data))
                continue
            break
        if status >= 400:
            try:
                err = json.loads(data)["error"]
            except (ValueError, KeyError, TypeError):
                err = {"code": "http_error", "message": data[:300].decode("utf-8", "replace")}
            raise SealedClientError(status, str(err.get("code", "http_error")), str(err.get("message", "")))
        return json.loads(data) if ctype.startswith("application/json") else data.decode("utf-8")

    # -- the API ----------------------------------------------------------------------
    def round(self) -> dict[str, Any]:
        """The round's commitment, public key and slots."""
        return self.call("GET", "/round", auth=False)

    def open_submission(self, label: str) -> dict[str, Any]:
        """Open (or resume) this participant's submission."""
        return self.call("POST", "/submissions", {"policy": label})

    def close_submission(self) -> dict[str, Any]:
        """Close the open submission; the signed result."""
        return self.call("POST", "/submissions/current/close", {})

    def open_episode(self, slot: str) -> dict[str, Any]:
        """Start (or rejoin) a slot's episode."""
        return self.call("POST", "/episodes", {"slot": slot})

    def observation(self, episode_id: str) -> dict[str, Any]:
        """The actor's observation."""
        return self.call("GET", f"/episodes/{episode_id}/observation")

    def act(self, episode_id: str, body: dict[str, Any], key: str) -> dict[str, Any]:
        """One action; the actor's view of the state after it."""
        return self.call("POST", f"/episodes/{episode_id}/actions", body, key=key)

    def end(self, episode_id: str, reason: str = "") -> dict[str, Any]:
        """End the episode (status, and the reason when unscored)."""
        return self.call("POST", f"/episodes/{episode_id}/end", {"reason": reason} if reason else {})

    def close(self) -> None:
        """Close this thread's connection."""
        wire = getattr(self._local, "wire", None)
        if wire is not None:
            wire.close()
            self._local.wire = None


def _retry_after(data: bytes) -> float:
    """Seconds a 429 asks to wait (from its message), between 0.05 and 5."""
    try:
        message = json.loads(data)["error"]["message"]
        return min(5.0, max(0.05, float(message.rsplit("retry in ", 1)[1].split()[0])))
    except (ValueError, KeyError, TypeError, IndexError):
        return 1.0
