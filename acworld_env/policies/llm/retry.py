"""Retries with exponential backoff and jitter, run by us (the SDKs get ``max_retries=0``).

Retried: HTTP 408, 409, 429 and 5xx, connection errors and timeouts. Not retried: other
4xx (a bad request or a refused key will not improve by waiting). When retries run out
a :class:`~acworld_env.policies.llm.errors.ProviderError` is raised.

The delay before retry ``n`` (from 0) is ``min(max, base * 2**n)`` scaled by a random
factor in [0.5, 1.0] ("equal jitter"), or the server's ``Retry-After`` when that is
longer (still capped by ``max``). ``base`` is configurable so tests run in milliseconds.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypeVar

from .credentials import redact
from .errors import ProviderError

log = logging.getLogger("acworld_env.policies.llm")
T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 429})


@dataclass(frozen=True)
class Failure:
    """One failed call, classified."""

    reason: str
    retryable: bool
    message: str
    status: int | None = None
    retry_after: float | None = None


@dataclass
class RetrySettings:
    """How many times to retry and how long to wait."""

    max_retries: int = 5
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    rng: random.Random = field(default_factory=random.Random)
    """Unseeded on purpose: parallel clients must not retry in lockstep."""

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        ceiling = min(self.backoff_max, self.backoff_base * (2 ** retry))
        wait = ceiling * (0.5 + 0.5 * self.rng.random())
        if retry_after is not None and retry_after > wait:
            wait = min(self.backoff_max, retry_after)
        return max(0.0, wait)


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def classify(exc: BaseException, sdk: ModuleType) -> Failure | None:
    """Classify an exception raised by an ``openai`` or ``anthropic`` client.

    Returns None for anything that is not an SDK error (a bug should surface as itself).
    """
    if isinstance(exc, sdk.APITimeoutError):
        return Failure("timeout", True, "the request timed out")
    if isinstance(exc, sdk.APIConnectionError):
        return Failure("connection_error", True, f"connection failed: {exc}")
    if isinstance(exc, sdk.APIStatusError):
        status = int(exc.status_code)
        if status == 429:
            reason = "rate_limited"
        elif status >= 500:
            reason = "server_error"
        elif status == 408:
            reason = "timeout"
        else:
            reason = f"http_{status}"
        retryable = status in RETRYABLE_STATUS or status >= 500
        return Failure(reason, retryable, f"HTTP {status}: {exc}", status, _retry_after(exc))
    base = getattr(sdk, "OpenAIError", None) or getattr(sdk, "AnthropicError", None)
    if base is not None and isinstance(exc, base):
        return Failure("client_error", False, f"{type(exc).__name__}: {exc}")
    return None


def call_with_retries(fn: Callable[[], T], *, sdk: ModuleType, settings: RetrySettings, provider: str,
                      model: str, secrets: tuple[str, ...] = (),
                      sleep: Callable[[float], None] = time.sleep) -> tuple[T, int]:
    """Run ``fn`` until it succeeds; return ``(result, retries_used)``.

    Raises :class:`ProviderError` when a failure is not retryable or retries run out.
    """
    retries = 0
    while True:
        try:
            return fn(), retries
        except Exception as exc:  # noqa: BLE001 - classified below; non-SDK errors re-raised
            failure = classify(exc, sdk)
            if failure is None:
                raise
            message = redact(failure.message, secrets)
            if not failure.retryable or retries >= settings.max_retries:
                raise ProviderError(
                    f"{provider}:{model}: {failure.reason} after {retries + 1} attempt(s): {message}",
                    provider=provider, model=model, reason=failure.reason, attempts=retries + 1,
                    status=failure.status) from None
            wait = settings.delay(retries, failure.retry_after)
            log.warning("%s:%s: %s; retry %d of %d in %.2fs", provider, model, failure.reason,
                        retries + 1, settings.max_retries, wait)
            sleep(wait)
            retries += 1
