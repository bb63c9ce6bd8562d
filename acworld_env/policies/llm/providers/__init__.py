"""Wire-format adapters: one per API family (OpenAI Chat Completions, Anthropic Messages)."""

from .anthropic_messages import AnthropicMessages
from .base import Adapter
from .openai_chat import OpenAIChat

__all__ = ["Adapter", "AnthropicMessages", "OpenAIChat"]
