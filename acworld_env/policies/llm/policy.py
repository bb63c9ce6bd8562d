"""The LLM policy: observation -> chat request -> model reply -> VCP action.

One :class:`LLMPolicy` plays one actor through an episode, keeping the conversation
(system prompt, each observation as a user turn, each reply and what became of its tool
call). ``act`` never raises on what the model says; it raises
:class:`~acworld_env.policies.llm.errors.ProviderError` only when the provider cannot
answer after retries. After every call ``last_meta`` describes it (model, latency, tokens,
cost, cache hit, retries); the rollout stores that with the decision in the trace.

Every configured API key is scrubbed (:func:`~.credentials.redact_value`) from each
response as it arrives or leaves the cache, before the reply is parsed, cached or turned
into an action, so a provider that quotes a key back in a 200 reply cannot put it in a
trace, a transcript or the cache.
"""

from __future__ import annotations

import threading
import time
from functools import cache
from typing import Any

from ...vcp import anthropic_tools, openai_tools
from .cache import ResponseCache, request_key
from .credentials import redact_value, secrets_in_use
from .errors import ProviderError
from .history import Conversation, Turn
from .pricing import Price, cost_usd
from .prompt import (
    NOT_EXECUTED,
    first_turn_text,
    result_text,
    skills_note,
    system_prompt,
    turn_text,
)
from .providers.base import Adapter
from .reading import read_reply
from .retry import RetrySettings, call_with_retries
from .skills import Skill, select_skills, situation_text
from .spec import ModelSpec

SKILLS_PER_LATER_TURN = 2
"""Newly relevant skills that may join the conversation at one later step."""


@cache
def tool_schemas(wire: str, role: str) -> list[dict[str, Any]]:
    """The tool list of ``role`` in ``wire``'s format, built once per process and shared by every
    request (read-only: adapters pass it on unchanged, and the OpenAI adapter encodes it once)."""
    return anthropic_tools(role) if wire == "anthropic" else openai_tools(role)


class LLMPolicy:
    """A policy backed by a chat model with tool calling. Build it with ``policy_from_spec``."""

    def __init__(self, spec: ModelSpec, adapter: Adapter, *, retry: RetrySettings,
                 slots: threading.BoundedSemaphore, cache: ResponseCache | None = None,
                 skills: list[Skill] | None = None, max_skills: int = 6, params: dict[str, Any] | None = None,
                 native_tools: bool = True, price: Price | None = None, max_turns: int | None = None,
                 secrets: tuple[str, ...] = (), system_preamble: str | None = None) -> None:
        self.spec = spec
        self.name = str(spec)
        self.adapter = adapter
        self.retry = retry
        self.slots = slots
        self.cache = cache
        self.skills = list(skills or [])
        self.max_skills = max_skills
        self.params = dict(params or {})
        self.native_tools = native_tools
        self.price = price
        self.max_turns = max_turns
        self.system_preamble = system_preamble
        self._secrets = secrets
        self.last_meta: dict[str, Any] = {}
        self.reset()

    def __repr__(self) -> str:  # never show the client (it holds the key)
        return f"LLMPolicy({self.name!r}, base_url={self.adapter.base_url!r})"

    # -- episode ---------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Forget the conversation: a new episode starts."""
        self.conversation = Conversation(max_turns=self.max_turns)
        self.shown_skills: list[str] = []
        self.role: str | None = None
        self.last_meta = {}

    def act(self, observation: dict[str, Any]) -> dict[str, Any] | str:
        """One model call; returns an action dict or raw text (which the market rejects)."""
        turn = Turn(user=self._user_text(observation))
        self.conversation.turns.append(turn)
        request = self.adapter.build_request(self.spec.model, self.conversation, self._tools(), self.params)
        response, meta = self._call(request)
        reply = self.adapter.parse(response)
        turn.reply = reply
        reading = read_reply(reply)
        served = reply.model if reply.model and reply.model != self.spec.model else None
        meta.update({
            "input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens,
            "read": reading.how, "tool_calls": len(reply.tool_calls), "stop_reason": reply.stop_reason,
            **({"served_model": served} if served else {}),
        })
        cost = cost_usd(self.price, reply.input_tokens, reply.output_tokens)
        meta["cost_usd"] = 0.0 if meta["cache_hit"] and cost is not None else cost
        if meta["cache_hit"]:
            meta["cached_cost_usd"] = cost
        self.last_meta = meta
        return redact_value(reading.action, self._secrets)

    # -- building the turn -----------------------------------------------------
    def _user_text(self, obs: dict[str, Any]) -> str:
        turns = self.conversation.turns
        if turns and turns[-1].reply is None:  # a failed call left a turn without reply
            turns.pop()
        if not turns:
            self.role = str(obs["role"])
            chosen = select_skills(self.skills, self.role, situation_text(obs), limit=self.max_skills)
            self.shown_skills = [s.name for s in chosen]
            self.conversation.system = system_prompt(obs, chosen, native_tools=self.native_tools,
                                                     preamble=self.system_preamble)
            return first_turn_text(obs)
        prev = turns[-1]
        assert prev.reply is not None
        calls = prev.reply.tool_calls
        if calls:
            first = result_text(obs.get("last_result"))
            prev.results = [first] + [(NOT_EXECUTED, True)] * (len(calls) - 1)
        text = turn_text(obs, result_sent_as_tool=bool(calls))
        budget = min(SKILLS_PER_LATER_TURN, 2 * self.max_skills - len(self.shown_skills))
        if budget > 0:
            new = select_skills(self.skills, self.role or str(obs["role"]), situation_text(
                {"inbox": obs.get("inbox"), "last_result": obs.get("last_result")}),
                limit=budget, exclude=self.shown_skills, include_always=False)
            if new:
                self.shown_skills += [s.name for s in new]
                text += skills_note(new)
        return text

    def _tools(self) -> list[dict[str, Any]] | None:
        if not self.native_tools or self.role is None:
            return None
        return tool_schemas(self.spec.wire, self.role)

    # -- calling -------------------------------------------------------------------
    def _cache_key(self, request: dict[str, Any]) -> str:
        where = self.adapter.base_url if self.spec.provider == "openai-compatible" else None
        return request_key({"provider": self.spec.provider, "wire": self.spec.wire, "base_url": where,
                            "request": request})

    def _call(self, request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        meta: dict[str, Any] = {"policy": self.name, "provider": self.spec.provider, "model": self.spec.model,
                                "cache_hit": False, "retries": 0, "latency_s": 0.0}
        key = self._cache_key(request) if self.cache is not None else None
        if self.cache is not None and key is not None:
            entry = self.cache.get(key)
            if entry is not None:
                meta.update(cache_hit=True, cache_key=key, original_latency_s=entry.get("latency_s"))
                return redact_value(entry["response"], self._secrets), meta

        def once() -> dict[str, Any]:
            with self.slots:
                return self.adapter.send(request)

        start = time.perf_counter()
        try:
            response, retries = call_with_retries(
                once, sdk=self.adapter.sdk, settings=self.retry, provider=self.spec.provider,
                model=self.spec.model, secrets=secrets_in_use(self._secrets))
        except ProviderError as exc:
            meta.update(latency_s=round(time.perf_counter() - start, 3), retries=exc.attempts - 1,
                        error=f"{exc.reason}: {exc}")
            self.last_meta = meta
            raise
        meta.update(latency_s=round(time.perf_counter() - start, 3), retries=retries)
        response = redact_value(response, self._secrets)
        if self.cache is not None and key is not None:
            self.cache.put(key, {"provider": self.spec.provider, "model": self.spec.model,
                                 "latency_s": meta["latency_s"], "response": response})
            meta["cache_key"] = key
        return response, meta
