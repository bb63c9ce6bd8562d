"""The OpenEnv wire models of the acworld market: one action, one observation, one state.

The action model accepts every shape a language model or a generic OpenEnv client sends:

* a VCP action, ``{"kind": "search_catalog", "query": "grinder"}``;
* an MCP-style tool call, ``{"type": "call_tool", "tool_name": "search_catalog", "arguments": {...}}``;
* a tool listing, ``{"type": "list_tools"}`` (the actor's VCP tools, with the LLM view's schemas);
* an OpenAI- or Anthropic-shaped tool call (``{"function": {"name", "arguments"}}``, ``{"name", "input"}``).

It never refuses a body: a malformed action reaches the market, which records it as a rejected
action, and the observation carries the rejection code (never a server error).

The observation carries everything a trainer needs as fields, because OpenEnv's serialiser drops
``metadata`` on the wire: the role-private view (``text`` and ``observation``), the step's
``validation``, the running ``score`` and ``safe_score``, the per-predicate ``credits`` and the
per-stage ``stages``; ``reward`` and ``done`` are OpenEnv's own fields.
"""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import ConfigDict, Field

RESET_KEYS = ("task_id", "split", "seed", "index", "role", "reward", "score", "hints", "suite", "episode_seed")
"""The arguments a reset reads (others are ignored, as OpenEnv's ``episode_id``)."""


class AcworldAction(Action):
    """One action of the session's actor: a VCP action, a tool call, or a tool listing."""

    model_config = ConfigDict(extra="allow", validate_assignment=True, arbitrary_types_allowed=True,
                              title="AcworldAction")

    type: Any = Field(default=None, description='"call_tool" (with tool_name and arguments), "list_tools", or '
                                                'absent for a VCP action given by "kind"')
    tool_name: Any = Field(default=None, description="The VCP tool to call (call_tool)")
    arguments: Any = Field(default=None, description="The tool's arguments (call_tool): a JSON object")
    kind: Any = Field(default=None, description="A VCP action's kind, its other fields beside it "
                                                '(e.g. {"kind": "propose_offer", "to": "merchant_0", ...})')


class AcworldObservation(Observation):
    """What the session's actor sees after a reset or a step (never another actor's view)."""

    text: str = Field(default="", description="The actor's view as text: request, inbox, last result")
    observation: dict[str, Any] = Field(default_factory=dict, description="The same view, structured")
    task_id: str | None = Field(default=None, description="The task being played")
    actor: str | None = Field(default=None, description="The actor this session plays")
    role: str | None = Field(default=None, description="buyer or merchant")
    step: int = Field(default=0, description="Actions the actor has taken")
    validation: dict[str, Any] | None = Field(default=None, description="The last action's result: kind, accepted, "
                                                                        "code (a rejection's), message")
    error: dict[str, Any] | None = Field(default=None, description="A refused request (code, message): no "
                                                                   "episode, episode over, bad reset arguments")
    score: float = Field(default=0.0, description="The task score of the trace so far")
    safe_score: float = Field(default=0.0, description="The safety-gated score (0 while a critical predicate fails)")
    credits: dict[str, float] = Field(default_factory=dict, description="Per predicate, its credit so far")
    stages: dict[str, float] = Field(default_factory=dict, description="Per stage, its score so far")
    critical_failed: list[str] = Field(default_factory=list, description="Critical predicates that fail")
    reward_mode: str = Field(default="potential", description="potential (rewards sum to the score) or terminal")
    trace_digest: str | None = Field(default=None, description="Digest of the episode's lineage trace so far")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="The actor's tools (OpenAI function "
                                                                          "schemas): on reset and list_tools")
    session: str | None = Field(default=None, description="This episode's credential: send it as `session` with "
                                                          "each plain-HTTP /step (a WebSocket session needs none)")
    summary: dict[str, Any] | None = Field(default=None, description="Once done: status, score and digests")


class AcworldState(State):
    """The session's episode: task, actor, steps and score (its own view only)."""

    task_id: str | None = None
    actor: str | None = None
    role: str | None = None
    score: float = 0.0
    done: bool = False
    reward_mode: str = "potential"
