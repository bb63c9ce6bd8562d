"""Tolerant reading of a model reply into a VCP action. Never raises.

In order:

1. a tool call -> ``{"kind": name, **arguments}`` (the first call; a call whose
   arguments are not JSON is passed on as its raw text);
2. a JSON action in the text, bare or inside a fenced code block, as
   ``{"kind": ...}`` or the common ``{"name"/"tool": ..., "arguments"/"input": {...}}``;
3. an obvious plain-language refusal ("I can't ...", "nothing matches ...") ->
   ``{"kind": "abstain", "reason": <the text>}``;
4. anything else -> the raw text, which the market records as a protocol-error
   rejection (``malformed_json``, ``unknown_tool`` ...). The episode goes on and is scored.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .history import Reply

MAX_REASON = 2000
"""Longest abstain reason the protocol accepts."""

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.S)
_NAME_KEYS = ("name", "tool", "tool_name", "function", "action")
_ARG_KEYS = ("arguments", "parameters", "input", "args", "params")

_REFUSAL = re.compile(  # first-person refusals, at the start of a sentence
    r"(?:^|[.!?]\s+|\n)\s*"
    r"(?:(?:(?:i'm|i\s+am)\s+(?:very\s+|really\s+)?sorry|sorry|unfortunately|apologies)[,.!]?\s*(?:but\s+)?)?"
    r"i(?:\s+(?:can't|cannot|can\s+not|won't|will\s+not|am\s+unable\s+to|am\s+not\s+able\s+to|"
    r"must\s+decline|have\s+to\s+decline|refuse|decline)|'m\s+(?:unable|not\s+able)\s+to)"
    # or statements that nothing qualifies, anywhere
    r"|\bnothing\s+(?:here\s+|available\s+)?(?:matches|satisfies|fits|meets|qualifies)"
    r"|\bno\s+(?:listing|product|item|offer|option)s?\s+(?:match|matches|satisfy|satisfies|fit|fits|meet|meets)"
    r"|\bthere\s+(?:is|are)\s+no\s+(?:listing|product|item|option)s?\s+(?:that|which)\s+"
    r"(?:match|matches|satisfy|satisfies|fit|fits|meet|meets)",
    re.I,
)
_NOT_A_REFUSAL = re.compile(r"^\s*(?:reveal|share|disclose|tell|go\s+(?:above|over|below|under))", re.I)


@dataclass(frozen=True)
class Reading:
    """What a reply was read as. ``how`` is one of ``tool_call``, ``tool_call_malformed``,
    ``json_text``, ``refusal``, ``raw``."""

    action: dict[str, Any] | str
    how: str


def _normalise(obj: Any) -> dict[str, Any] | None:
    """A dict that looks like an action, rewritten as ``{"kind": ..., ...}``; else None."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("kind"), str):
        return obj
    for nk in _NAME_KEYS:
        name = obj.get(nk)
        if isinstance(name, dict):  # {"function": {"name": ..., "arguments": ...}}
            inner = _normalise(name)
            if inner is not None:
                return inner
        if not isinstance(name, str):
            continue
        for ak in _ARG_KEYS:
            args = obj.get(ak)
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    continue
            if isinstance(args, dict):
                return {**args, "kind": name}
        if nk in {"tool", "tool_name", "action"}:  # flat form: {"tool": "finish", "summary": ...}
            return {**{k: v for k, v in obj.items() if k != nk}, "kind": name}
    return None


def _json_objects(text: str) -> list[Any]:
    """Every JSON value that starts at a ``{`` in ``text``, outermost first."""
    decoder = json.JSONDecoder()
    out, i = [], text.find("{")
    while i != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        out.append(value)
        i = text.find("{", end)
    return out


def action_from_text(text: str) -> dict[str, Any] | str | None:
    """A JSON action found in ``text``; the raw body of a broken fenced block; or None."""
    fences = [(lang.lower(), body.strip()) for lang, body in _FENCE.findall(text)]
    broken: str | None = None
    for lang, body in fences:
        for value in _json_objects(body):
            found = _normalise(value)
            if found is not None:
                return found
        if lang in {"json", ""} and body.startswith("{") and broken is None:
            broken = body
    for value in _json_objects(text):
        found = _normalise(value)
        if found is not None:
            return found
    if broken is not None:
        return broken
    stripped = text.strip()
    if stripped.startswith("{") and stripped.count("{") > stripped.count("}"):
        return stripped  # a bare JSON object cut short
    return None


def is_refusal(text: str) -> bool:
    """True for an obvious plain-language refusal (not for e.g. "I won't reveal my budget")."""
    norm = text.replace("\u2019", "'").replace("\u2018", "'")
    return any(not _NOT_A_REFUSAL.match(norm[m.end():]) for m in _REFUSAL.finditer(norm))


def read_reply(reply: Reply) -> Reading:
    """Turn a reply into the action to submit (a dict, or raw text the market will reject)."""
    if reply.tool_calls:
        call = reply.tool_calls[0]
        if isinstance(call.arguments, dict):
            return Reading({**call.arguments, "kind": call.name}, "tool_call")
        return Reading(call.arguments, "tool_call_malformed")
    text = reply.text or ""
    found = action_from_text(text)
    if isinstance(found, dict):
        return Reading(found, "json_text")
    if found is None and text.strip() and is_refusal(text):
        return Reading({"kind": "abstain", "reason": text.strip()[:MAX_REASON]}, "refusal")
    return Reading(found if isinstance(found, str) else text, "raw")
