"""The environment TRL's ``GRPOTrainer`` drives (its ``environment_factory``), over the OpenEnv client.

``GRPOTrainer(..., environment_factory=AcworldTRLEnv.factory(url))`` makes one instance per
rollout. ``reset(**row)`` starts the task the dataset row names (``task_id``, or ``split`` + ``seed`` +
``index``) on the acworld
OpenEnv server and returns the actor's first observation (appended to the prompt); the model acts
through the one tool, :meth:`AcworldTRLEnv.act` (a marketplace tool's name and its JSON
arguments); :meth:`AcworldTRLEnv.get_reward` is the rollout's reward: the sum of the step rewards,
which with ``reward="potential"`` is the task score so far (with ``"terminal"``: the score once
the episode is done, else 0). Every finished rollout is kept in :attr:`AcworldTRLEnv.rollouts`
(task, reward, score, per-predicate credits) for logs and tests.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from typing import Any, ClassVar

from .openenv_client import AcworldEnv
from .openenv_models import RESET_KEYS


class AcworldTRLEnv:
    """One rollout's episode on the acworld OpenEnv server (one WebSocket session per instance)."""

    rollouts: ClassVar[list[dict[str, Any]]] = []
    """Every rollout scored by :meth:`get_reward`, in order: task_id, reward, score, credits, steps."""
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, base_url: str, reward: str = "potential") -> None:
        self.base_url, self.reward_mode = base_url, reward
        self.client: Any = None
        self.total, self.steps, self.done = 0.0, 0, False
        self.last: Any = None

    @classmethod
    def factory(cls, base_url: str, reward: str = "potential") -> Callable[[], AcworldTRLEnv]:
        """The ``environment_factory`` for a server at ``base_url`` and a reward mode."""
        return lambda: cls(base_url, reward)

    def reset(self, **row: Any) -> str:
        """Start the row's task (its reset columns: ``task_id``, or ``split`` + ``seed`` + ``index``
        [+ ``role``]; the prompt and other columns are ignored); the first observation."""
        if self.client is None:
            self.client = AcworldEnv(base_url=self.base_url).sync()
            self.client.connect()
        args = {k: v for k, v in row.items() if k in RESET_KEYS and k != "reward"}
        result = self.client.reset(**args, reward=self.reward_mode)
        if result.observation.error:
            raise ValueError(f"reset refused: {result.observation.error}")
        self.total, self.steps, self.done, self.last = 0.0, 0, False, result.observation
        return "\n\n" + result.observation.text

    def act(self, tool: str, arguments: str) -> str:
        """Take one marketplace action.

        Args:
            tool: The marketplace tool to call, e.g. search_catalog, propose_offer, submit_answer or finish.
            arguments: The tool's arguments as a JSON object, e.g. {"query": "coffee grinder"}.

        Returns:
            The result of the action and what you observe next.
        """
        if self.done:
            return "The episode is over."
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments)
        result = self.client.step({"type": "call_tool", "tool_name": tool, "arguments": arguments})
        obs = self.last = result.observation
        self.total += result.reward or 0.0
        self.steps += 1
        self.done = result.done
        validation = obs.validation or {}
        head = "accepted" if validation.get("accepted") else f"rejected ({validation.get('code')})"
        return f"{head}: {validation.get('message') or ''}\n\n{obs.text}".strip()

    def get_reward(self) -> float:
        """The rollout's reward: the sum of its step rewards (the task score so far, in potential mode)."""
        obs = self.last
        record = {"task_id": obs.task_id if obs else None, "reward": self.total, "score": obs.score if obs else 0.0,
                  "credits": dict(obs.credits) if obs else {}, "steps": self.steps, "done": self.done}
        with self._lock:
            self.rollouts.append(record)
        return self.total

    def __del__(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            with contextlib.suppress(Exception):  # at interpreter shutdown there may be nothing left to close
                client.close()
