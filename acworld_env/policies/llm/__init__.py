"""LLM policies: OpenAI, Anthropic and any OpenAI-compatible endpoint, with skill manifests.

Build one from a spec string, as everywhere a policy is named::

    from acworld_env.policies.llm import policy_from_spec

    policy = policy_from_spec("openai:gpt-4o-mini")                # Chat Completions + tools
    policy = policy_from_spec("anthropic:claude-sonnet-4-5")        # Messages API + tools
    policy = policy_from_spec("openai-compatible:qwen2.5:7b",       # vLLM, Ollama, llama.cpp,
                              base_url="http://localhost:11434/v1") # OpenRouter, ...

Keys: ``api_key_file``, else ``api_key_env``, else ``OPENAI_API_KEY`` /
``ANTHROPIC_API_KEY``. Endpoints: ``base_url``, else the SDKs' own ``OPENAI_BASE_URL`` /
``ANTHROPIC_BASE_URL``, else the provider default. A key never appears in ``last_meta``,
traces, caches, logs or error messages.

Behaviour:

* **Reading.** A tool call becomes the action; else a JSON action in the text (also in a
  fenced block); else an obvious refusal becomes ``abstain``; else the raw text goes to
  the market, which records a protocol-error rejection. The episode goes on and is scored.
* **Decoding** is the provider's default; only parameters you set (``temperature``,
  ``top_p``, ``max_tokens``, ``seed``, ``params``) are sent.
* **Calls.** Per-call ``timeout`` (240 s); ``max_retries`` with exponential backoff and
  jitter on 429, 5xx, connection errors and timeouts; at most ``concurrency`` calls in
  flight per provider endpoint in the process; opt-in ``cache_dir`` keyed by the exact
  request, so a rerun makes no calls.
* **Failures.** When the provider cannot answer after retries, ``act`` raises
  :class:`ProviderError`; a runner should mark the run *unscored* with ``exc.reason``.
* **Metadata.** ``policy.last_meta`` after each call: policy, provider, model, latency_s,
  input_tokens, output_tokens, cost_usd (None for unpriced models), cache_hit, retries,
  read (how the reply was understood), and error on failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import LLMConfigError, ProviderError
from .pricing import Price, price_of
from .skills import Skill, load_skills, select_skills
from .spec import PROVIDERS, ModelSpec, is_llm_spec, parse_spec

if TYPE_CHECKING:  # the SDKs are imported on first use, so naming a spec stays cheap
    from .policy import LLMPolicy

DEFAULT_TIMEOUT = 240.0
"""Seconds per call, as in the paper."""
DEFAULT_MAX_RETRIES = 5
DEFAULT_CONCURRENCY = 8
DEFAULT_MAX_SKILLS = 6

__all__ = [
    "DEFAULT_CONCURRENCY", "DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT", "LLMConfigError", "LLMPolicy",
    "ModelSpec", "PROVIDERS", "ProviderError", "Skill", "is_llm_spec", "load_skills", "parse_spec",
    "policy_from_spec", "select_skills",
]


def policy_from_spec(
    spec: str,
    *,
    base_url: str | None = None,
    api_key_file: str | os.PathLike[str] | None = None,
    api_key_env: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_retries: int = DEFAULT_MAX_RETRIES,
    backoff_base: float = 1.0,
    backoff_max: float = 60.0,
    concurrency: int = DEFAULT_CONCURRENCY,
    cache_dir: str | os.PathLike[str] | None = None,
    skills_dirs: Iterable[str | os.PathLike[str]] = (),
    builtin_skills: bool = True,
    max_skills: int = DEFAULT_MAX_SKILLS,
    native_tools: bool = True,
    max_turns: int | None = None,
    price: Price | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    max_tokens: int | None = None,
    seed: int | None = None,
    params: dict[str, Any] | None = None,
    system_preamble: str | None = None,
) -> LLMPolicy:
    """Build an LLM policy from ``openai:MODEL``, ``anthropic:MODEL`` or ``openai-compatible:MODEL``.

    Args:
        spec: Provider and model, split at the first ``:``.
        base_url: Endpoint; required for ``openai-compatible`` unless ``OPENAI_BASE_URL`` is set.
        api_key_file: File holding the key (takes precedence over variables).
        api_key_env: Name of an extra variable to read the key from (e.g. ``OPENROUTER_API_KEY``).
        timeout: Seconds per call.
        max_retries: Retries after the first attempt (429, 5xx, connection errors, timeouts).
        backoff_base / backoff_max: Seconds; the delay doubles from ``backoff_base`` up to ``backoff_max``.
        concurrency: Calls in flight per provider endpoint, shared across policies in the process.
        cache_dir: Enables the response cache in this folder.
        skills_dirs: Extra skill folders (a user skill replaces a built-in one of the same role and name).
        builtin_skills: Include the packaged skills.
        max_skills: Skills in the system prompt (a few more may join when the situation changes).
        native_tools: Send tool schemas; False lists the tools in the prompt and reads JSON from the text.
        max_turns: Turns sent per call (the first is kept); None sends the whole episode.
        price: (input, output) USD per 1M tokens, overriding the built-in table.
        temperature / top_p / max_tokens / seed / params: Sent only when given; otherwise the
            provider's defaults apply (Anthropic requires a cap; 4096 tokens unless ``max_tokens``).
        system_preamble: Replaces the first paragraph of the system prompt.

    Raises:
        LLMConfigError: Unknown spec, no key, no endpoint, or an unreadable skill.
    """
    from . import providers
    from .cache import ResponseCache
    from .credentials import resolve_api_key
    from .limits import provider_slots
    from .policy import LLMPolicy
    from .retry import RetrySettings

    ms = parse_spec(spec, base_url)
    if timeout <= 0:
        raise LLMConfigError(f"timeout must be positive, got {timeout}")
    if max_retries < 0:
        raise LLMConfigError(f"max_retries must be >= 0, got {max_retries}")
    if concurrency < 1:
        raise LLMConfigError(f"concurrency must be >= 1, got {concurrency}")
    key_file = str(api_key_file) if api_key_file is not None else None
    api_key = resolve_api_key(ms.provider, api_key_file=key_file, api_key_env=api_key_env)
    adapter_cls = providers.AnthropicMessages if ms.wire == "anthropic" else providers.OpenAIChat  # imports one SDK
    try:
        adapter = adapter_cls(api_key=api_key, base_url=ms.base_url, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - the SDK refused its configuration
        raise LLMConfigError(f"{ms}: cannot create the client: {type(exc).__name__}") from None
    decoding = {k: v for k, v in {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens,
                                  "seed": seed}.items() if v is not None}
    decoding.update(params or {})
    try:
        skills = load_skills([Path(d) for d in skills_dirs], builtin=builtin_skills)
    except ValueError as exc:
        raise LLMConfigError(str(exc)) from None
    return LLMPolicy(
        ms, adapter,
        retry=RetrySettings(max_retries=max_retries, backoff_base=backoff_base, backoff_max=backoff_max),
        slots=provider_slots(ms.provider, adapter.base_url, concurrency),
        cache=ResponseCache(cache_dir) if cache_dir is not None else None,
        skills=skills, max_skills=max_skills, params=decoding, native_tools=native_tools,
        price=price if price is not None else price_of(ms.provider, ms.model), max_turns=max_turns,
        secrets=(api_key,), system_preamble=system_preamble,
    )


def __getattr__(name: str) -> Any:
    if name == "LLMPolicy":
        from .policy import LLMPolicy

        return LLMPolicy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _register() -> None:
    """Make ``{"name": "llm", "params": {"spec": ...}}`` usable wherever policies are named."""
    from ...tasks.names import register_policy

    register_policy("llm")(policy_from_spec)


_register()
