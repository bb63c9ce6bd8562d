"""RLlib's multi-agent conventions over the acworld market (the menu view, turn-based).

    from ray.rllib.algorithms.ppo import PPOConfig
    from acworld_env.wrappers.rllib import AcworldRLlibEnv, policy_by_role

    env = AcworldRLlibEnv({"env_id": "capability-v1", "counterparties": "agents"})
    config = (PPOConfig()
              .environment(AcworldRLlibEnv, env_config={"counterparties": "agents"})
              .multi_agent(policies={"buyer", "merchant"}, policy_mapping_fn=policy_by_role(env)))

``AcworldRLlibEnv(config)`` builds ``make(config["env_id"], **rest)`` (default ``capability-v1``)
wrapped in the :class:`~acworld_env.wrappers.menu.ActionMenu`, and follows RLlib's
``MultiAgentEnv`` API (it subclasses it when ``ray.rllib`` imports; the conventions hold either way):

* ``possible_agents`` are fixed at construction: every actor of every task of the suite, so a
  suite that mixes tasks (one, two or four actors, either role) never shows RLlib a new agent
  id. ``observation_spaces`` / ``action_spaces`` cover all of them.
* Observations: ``{"observations": Box(0, 1, (F,), float32), "action_mask": Box(0, 1, (N,), float32)}``
  (float masks, RLlib's action-masking modules read ``action_mask``); actions: ``Discrete(N)``.
* Turn-based: ``reset`` and ``step`` return an observation for the agent whose turn is next,
  plus a final observation for each agent that ended in the step. ``rewards`` and ``infos`` cover
  the agents in the observation dict; reward earned meanwhile (the evaluated actor's score moves
  when others act) is held and paid with the agent's next observation, so no reward is lost.
* ``terminateds`` / ``truncateds`` carry each ending agent's flag and ``"__all__"``: in the step
  where the last agent ends, ``terminateds["__all__"]`` if the evaluated actor ended the task with
  a terminal action, else ``truncateds["__all__"]`` (step budget). Exactly one is True then; both
  are False before. An ended agent receives nothing afterwards.
* ``agents`` after a step lists the agents still playing plus those the step reports on (so every
  id returned is among them, as RLlib's environment check requires); one that ended drops out at
  the next step. The episode is over when ``"__all__"`` says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from ..envs.parallel import TurnParallelEnv
from .menu import N_ACTIONS, N_FEATURES, ActionMenu

try:  # RLlib needs torch/tree and more; the adapter's conventions do not
    from ray.rllib.env.multi_agent_env import MultiAgentEnv as _Base
except Exception:  # noqa: BLE001 - any import failure means "no RLlib": fall back to a plain class
    _Base = object

ALL = "__all__"


def rllib_observation_space() -> spaces.Dict:
    """One agent's observation space: menu features and a float action mask."""
    return spaces.Dict({"observations": spaces.Box(0.0, 1.0, (N_FEATURES,), np.float32),
                        "action_mask": spaces.Box(0.0, 1.0, (N_ACTIONS,), np.float32)})


class AcworldRLlibEnv(_Base):  # type: ignore[misc, valid-type]
    """The acworld menu env in RLlib's multi-agent dict conventions (see the module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        from ..env_registry import make

        if _Base is not object:
            super().__init__()
        config = dict(config or {})
        env_id = config.pop("env_id", "capability-v1")
        self.par = TurnParallelEnv(ActionMenu(make(env_id, **config)))
        raw = self.par.unwrapped
        self.possible_agents: list[str] = list(raw.possible_agents)
        self.roles: dict[str, str] = {a: raw.action_space(a).role.value for a in self.possible_agents}
        self.agents: list[str] = []
        self.observation_spaces = {a: rllib_observation_space() for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        self._held: dict[str, float] = {}

    def get_observation_space(self, agent_id: str) -> spaces.Space:
        """``agent_id``'s observation space."""
        return self.observation_spaces[agent_id]

    def get_action_space(self, agent_id: str) -> spaces.Space:
        """``agent_id``'s action space."""
        return self.action_spaces[agent_id]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode; the observation of the agent that acts first."""
        obs, infos = self.par.reset(seed=seed, options=options)
        unknown = [a for a in self.par.agents if a not in self.observation_spaces]
        if unknown:
            raise ValueError(f"agents {unknown} of task {self.par.unwrapped.task.task_id} are not among the "
                             f"possible_agents fixed at construction {self.possible_agents}; build the env "
                             "with every task it will play (tasks=...)")
        self.agents = list(self.par.agents)
        self._held = dict.fromkeys(self.agents, 0.0)
        first = self._active()
        return {first: _convert(obs[first])}, {first: dict(infos[first])}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                         dict[str, bool], dict[str, Any]]:
        """Submit the acting agent's action (a missing one is the idle action)."""
        if not self.par.agents:
            raise RuntimeError("the episode is over (__all__ was True); call reset()")
        active = self._active()
        obs, rewards, terms, truncs, infos = self.par.step({active: action_dict.get(active)})
        for agent, reward in rewards.items():
            self._held[agent] = self._held.get(agent, 0.0) + reward
        ended = [a for a in obs if terms[a] or truncs[a]]
        out_obs = {a: _convert(obs[a]) for a in ended}
        out_infos = {a: infos[a] for a in ended}
        if self.par.agents:
            nxt = self._active()
            out_obs[nxt] = _convert(obs[nxt])
            out_infos[nxt] = infos[nxt]
        out_rewards = {a: self._held.pop(a, 0.0) for a in out_obs}
        for a in ended:
            self._held.pop(a, None)
        done = not self.par.agents
        # every agent this step reports on counts as in the env for this step (RLlib checks that the
        # returned ids are among ``agents``); one that ended drops out at the next step
        self.agents = list(dict.fromkeys([*self.par.agents, *out_obs]))
        by_answer = bool(terms.get(self.par.unwrapped.task.actor))
        terminateds = {**{a: terms[a] for a in ended}, ALL: done and by_answer}
        truncateds = {**{a: truncs[a] for a in ended}, ALL: done and not by_answer}
        return out_obs, out_rewards, terminateds, truncateds, out_infos

    def _active(self) -> str:
        return self.par.aec_env.agent_selection

    def state(self) -> np.ndarray:
        """The global state (for centralised critics)."""
        return self.par.state()

    def render(self) -> Any:
        """The transcript (with ``render_mode="ansi"`` in the config)."""
        return self.par.render()

    def close(self) -> None:
        """Close the env."""
        self.par.close()


def _convert(obs: dict[str, Any]) -> dict[str, np.ndarray]:
    return {"observations": np.asarray(obs["observation"], dtype=np.float32),
            "action_mask": np.asarray(obs["action_mask"], dtype=np.float32)}


def policy_by_role(env: AcworldRLlibEnv) -> Callable[..., str]:
    """A ``policy_mapping_fn`` sending each agent to the policy named after its role."""
    roles = dict(env.roles)

    def mapping(agent_id: str, *args: Any, **kwargs: Any) -> str:
        return roles[agent_id]

    return mapping
