"""The turn-based parallel view of an acworld AEC env (wrapped or not).

The market changes after every single action, so PettingZoo's ``aec_to_parallel`` (which needs
``is_parallelizable``) does not apply; this view is turn-based. Each ``step(actions)`` submits the
action of the agent whose turn it is (``infos[agent]["active_agent"]`` names it; a missing
action is ``None``, the idle action) and ignores the others. With scripted counterparties there
is one agent, so every step is that agent's.

Compared with PettingZoo's ``turn_based_aec_to_parallel`` this view also: returns five dicts
from a step after the end (empty ones), gives ``observations``, ``rewards``, ``terminations``,
``truncations`` and ``infos`` for exactly the agents that were in play at the step (the ones
that end in it included), empties ``agents`` once every agent has ended, and exposes ``state()``
and ``state_space``.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import ParallelEnv


class TurnParallelEnv(ParallelEnv):
    """A parallel env over an AEC env in which one agent acts per step (see the module docstring)."""

    def __init__(self, aec_env: Any) -> None:
        self.aec_env = aec_env
        self.possible_agents = aec_env.possible_agents
        self.metadata = aec_env.metadata
        self.render_mode = getattr(aec_env, "render_mode", None)
        self.state_space = getattr(aec_env.unwrapped, "state_space", None)
        self.agents: list[str] = []

    @property
    def unwrapped(self) -> Any:
        """The raw AEC env."""
        return self.aec_env.unwrapped

    def observation_space(self, agent: str) -> Any:
        """The AEC env's observation space of ``agent``."""
        return self.aec_env.observation_space(agent)

    def action_space(self, agent: str) -> Any:
        """The AEC env's action space of ``agent``."""
        return self.aec_env.action_space(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the AEC env; observations and infos of every agent."""
        self.aec_env.reset(seed=seed, options=options)
        self.agents = list(self.aec_env.agents)
        observations = {a: self.aec_env.observe(a) for a in self.agents}
        return observations, self._infos(self.agents)

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                    dict[str, bool], dict[str, Any]]:
        """Submit the active agent's action; the five dicts cover the agents that were in play."""
        if not self.agents:
            return {}, {}, {}, {}, {}
        env = self.aec_env
        playing = list(self.agents)
        env.step(actions.get(env.agent_selection))
        rewards = {a: float(env.rewards.get(a, 0.0)) for a in playing}
        terminations = {a: bool(env.terminations.get(a, True)) for a in playing}
        truncations = {a: bool(env.truncations.get(a, False)) for a in playing}
        observations = {a: env.observe(a) for a in playing}
        infos = {a: dict(env.infos.get(a, {})) for a in playing}
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)  # the dead step: the finished agent leaves ``agents``
        self.agents = list(env.agents)
        for a in self.agents:
            infos[a]["active_agent"] = env.agent_selection
        return observations, rewards, terminations, truncations, infos

    def _infos(self, agents: list[str]) -> dict[str, Any]:
        active = self.aec_env.agent_selection
        return {a: {**self.aec_env.infos[a], "active_agent": active} for a in agents}

    def state(self) -> Any:
        """The AEC env's global state."""
        return self.aec_env.state()

    def render(self) -> Any:
        """The AEC env's rendering."""
        return self.aec_env.render()

    def close(self) -> None:
        """Close the AEC env."""
        self.aec_env.close()
