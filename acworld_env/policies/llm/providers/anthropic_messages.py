"""Anthropic Messages API with tools."""

from __future__ import annotations

from typing import Any

import anthropic

from ..history import Conversation, Reply, ToolCall, omitted_note

DEFAULT_MAX_TOKENS = 4096
"""The Messages API requires ``max_tokens``; this is the cap used unless overridden."""

_REPLAYED_BLOCKS = {"text", "tool_use", "thinking", "redacted_thinking"}


class AnthropicMessages:
    """Adapter for ``POST {base_url}/v1/messages``."""

    sdk = anthropic

    def __init__(self, *, api_key: str, base_url: str | None, timeout: float) -> None:
        # max_retries=0: retries are ours (see retry.py), so they are visible and testable.
        kwargs: dict[str, Any] = {"base_url": base_url, "timeout": timeout, "max_retries": 0}
        if api_key:
            kwargs["api_key"] = api_key
        self.client = anthropic.Anthropic(**kwargs)
        self.base_url = str(self.client.base_url)

    def build_request(self, model: str, conversation: Conversation, tools: list[dict[str, Any]] | None,
                      params: dict[str, Any]) -> dict[str, Any]:
        """``system`` plus alternating user / assistant messages; tool results open the next
        user message."""
        messages: list[dict[str, Any]] = []
        pending: list[dict[str, Any]] = []
        turns, omitted = conversation.window()
        for i, turn in enumerate(turns):
            note = omitted_note(omitted) if i == 1 and omitted else ""
            messages.append({"role": "user", "content": [*pending, {"type": "text", "text": note + turn.user}]})
            pending = []
            if turn.reply is None:
                continue
            messages.append({"role": "assistant", "content": _assistant_content(turn.reply)})
            for call, (content, is_error) in zip(turn.reply.tool_calls, turn.results, strict=False):
                block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id, "content": content}
                if is_error:
                    block["is_error"] = True
                pending.append(block)
        request: dict[str, Any] = {"model": model, "max_tokens": DEFAULT_MAX_TOKENS,
                                   "system": conversation.system, "messages": messages}
        if tools:
            request["tools"] = tools
        request.update(params)
        return request

    def send(self, request: dict[str, Any]) -> dict[str, Any]:
        """One Messages call."""
        response = self.client.messages.create(**request)
        return response.model_dump(mode="json", exclude_none=True)

    def parse(self, response: dict[str, Any]) -> Reply:
        """Text blocks, tool_use blocks and usage."""
        blocks = [b for b in response.get("content") or [] if isinstance(b, dict)]
        text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        calls = [ToolCall(id=str(b.get("id") or f"toolu_{i}"), name=str(b.get("name") or ""),
                          arguments=b.get("input") if isinstance(b.get("input"), dict) else {})
                 for i, b in enumerate(blocks) if b.get("type") == "tool_use"]
        usage = response.get("usage") or {}
        tokens_in = usage.get("input_tokens")
        if tokens_in is not None:
            tokens_in += (usage.get("cache_creation_input_tokens") or 0) + (usage.get("cache_read_input_tokens") or 0)
        replay = [b for b in blocks if b.get("type") in _REPLAYED_BLOCKS
                  and not (b.get("type") == "text" and not b.get("text"))]
        return Reply(text=text, tool_calls=calls, input_tokens=tokens_in, output_tokens=usage.get("output_tokens"),
                     model=response.get("model"), stop_reason=response.get("stop_reason"), assistant=replay)


def _assistant_content(reply: Reply) -> list[dict[str, Any]]:
    """The assistant's blocks as received (thinking blocks must be sent back unchanged)."""
    if reply.assistant:
        return [_clean(b) for b in reply.assistant]
    blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name,
                "input": c.arguments if isinstance(c.arguments, dict) else {}} for c in reply.tool_calls]
    return blocks or [{"type": "text", "text": "(no reply)"}]


def _clean(block: dict[str, Any]) -> dict[str, Any]:
    keep = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input"),
            "thinking": ("type", "thinking", "signature"), "redacted_thinking": ("type", "data")}
    return {k: block[k] for k in keep[block["type"]] if k in block}
