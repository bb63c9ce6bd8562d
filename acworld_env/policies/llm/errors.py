"""Errors raised by LLM policies.

Two kinds, on purpose:

* :class:`LLMConfigError` is raised while *building* a policy (unknown spec, no key, no
  base URL). Nothing has run yet; fix the command line.
* :class:`ProviderError` is raised by :meth:`LLMPolicy.act` when the model provider could
  not produce a reply even after retries (timeouts, rate limits that never clear, 5xx,
  refused credentials). It is an *infrastructure* failure, not a decision of the agent:
  an evaluation runner should catch it and mark the run **unscored** with
  :attr:`ProviderError.reason`, rather than score a truncated episode.

What the model *says* never raises: unreadable replies become actions the market records
as protocol-error rejections.
"""

from __future__ import annotations

from ...core.errors import AcworldError


class LLMConfigError(AcworldError, ValueError):
    """A policy spec or its settings cannot be used (raised before any call is made)."""


class ProviderError(AcworldError, RuntimeError):
    """The provider failed to answer after retries; the run should be marked unscored.

    Attributes:
        provider: ``openai``, ``anthropic`` or ``openai-compatible``.
        model: The model name of the spec.
        reason: Short machine-friendly cause, e.g. ``timeout``, ``rate_limited``,
            ``server_error``, ``connection_error``, ``http_401``.
        attempts: Calls made, the first one included.
        status: HTTP status of the last failure, when there was one.

    The message never contains an API key.
    """

    def __init__(self, message: str, *, provider: str, model: str, reason: str, attempts: int,
                 status: int | None = None) -> None:
        super().__init__(message)
        self.provider = provider
        self.model = model
        self.reason = reason
        self.attempts = attempts
        self.status = status
