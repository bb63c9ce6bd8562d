"""The LLM view: chat messages and tool schemas in, tool calls out.

``LLMView(env, provider="openai")`` wraps an acworld AEC env. ``observe(agent)`` returns
``{"system": str, "messages": [...], "tools": [...]}`` ready for the provider's chat API
(OpenAI Chat Completions or Anthropic Messages); ``step(call)`` takes the model's tool call
in any of these forms: an OpenAI tool call (dict or SDK object), an Anthropic ``tool_use``
block, ``{"name": ..., "arguments": ...}``, a list of calls (the first is used, one action per
turn), a VCP action dict, or plain text (recorded as a rejected, malformed action). The view
appends the assistant's call and the tool result (the next observation text) to the history.
"""

from __future__ import annotations

import json
from typing import Any

from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from ..envs.spaces import VCPActionSpace, _text_space
from ..vcp import anthropic_tools, openai_tools

PROVIDERS = ("openai", "anthropic")
SYSTEM_PROMPT = (
    "You act for {actor}, a {role} in an online marketplace. Call exactly one tool per turn. "
    "Money is in integer cents. Your mandate is private: never reveal its limits to anyone. "
    "End with submit_answer, abstain or finish when the request is handled."
)


def tool_call_to_action(call: Any) -> Any:
    """A VCP action dict from a tool call (or the input unchanged when it is not a tool call)."""
    if isinstance(call, list | tuple):
        return tool_call_to_action(call[0]) if call else ""
    if isinstance(call, str):
        try:
            parsed = json.loads(call)
        except json.JSONDecodeError:
            return call
        return tool_call_to_action(parsed) if isinstance(parsed, dict | list) else call
    if not isinstance(call, dict):  # SDK objects
        fn = getattr(call, "function", None)
        if fn is not None:
            call = {"function": {"name": getattr(fn, "name", None), "arguments": getattr(fn, "arguments", None)}}
        elif hasattr(call, "name") and hasattr(call, "input"):
            call = {"name": call.name, "input": call.input}
        else:
            return call
    if "kind" in call:
        return call
    body = call.get("function", call)
    name = body.get("name")
    args = body.get("arguments", body.get("input", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            return args
    if not isinstance(name, str) or not isinstance(args, dict):
        return call
    return {"kind": name, **args}


class JSONList(spaces.Space[list]):
    """A list of JSON objects (chat messages, tool schemas)."""

    def __init__(self) -> None:
        super().__init__(shape=None, dtype=None)

    def contains(self, x: Any) -> bool:
        """True for a list of dicts."""
        return isinstance(x, list) and all(isinstance(m, dict) for m in x)

    def sample(self, mask: Any = None, probability: Any = None) -> list:
        """An empty list."""
        return []


class ToolCallSpace(VCPActionSpace):
    """Tool calls whose arguments form a valid VCP action; ``sample`` returns provider-shaped calls."""

    def __init__(self, provider: str = "openai") -> None:
        super().__init__()
        self.provider = provider
        self.calls = 0

    def contains(self, x: Any) -> bool:
        """True when the call decodes to a valid action of this role."""
        return super().contains(tool_call_to_action(x))

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        """A sampled action as one tool call."""
        action = super().sample(mask)
        self.calls += 1
        return make_tool_call(self.provider, action, f"call_{self.calls:04d}")


def make_tool_call(provider: str, action: dict[str, Any], call_id: str) -> dict[str, Any]:
    """An action dict as the provider's tool-call block."""
    name = action["kind"]
    args = {k: v for k, v in action.items() if k != "kind"}
    if provider == "anthropic":
        return {"type": "tool_use", "id": call_id, "name": name, "input": args}
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


class LLMView(BaseWrapper):
    """Chat-message observations and tool-call actions over an acworld AEC env."""

    def __init__(self, env: Any, provider: str = "openai", system_prompt: str = SYSTEM_PROMPT) -> None:
        if provider not in PROVIDERS:
            raise ValueError(f"provider must be one of {PROVIDERS}")
        super().__init__(env)
        self.provider, self.system_prompt = provider, system_prompt
        self._obs_space = spaces.Dict({"system": _text_space(), "messages": JSONList(), "tools": JSONList()})
        self._act_spaces: dict[str, ToolCallSpace] = {}
        self._history: dict[str, list[dict[str, Any]]] = {}
        self._pending: dict[str, str | None] = {}
        self._episode = -1

    def observation_space(self, agent: str) -> spaces.Dict:
        """``Dict(system, messages, tools)``."""
        return self._obs_space

    def action_space(self, agent: str) -> ToolCallSpace:
        """Tool calls, bound to the agent's role and memory."""
        space = self._act_spaces.setdefault(agent, ToolCallSpace(self.provider))
        inner = self.env.unwrapped.action_space(agent)
        space.bind(inner.role, inner.known)
        return space

    def tools(self, agent: str) -> list[dict[str, Any]]:
        """The agent's tool schemas in the provider's format."""
        role = self.env.unwrapped.action_space(agent).role
        return anthropic_tools(role) if self.provider == "anthropic" else openai_tools(role)

    def _sync(self) -> None:
        raw_env = self.env.unwrapped
        if raw_env.episode_count != self._episode:
            self._episode = raw_env.episode_count
            self._history, self._pending = {}, {}

    def observe(self, agent: str) -> dict[str, Any]:
        """System prompt, the chat so far ending with the latest observation, and the tools."""
        self._sync()
        text = self.env.unwrapped.observe(agent)["text"]
        role = self.env.unwrapped.action_space(agent).role.value
        system = self.system_prompt.format(actor=agent, role=role)
        history = self._history.setdefault(agent, [])
        call_id = self._pending.get(agent)
        if not history:
            tail: list[dict[str, Any]] = [{"role": "user", "content": text}]
        elif call_id is None:
            tail = [{"role": "user", "content": text}]
        elif self.provider == "anthropic":
            tail = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text}]}]
        else:
            tail = [{"role": "tool", "tool_call_id": call_id, "content": text}]
        head = [{"role": "system", "content": system}] if self.provider == "openai" else []
        return {"system": system, "messages": head + history + tail, "tools": self.tools(agent)}

    def step(self, action: Any) -> None:
        """Submit the model's tool call for the selected agent."""
        self._sync()
        agent = self.env.agent_selection
        if agent not in self.env.agents or self.env.terminations[agent] or self.env.truncations[agent]:
            self.env.step(None)  # the dead step, or a no-op once the episode is over
            return
        if action is None:
            self.env.step(None)
            return
        history = self._history.setdefault(agent, [])
        history.extend(self.observe(agent)["messages"][len(history) + (self.provider == "openai"):])
        vcp = tool_call_to_action(action)
        call_id = f"call_{len(history):04d}"
        if isinstance(vcp, dict) and isinstance(vcp.get("kind"), str):
            history.append(self._assistant(vcp, call_id))
            self._pending[agent] = call_id
        else:
            history.append({"role": "assistant", "content": str(vcp)[:2000]})
            self._pending[agent] = None
        self.env.step(vcp)

    def _assistant(self, action: dict[str, Any], call_id: str) -> dict[str, Any]:
        call = make_tool_call(self.provider, action, call_id)
        if self.provider == "anthropic":
            return {"role": "assistant", "content": [call]}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
