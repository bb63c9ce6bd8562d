"""Where API keys come from, and how they are kept out of everything we write.

Order of precedence for a key: an explicit key file, then a named environment variable
(``api_key_env``), then the provider's usual variable (``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``). ``openai-compatible`` endpoints (vLLM, Ollama, llama.cpp) often
need no key; then a placeholder is sent.

Keys live only inside the SDK client. They are never put in ``last_meta``, traces,
caches, log records or exception messages; :func:`redact` scrubs any text that might
echo one back (some providers quote a rejected key in their error message).
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import LLMConfigError

KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY",
           "openai-compatible": "OPENAI_API_KEY"}
"""The usual variable of each provider."""

NO_KEY_PLACEHOLDER = "EMPTY"
"""Sent to an ``openai-compatible`` endpoint when no key is configured (local servers ignore it)."""


def read_key_file(path: str | os.PathLike[str]) -> str:
    """The key stored in a file (surrounding whitespace removed)."""
    p = Path(path).expanduser()
    try:
        key = p.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise LLMConfigError(f"cannot read API key file {p}: {exc.strerror or exc}") from None
    if not key:
        raise LLMConfigError(f"API key file {p} is empty")
    return key


def resolve_api_key(provider: str, *, api_key_file: str | None = None,
                    api_key_env: str | None = None) -> str:
    """The key to use for ``provider``; raises :class:`LLMConfigError` when none is found."""
    if api_key_file:
        return read_key_file(api_key_file)
    for var in (api_key_env, KEY_ENV[provider]):
        if var and os.environ.get(var, "").strip():
            return os.environ[var].strip()
    if provider == "openai-compatible":
        return NO_KEY_PLACEHOLDER
    if provider == "anthropic" and os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        return ""  # the SDK authenticates with its bearer-token variable
    hint = f"{api_key_env} or " if api_key_env else ""
    raise LLMConfigError(
        f"no API key for {provider}: set {hint}{KEY_ENV[provider]}, or pass api_key_file")


def redact(text: str, secrets: list[str] | tuple[str, ...]) -> str:
    """``text`` with every secret (and its last-8-characters tail) replaced by ``***``."""
    for s in secrets:
        if s and len(s) >= 8 and s != NO_KEY_PLACEHOLDER:
            text = text.replace(s, "***").replace(s[-8:], "***")
    return text
