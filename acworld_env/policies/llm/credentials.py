"""Where API keys come from, and how they are kept out of everything we write.

Order of precedence for a key: an explicit key file, then a named environment variable
(``api_key_env``), then the provider's usual variable (``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``). ``openai-compatible`` endpoints (vLLM, Ollama, llama.cpp) often
need no key; then a placeholder is sent.

Keys live only inside the SDK client. They are never put in ``last_meta``, traces,
caches, log records or exception messages. A provider may still quote a key back (in an
error message, or in a 200 reply's text or tool-call arguments), so everything that comes
back is scrubbed before anything is built or stored from it: :func:`redact` (text) and
:func:`redact_value` (any JSON value) replace every configured key
(:func:`secrets_in_use`: each key resolved in this process plus the providers' usual
variables), and its last eight characters, by ``***``, also when written with JSON
``\\uXXXX`` escapes.
"""

from __future__ import annotations

import os
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import LLMConfigError

KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY",
           "openai-compatible": "OPENAI_API_KEY"}
"""The usual variable of each provider."""

NO_KEY_PLACEHOLDER = "EMPTY"
"""Sent to an ``openai-compatible`` endpoint when no key is configured (local servers ignore it)."""

SECRET_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
"""Variables whose values are always redacted, whichever provider is in use."""
MIN_SECRET_CHARS = 8
"""Shorter values are not treated as keys (replacing them would mangle ordinary text)."""

_resolved: set[str] = set()
_resolved_lock = threading.Lock()


def remember_secret(key: str) -> None:
    """Add ``key`` to the secrets redacted from everything written in this process."""
    if _usable(key):
        with _resolved_lock:
            _resolved.add(key)


def _usable(key: str | None) -> bool:
    return bool(key) and len(key or "") >= MIN_SECRET_CHARS and key != NO_KEY_PLACEHOLDER


def secrets_in_use(extra: tuple[str, ...] | list[str] = ()) -> tuple[str, ...]:
    """Every configured key: those resolved in this process, the providers' variables, ``extra``;
    longest first."""
    with _resolved_lock:
        found = set(_resolved)
    found.update(v.strip() for v in (os.environ.get(var) for var in SECRET_ENV) if v)
    found.update(extra)
    return tuple(sorted((s for s in found if _usable(s)), key=lambda s: (-len(s), s)))


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
        key = read_key_file(api_key_file)
        remember_secret(key)
        return key
    for var in (api_key_env, KEY_ENV[provider]):
        if var and os.environ.get(var, "").strip():
            remember_secret(os.environ[var].strip())
            return os.environ[var].strip()
    if provider == "openai-compatible":
        return NO_KEY_PLACEHOLDER
    if provider == "anthropic" and os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        return ""  # the SDK authenticates with its bearer-token variable
    hint = f"{api_key_env} or " if api_key_env else ""
    raise LLMConfigError(
        f"no API key for {provider}: set {hint}{KEY_ENV[provider]}, or pass api_key_file")


@lru_cache(maxsize=64)
def _pattern(secret: str) -> re.Pattern[str]:
    """The secret or its last eight characters, each character literal or as a JSON ``\\uXXXX`` escape."""
    def spelled(text: str) -> str:
        return "".join(f"(?:{re.escape(c)}|\\\\u(?i:{ord(c):04x}))" for c in text)
    return re.compile(f"{spelled(secret)}|{spelled(secret[-MIN_SECRET_CHARS:])}")


def redact(text: str, secrets: list[str] | tuple[str, ...] = ()) -> str:
    """``text`` with every configured key and ``secrets`` (and their last eight characters)
    replaced by ``***``."""
    return _redact(text, secrets_in_use(tuple(secrets)))


def _redact(text: str, found: tuple[str, ...]) -> str:
    for s in found:
        if s[-MIN_SECRET_CHARS:] in text or "\\u" in text:
            text = _pattern(s).sub("***", text)
    return text


def redact_value(value: Any, secrets: list[str] | tuple[str, ...] = ()) -> Any:
    """A copy of a JSON-like ``value`` (dicts, lists, strings, numbers) with every string and
    key redacted as by :func:`redact`."""
    found = secrets_in_use(tuple(secrets))
    if not found:
        return value

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            return _redact(v, found)
        if isinstance(v, dict):
            return {walk(k): walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, tuple):
            return tuple(walk(x) for x in v)
        return v
    return walk(value)
