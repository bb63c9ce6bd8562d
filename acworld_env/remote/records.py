"""What the host keeps per environment and per episode, and the refusal every transport raises."""

from __future__ import annotations

import hmac
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import AcworldError
from ..envs.aec import AcworldAECEnv


class RemoteError(AcworldError, RuntimeError):
    """A refused request: an HTTP status, a stable code and a one-line message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def body(self) -> dict[str, Any]:
        """The JSON error body every refusal carries."""
        return {"error": {"code": self.code, "message": self.message, "status": self.status}}


def same_secret(given: str | None, secret: str | None) -> bool:
    """Whether ``given`` is ``secret``, compared in constant time (every credential check of the
    remote surfaces goes through here, never through ``==``)."""
    if not given or not secret:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), secret.encode("utf-8", "surrogatepass"))


def bearer_of(authorization: str) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header value; None for any other or none."""
    scheme, _, token = authorization.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def check_admin(bearer: str | None, token: str | None, *, what: str) -> None:
    """Refuse a request to ``what`` (the server, in its words) without its admin credential ``token``
    (None: the server has none): 401 ``missing_credential`` or ``unknown_credential``."""
    if token is None:
        return
    if not bearer:
        raise RemoteError(401, "missing_credential", f"{what} needs its admin credential: "
                          "Authorization: Bearer <token> (make(..., token=...))")
    if not same_secret(bearer, token):
        raise RemoteError(401, "unknown_credential", f"not the admin credential {what} needs")

@dataclass
class HostedEnv:
    """One client's environment: the local env class, and the credential that resets it."""

    env_id: str
    env: AcworldAECEnv
    token: str
    episodes: int = 0
    current: str | None = None


@dataclass
class HostedEpisode:
    """One episode and its transport state."""

    episode_id: str
    host_env: HostedEnv
    credentials: dict[str, str]
    status: str = "open"
    """``open``, ``scored`` (ended after the evaluated actor finished or ran out of steps) or ``unscored``."""
    reason: str = ""
    audit: list[dict[str, Any]] = field(default_factory=list)
    replies: dict[tuple[str, str], tuple[str, dict[str, Any]]] = field(default_factory=dict)
    """(actor, Idempotency-Key) -> (request hash, reply): a key belongs to the actor that sent it."""
    summary: dict[str, Any] | None = None
    last_seen: float = field(default_factory=time.monotonic)
    lock: threading.RLock = field(default_factory=threading.RLock)

    @property
    def env(self) -> AcworldAECEnv:
        """The env playing this episode."""
        return self.host_env.env
