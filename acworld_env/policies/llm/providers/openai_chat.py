"""OpenAI Chat Completions with tools; also any OpenAI-compatible server (vLLM, Ollama,
llama.cpp, OpenRouter, ...)."""

from __future__ import annotations

import inspect
import json
from typing import Any

import openai

from ..history import Conversation, Reply, ToolCall, omitted_note


class OpenAIChat:
    """Adapter for ``POST {base_url}/chat/completions``."""

    sdk = openai

    def __init__(self, *, api_key: str, base_url: str | None, timeout: float) -> None:
        # max_retries=0: retries are ours (see retry.py), so they are visible and testable.
        self.client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)
        self.base_url = str(self.client.base_url)
        self._posts_bytes = "content" in inspect.signature(self.client.post).parameters

    def build_request(self, model: str, conversation: Conversation, tools: list[dict[str, Any]] | None,
                      params: dict[str, Any]) -> dict[str, Any]:
        """System message, then user / assistant / tool messages per turn."""
        messages: list[dict[str, Any]] = [{"role": "system", "content": conversation.system}]
        turns, omitted = conversation.window()
        for i, turn in enumerate(turns):
            note = omitted_note(omitted) if i == 1 and omitted else ""
            messages.append({"role": "user", "content": note + turn.user})
            if turn.reply is None:
                continue
            messages.append(_assistant_message(turn.reply))
            for call, (content, _) in zip(turn.reply.tool_calls, turn.results, strict=False):
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        request: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            request["tools"] = tools
        request.update(params)
        return request

    def send(self, request: dict[str, Any]) -> dict[str, Any]:
        """One Chat Completions call, posted as is through the SDK's client.

        ``client.post`` keeps the SDK's authentication, timeouts and error types (so retries
        classify failures the same way) but skips its per-call transformation of the request
        and its response models: the reply is plain JSON, which is all :meth:`parse` reads.
        The body goes as bytes from :func:`encode_request` (the tens of kilobytes of tool
        schemas are encoded once per process, not per call) when the SDK takes ``content``
        (openai >= 1.100 or so); older SDKs get the dict and encode it themselves.
        """
        if self._posts_bytes:
            response = self.client.post("/chat/completions", content=encode_request(request), cast_to=object)
        else:
            response = self.client.post("/chat/completions", body=request, cast_to=object)
        if not isinstance(response, dict):
            raise TypeError(f"chat completions endpoint returned {type(response).__name__}, not a JSON object")
        return {k: v for k, v in response.items() if v is not None}

    def parse(self, response: dict[str, Any]) -> Reply:
        """Text, tool calls and usage of the first choice."""
        choices = response.get("choices") or [{}]
        message = choices[0].get("message") or {}
        text = _text(message.get("content"))
        calls = []
        for i, tc in enumerate(message.get("tool_calls") or []):
            fn = tc.get("function") or {}
            raw = fn.get("arguments")
            calls.append(ToolCall(id=tc.get("id") or f"call_{i}", name=str(fn.get("name") or ""),
                                  arguments=_arguments(raw), raw_arguments=raw if isinstance(raw, str) else None))
        if not calls and isinstance(message.get("function_call"), dict):  # legacy servers
            fc = message["function_call"]
            calls.append(ToolCall(id="call_0", name=str(fc.get("name") or ""), arguments=_arguments(fc.get("arguments")),
                                  raw_arguments=fc.get("arguments")))
        usage = response.get("usage") or {}
        return Reply(text=text, tool_calls=calls, input_tokens=usage.get("prompt_tokens"),
                     output_tokens=usage.get("completion_tokens"), model=response.get("model"),
                     stop_reason=choices[0].get("finish_reason"))


_ENCODED_TOOLS: dict[int, tuple[list[Any], bytes]] = {}
"""Encoded tool lists by identity (the list is kept, so its id cannot be reused); a few per process."""
_MAX_ENCODED_TOOLS = 32


def _dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON, as the SDK encodes a request body."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def encode_request(request: dict[str, Any]) -> bytes:
    """The request body as the SDK would send it, except that ``tools`` comes last.

    The tool list is the same object on every call of a role
    (:func:`~acworld_env.policies.llm.policy.tool_schemas`), so its encoding is kept and
    spliced in: per call only the messages and parameters are encoded.
    """
    tools = request.get("tools")
    rest = {k: v for k, v in request.items() if k != "tools"}
    if not isinstance(tools, list) or not tools or not rest:
        return _dumps(request)
    known = _ENCODED_TOOLS.get(id(tools))
    if known is None or known[0] is not tools:
        if len(_ENCODED_TOOLS) >= _MAX_ENCODED_TOOLS:
            _ENCODED_TOOLS.clear()
        known = _ENCODED_TOOLS[id(tools)] = (tools, _dumps(tools))
    return _dumps(rest)[:-1] + b',"tools":' + known[1] + b"}"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _arguments(raw: Any) -> dict[str, Any] | str:
    """Arguments as a dict; the raw text when it is not a JSON object."""
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return str(raw)
    return value if isinstance(value, dict) else str(raw)


def _assistant_message(reply: Reply) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        msg["tool_calls"] = [{
            "id": c.id, "type": "function",
            "function": {"name": c.name, "arguments": c.raw_arguments if c.raw_arguments is not None
                         else json.dumps(c.arguments if isinstance(c.arguments, dict) else {})},
        } for c in reply.tool_calls]
    elif msg["content"] is None:
        msg["content"] = ""
    return msg
