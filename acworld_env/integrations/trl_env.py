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

TRL keeps one instance per concurrent rollout and reuses it (``reset``) across batches, so a
generation batch of 64 holds 64 WebSocket sessions at once: serve with ``--max-concurrent-envs``
at least the batch size (the default is 256). :attr:`AcworldTRLEnv.peak_sessions` records the most
sessions this process held at once.

A call that times out (``message_timeout`` seconds without a reply) loses its WebSocket, and with
it the server's episode. The next call stays correct: :meth:`AcworldTRLEnv.act` opens a fresh
session, resets the same task with the same episode seed and replays the actions sent before the
lost one (the market is deterministic, so the trace digest must come back equal, else it raises),
then tells the model the lost action was not applied. For the dict-of-environments form
(``environment_factory={"capability-v1": ..., "large-catalog-v1": ...}``), each dataset row's
``environment`` column picks the factory and its ``task_id`` the task; other columns are ignored.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from typing import Any, ClassVar

from ..core.errors import AcworldError
from .openenv_client import AcworldEnv
from .openenv_models import RESET_KEYS

LOST = (TimeoutError, ConnectionError, OSError)
"""What a call that lost its reply raises (a timeout; a connection closed under it)."""


class ReplayMismatch(AcworldError, RuntimeError):
    """After a lost call, replaying the episode's earlier actions did not rebuild the same trace."""


class AcworldTRLEnv:
    """One rollout's episode on the acworld OpenEnv server (one WebSocket session per instance)."""

    rollouts: ClassVar[list[dict[str, Any]]] = []
    """Every rollout scored by :meth:`get_reward`, in order: task_id, reward, score, credits, steps."""
    open_sessions: ClassVar[int] = 0
    """WebSocket sessions open now, over all instances of this process."""
    peak_sessions: ClassVar[int] = 0
    """The most sessions open at once so far (reset it to 0 to measure a run)."""
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, base_url: str, reward: str = "potential", message_timeout: float = 60.0) -> None:
        self.base_url, self.reward_mode, self.message_timeout = base_url, reward, message_timeout
        self.client: Any = None
        self.total, self.steps, self.done = 0.0, 0, False
        self.last: Any = None
        self.reset_args: dict[str, Any] = {}
        self.sent: list[dict[str, Any]] = []
        self.recoveries = 0

    @classmethod
    def factory(cls, base_url: str, reward: str = "potential",
                message_timeout: float = 60.0) -> Callable[[], AcworldTRLEnv]:
        """The ``environment_factory`` for a server at ``base_url``, a reward mode and a reply timeout."""
        return lambda: cls(base_url, reward, message_timeout)

    def _connect(self) -> None:
        self._disconnect()
        self.client = AcworldEnv(base_url=self.base_url, message_timeout_s=self.message_timeout).sync()
        self.client.connect()
        with self._lock:
            AcworldTRLEnv.open_sessions += 1
            AcworldTRLEnv.peak_sessions = max(AcworldTRLEnv.peak_sessions, AcworldTRLEnv.open_sessions)

    def _disconnect(self) -> None:
        """Close this instance's session. Private, as every helper here: TRL offers each public method
        but ``reset`` and ``get_reward`` to the model as a tool."""
        client, self.client = self.client, None
        if client is None:
            return
        with self._lock:
            AcworldTRLEnv.open_sessions -= 1
        with contextlib.suppress(Exception):  # a socket already lost closes with an error
            client.close()

    def reset(self, **row: Any) -> str:
        """Start the row's task (its reset columns: ``task_id``, or ``split`` + ``seed`` + ``index``
        [+ ``role``]; the prompt and other columns are ignored); the first observation."""
        if self.client is None:
            self._connect()
        args = {k: v for k, v in row.items() if k in RESET_KEYS and k != "reward"}
        self.reset_args = {**args, "reward": self.reward_mode}
        try:
            result = self.client.reset(**self.reset_args)
        except LOST:  # a lost reset: start it again on a fresh session (nothing was played yet)
            self._connect()
            result = self.client.reset(**self.reset_args)
        if result.observation.error:
            raise ValueError(f"reset refused: {result.observation.error}")
        self.total, self.steps, self.done, self.last, self.sent = 0.0, 0, False, result.observation, []
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
        action = {"type": "call_tool", "tool_name": tool, "arguments": arguments}
        try:
            result = self.client.step(action)
        except LOST:
            obs = self._recover()
            return ("The call got no reply in time and was not applied; the episode is as it was before it. "
                    f"Send it again or choose another action.\n\n{obs.text}")
        self.sent.append(action)
        obs = self.last = result.observation
        self.total += result.reward or 0.0
        self.steps += 1
        self.done = result.done
        validation = obs.validation or {}
        head = "accepted" if validation.get("accepted") else f"rejected ({validation.get('code')})"
        return f"{head}: {validation.get('message') or ''}\n\n{obs.text}".strip()

    def _recover(self) -> Any:
        """After a lost call: a fresh session, the same task and episode seed, the earlier actions replayed;
        the rebuilt observation (its trace digest checked against the last one seen)."""
        self.recoveries += 1
        self._connect()
        result = self.client.reset(**self.reset_args)
        for action in self.sent:
            result = self.client.step(action)
        obs = result.observation
        if obs.trace_digest != self.last.trace_digest:
            raise ReplayMismatch(f"replaying {len(self.sent)} actions of {obs.task_id} gave trace digest "
                                 f"{obs.trace_digest}, not {self.last.trace_digest}")
        self.last = obs
        return obs

    def get_reward(self) -> float:
        """The rollout's reward: the sum of its step rewards (the task score so far, in potential mode)."""
        obs = self.last
        record = {"task_id": obs.task_id if obs else None, "reward": self.total, "score": obs.score if obs else 0.0,
                  "credits": dict(obs.credits) if obs else {}, "steps": self.steps, "done": self.done}
        with self._lock:
            self.rollouts.append(record)
        return self.total

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown there may be nothing left to close
            self._disconnect()
