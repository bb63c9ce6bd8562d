"""JSON schemas of VCP tools for OpenAI and Anthropic tool calling."""

from __future__ import annotations

from functools import cache
from typing import Any

from .base import Role, VCPAction
from .union import TOOLS, tools_for

_HIDDEN = {"kind", "actor"}


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline ``$defs`` references: some providers reject ``$ref`` in tool parameters."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(dict(defs[node["$ref"].rsplit("/", 1)[-1]]))
            return {k: walk(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


@cache
def parameters_schema(kind: str) -> dict[str, Any]:
    """The JSON schema of one tool's arguments (without the ``kind`` tag and actor claim)."""
    schema = _inline_refs(TOOLS[kind].model_json_schema())
    props = {k: v for k, v in schema.get("properties", {}).items() if k not in _HIDDEN}
    required = [r for r in schema.get("required", []) if r not in _HIDDEN]
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        out["required"] = required
    return out


def _description(tool: type[VCPAction]) -> str:
    doc = (tool.__doc__ or tool.__name__).strip().splitlines()[0]
    return f"[read-only] {doc}" if tool.readonly else doc


def openai_tools(role: Role | str) -> list[dict[str, Any]]:
    """Tool list for the OpenAI Chat Completions ``tools`` parameter."""
    return [
        {
            "type": "function",
            "function": {
                "name": kind,
                "description": _description(t),
                "parameters": parameters_schema(kind),
            },
        }
        for t in tools_for(role)
        for kind in [t.model_fields["kind"].default]
    ]


def anthropic_tools(role: Role | str) -> list[dict[str, Any]]:
    """Tool list for the Anthropic Messages API ``tools`` parameter."""
    return [
        {"name": kind, "description": _description(t), "input_schema": parameters_schema(kind)}
        for t in tools_for(role)
        for kind in [t.model_fields["kind"].default]
    ]
