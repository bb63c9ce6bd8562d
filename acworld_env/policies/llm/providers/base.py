"""What a wire-format adapter provides to the policy."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Protocol

from ..history import Conversation, Reply


class Adapter(Protocol):
    """Builds the exact request body, sends it with the SDK, and reads the response.

    Responses travel as plain JSON dicts so that the cache can store and replay them.
    """

    sdk: ModuleType
    """The SDK module (``openai`` or ``anthropic``), used to classify its errors."""
    base_url: str
    """The endpoint actually used (explicit, from the SDK's variable, or its default)."""

    def build_request(self, model: str, conversation: Conversation, tools: list[dict[str, Any]] | None,
                      params: dict[str, Any]) -> dict[str, Any]:
        """The request body: model, messages, tools and decoding parameters."""
        ...

    def send(self, request: dict[str, Any]) -> dict[str, Any]:
        """Make one call (no retries) and return the response body as a dict."""
        ...

    def parse(self, response: dict[str, Any]) -> Reply:
        """Normalise a response body."""
        ...
