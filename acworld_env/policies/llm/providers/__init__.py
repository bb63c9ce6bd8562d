"""Wire-format adapters: one per API family (OpenAI Chat Completions, Anthropic Messages).

Each adapter's SDK is imported when that adapter is first used (``providers.OpenAIChat``), so an
OpenAI-only run never imports the ``anthropic`` package (about 0.5 s) and the reverse.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import Adapter

_ADAPTERS = {"AnthropicMessages": ".anthropic_messages", "OpenAIChat": ".openai_chat"}

__all__ = ["Adapter", "AnthropicMessages", "OpenAIChat"]


def __getattr__(name: str) -> Any:
    """The adapter class ``name``, importing its module (and its SDK) on first use."""
    if name in _ADAPTERS:
        return getattr(importlib.import_module(_ADAPTERS[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
