"""The single-agent Gymnasium view: the evaluated actor of each task, counterparties scripted.

``gymnasium.make("acworld/capability-v1")`` (after ``import acworld_env``) builds this view over
the AEC environment of the same id. Observations, actions, rewards, info, termination and
truncation are the AEC env's for the evaluated actor (see :mod:`acworld_env.envs.aec`), except
that ``info`` keeps the same keys and types at every step, reset included, as Gymnasium's vector
envs need (:func:`acworld_env.envs.info.fixed_info`: ``credits``, ``evidence``, ``stages`` and
``validation["result"]`` are JSON strings, absent numbers are -1 or 0, absent strings "").
``transport="http", url=..., token=...`` plays the same view on an ``acworld serve`` server.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from .aec import AcworldAECEnv
from .info import fixed_info
from .spaces import VCPActionSpace

REMOTE_SURFACE = ("known", "raw_observation", "observe", "end")
"""What the view needs of an AEC env that is not the local class: the remote client env
(``transport="http"``) has it, so ``gymnasium.make("acworld/capability-v1", transport="http", url=...)``
plays on a server."""


class AcworldGymEnv(gymnasium.Env):
    """One evaluated actor per episode; ``step(action)`` returns its observation and reward."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, env_id: str = "capability-v1", render_mode: str | None = None, **kwargs: Any) -> None:
        from ..env_registry import make

        if kwargs.get("counterparties", "scripted") != "scripted":
            raise ValueError("the single-agent view needs counterparties='scripted'")
        aec = make(env_id, render_mode=render_mode, **kwargs).unwrapped
        if not isinstance(aec, AcworldAECEnv) and not all(hasattr(aec, a) for a in REMOTE_SURFACE):
            raise TypeError(f"{env_id} does not build an acworld AEC env")
        self.aec: AcworldAECEnv = aec
        self.env_id = env_id
        self.render_mode = render_mode
        self.observation_space = aec.observation_space(aec.possible_agents[0])
        self.action_space = VCPActionSpace()
        self.actor: str | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode (same seed and options as the AEC env)."""
        super().reset(seed=seed)
        self.aec.reset(seed=seed, options=options)
        actor = self.actor = self.aec.agents[0]
        self.action_space.bind(self.aec.action_space(actor).role, self.aec.known(actor))
        return self.aec.observe(actor), fixed_info(self.aec.infos[actor])

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Submit the evaluated actor's action."""
        actor = self.actor
        if actor is None:
            raise RuntimeError("call reset() before step()")
        if self.aec.terminations.get(actor) or self.aec.truncations.get(actor):
            raise RuntimeError("the episode is over; call reset()")
        self.aec.step(action)
        return (self.aec.observe(actor), float(self.aec.rewards[actor]), self.aec.terminations[actor],
                self.aec.truncations[actor], fixed_info(self.aec.infos[actor]))

    def render(self) -> str | None:
        """The transcript (``ansi``) or print it (``human``)."""
        return self.aec.render()

    def close(self) -> None:
        """Release resources."""
        self.aec.close()

    @property
    def episode(self) -> Any:
        """The live :class:`~acworld_env.episode.Episode`."""
        return self.aec.episode

    @property
    def task(self) -> Any:
        """The task of the current episode."""
        return self.aec.task
