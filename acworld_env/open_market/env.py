"""``market-v1``: the open market as a PettingZoo environment, AEC and parallel.

Every Buyer and Merchant is an agent with its own mandate, observation and reward. The AEC view
gives each agent of the current phase one turn, in id order; the parallel view plays one phase
per ``step`` (every agent of that side acts, the others' actions are ignored). Rewards are the
change of each agent's rubric score (:mod:`.rubric`), paid at the end of each phase. ``infos``
carry the phase, the agent's own score and, once the episode is over, its own surplus
(:func:`.views.info`); the market's welfare report is the host's (``env.welfare_report()``).

    env = acworld_env.make("market-v1", buyers=5, merchants=5, seed=0, k=2)
    env = acworld_env.make("market-v1", buyers=5, merchants=5, world="market.sqlite")  # persistent
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
from pettingzoo import AECEnv, ParallelEnv

from . import views
from .mandates import MarketConfig
from .session import DEFAULT_PHASES, OpenMarket


class JSONSpace(gymnasium.Space):
    """A space of JSON values of one shape (``dict`` observations, actions of any JSON form)."""

    def __init__(self, kind: type | tuple[type, ...], sample_value: Any = None) -> None:
        super().__init__()
        self.kind = kind
        self.sample_value = sample_value

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        """The idle value (an action of None does nothing)."""
        return self.sample_value

    def contains(self, x: Any) -> bool:
        """True for a value of the space's type."""
        return isinstance(x, self.kind)


class ObservationSpace(gymnasium.spaces.Dict):
    """Observations: a dict of JSON values (see :func:`acworld_env.open_market.views.observation`).

    A ``Dict`` space with no fixed sub-spaces: it contains any dict carrying the keys every
    observation has, so PettingZoo's checks treat it as the structured observation it is.
    """

    REQUIRED = frozenset({"agent", "role", "phase", "round", "my_turn", "mandate", "orders", "last", "inbox"})

    def __init__(self) -> None:
        super().__init__({})

    def contains(self, x: Any) -> bool:
        """True for a dict with every key an observation has."""
        return isinstance(x, dict) and set(x) >= self.REQUIRED


OBS_SPACE = ObservationSpace()
ACTION_SPACE = JSONSpace((dict, list, str, type(None)), None)


class _Base:
    """What both views share: configuration and the engine."""

    metadata = {"name": "acworld_market_v1", "render_modes": ["ansi"], "is_parallelizable": True}

    def _setup(self, buyers: int, merchants: int, seed: int, k: int, max_capacity: int,
               world: str | Path | None, phases: tuple[str, ...] | list[str], render_mode: str | None) -> None:
        self.config = MarketConfig(buyers, merchants, seed, k, max_capacity)
        self.world_path, self.phase_list, self.render_mode = world, tuple(phases), render_mode
        self.possible_agents = [f"buyer_{i:04d}" for i in range(buyers)] + [f"merchant_{j:04d}" for j in range(merchants)]
        self.session: OpenMarket | None = None

    def _open(self, seed: int | None) -> OpenMarket:
        if self.session is not None:
            self.session.close()
        if seed is not None:
            self.config = MarketConfig(**{**self.config.to_dict(), "seed": seed})
        self.session = OpenMarket(self.config, world=self.world_path, phases=self.phase_list)
        self._scores = dict(self.session.scores)
        return self.session

    def _reward_change(self) -> dict[str, float]:
        assert self.session is not None
        new = self.session.scores
        delta = {a: new[a] - self._scores[a] for a in new}
        self._scores = dict(new)
        return delta

    def _infos(self, agents: list[str]) -> dict[str, dict[str, Any]]:
        s = self.session
        assert s is not None
        return {agent: views.info(s, agent) for agent in agents}

    def welfare_report(self) -> dict[str, Any] | None:
        """The host's report of the episode: welfare against both optima and every agent's surplus.

        None before ``reset``. Agents never receive it: each agent's info holds its own surplus only.
        """
        return None if self.session is None else views.host_report(self.session)

    def observation_space(self, agent: str) -> gymnasium.Space:
        """Observations are dicts (see :func:`acworld_env.open_market.views.observation`)."""
        return OBS_SPACE

    def action_space(self, agent: str) -> gymnasium.Space:
        """A VCP action (dict or JSON), a list of them, a ranking ``{"rank": [...]}``, or None."""
        return ACTION_SPACE

    def render(self) -> str | None:
        """A one-line summary of the market."""
        s = self.session
        if s is None:
            return None
        text = (f"market-v1 {s.config.buyers}x{s.config.merchants} seed {s.config.seed} phase {s.phase} "
                f"commits {len(s.market.world.commits)} trades {len(s.completed_trades())}")
        return text if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Store the episode (persistent World) and release the file."""
        if self.session is not None:
            self.session.close()


class OpenMarketAEC(_Base, AECEnv):
    """The AEC view: one turn per agent of the current phase."""

    def __init__(self, buyers: int = 5, merchants: int = 5, seed: int = 0, k: int = 2, max_capacity: int = 1,
                 world: str | Path | None = None, phases: tuple[str, ...] | list[str] = DEFAULT_PHASES,
                 render_mode: str | None = None) -> None:
        AECEnv.__init__(self)
        self._setup(buyers, merchants, seed, k, max_capacity, world, phases, render_mode)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode (on the same World when persistent)."""
        s = self._open(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, s.done)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = self._infos(self.agents)
        self.agent_selection = s.turns[0] if s.turns else self.agents[0]

    @property
    def market(self) -> OpenMarket:
        """The running episode's engine."""
        if self.session is None:
            raise RuntimeError("call reset() first")
        return self.session

    def observe(self, agent: str) -> dict[str, Any]:
        """``agent``'s observation."""
        return self.market.observe(agent)

    def step(self, action: Any) -> None:
        """Play the selected agent's turn."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.market
        self._cumulative_rewards[agent] = 0.0
        phase = s.phase
        s.act(agent, action)
        changed = s.phase != phase
        self.rewards = self._reward_change() if changed else dict.fromkeys(self.agents, 0.0)
        self._accumulate_rewards()
        if s.done:
            self.terminations = dict.fromkeys(self.agents, True)
            s.close()
        self.infos = self._infos(self.agents) if changed else self.infos
        self.agent_selection = s.turns[0] if s.turns else self.agents[0]


class OpenMarketParallel(_Base, ParallelEnv):
    """The parallel view: one phase per step."""

    def __init__(self, buyers: int = 5, merchants: int = 5, seed: int = 0, k: int = 2, max_capacity: int = 1,
                 world: str | Path | None = None, phases: tuple[str, ...] | list[str] = DEFAULT_PHASES,
                 render_mode: str | None = None) -> None:
        self._setup(buyers, merchants, seed, k, max_capacity, world, phases, render_mode)
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode; observations and infos of every agent."""
        s = self._open(seed)
        self.agents = list(self.possible_agents)
        return {a: s.observe(a) for a in self.agents}, self._infos(self.agents)

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Every agent of the current phase acts (in id order); the phase ends."""
        s = self.session
        if s is None or not self.agents:
            return {}, {}, {}, {}, {}
        for agent in list(s.turns):
            s.act(agent, actions.get(agent))
        rewards = self._reward_change()
        agents = list(self.agents)
        if s.done:
            s.close()
            self.agents = []
        obs = {a: s.observe(a) for a in agents}
        return (obs, {a: rewards[a] for a in agents}, dict.fromkeys(agents, s.done),
                dict.fromkeys(agents, False), self._infos(agents))

    @property
    def market(self) -> OpenMarket:
        """The running episode's engine."""
        if self.session is None:
            raise RuntimeError("call reset() first")
        return self.session


def raw_env(**kwargs: Any) -> OpenMarketAEC:
    """The AEC env without wrappers."""
    return OpenMarketAEC(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env (``make("market-v1", ...)``); ``parallel=True`` returns the parallel view instead."""
    if kwargs.pop("parallel", False):
        return parallel_env(**kwargs)  # type: ignore[return-value]
    return OpenMarketAEC(**kwargs)


def parallel_env(**kwargs: Any) -> OpenMarketParallel:
    """The parallel env."""
    return OpenMarketParallel(**kwargs)
