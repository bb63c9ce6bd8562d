"""Policy specs such as ``openai:gpt-4o-mini``: which provider, which model, which endpoint."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import LLMConfigError

PROVIDERS = ("openai", "anthropic", "openai-compatible")
"""Spec prefixes understood by :func:`parse_spec`."""

BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL",
                "openai-compatible": "OPENAI_BASE_URL"}
"""The SDKs' own variables for the endpoint; they keep working when no base URL is given."""


@dataclass(frozen=True)
class ModelSpec:
    """A parsed policy spec.

    Attributes:
        provider: One of :data:`PROVIDERS`.
        model: The model name sent to the provider (may itself contain ``:`` or ``/``).
        base_url: The explicit endpoint, or None to let the SDK use its default or its
            environment variable.
    """

    provider: str
    model: str
    base_url: str | None = None

    @property
    def wire(self) -> str:
        """The wire format spoken: ``openai`` (Chat Completions) or ``anthropic`` (Messages)."""
        return "anthropic" if self.provider == "anthropic" else "openai"

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


def is_llm_spec(spec: str) -> bool:
    """True when ``spec`` names an LLM policy (``openai:...``, ``anthropic:...``, ...)."""
    head, sep, _ = spec.partition(":")
    return bool(sep) and head.strip().lower() in PROVIDERS


def parse_spec(spec: str, base_url: str | None = None) -> ModelSpec:
    """Read ``PROVIDER:MODEL``. Only the first ``:`` separates, so ``llama3.1:8b`` works.

    ``openai-compatible`` needs ``base_url`` or ``OPENAI_BASE_URL``; for the other two
    an explicit ``base_url`` overrides the SDK's default (and its environment variable).
    """
    head, sep, model = spec.partition(":")
    provider = head.strip().lower()
    model = model.strip()
    if not sep or provider not in PROVIDERS:
        raise LLMConfigError(
            f"unknown policy spec {spec!r}: expected one of "
            + ", ".join(f"'{p}:MODEL'" for p in PROVIDERS))
    if not model:
        raise LLMConfigError(f"policy spec {spec!r} names no model")
    if provider == "openai-compatible" and not (base_url or os.environ.get("OPENAI_BASE_URL")):
        raise LLMConfigError(
            f"{spec!r} needs an endpoint: pass base_url (--base-url URL) or set OPENAI_BASE_URL")
    return ModelSpec(provider, model, base_url or None)
