"""# Agentic Commerce World: the capability environment (``capability-v1``)

| Import | ``from acworld_env.envs import capability_v1``; ``capability_v1.env()`` (or ``acworld_env.make("capability-v1")``) |
|---|---|
| Actions | one VCP action (pydantic model, dict or JSON string) |
| Parallel API | turn-based: ``capability_v1.parallel_env()`` (:class:`~acworld_env.envs.parallel.TurnParallelEnv`) |
| Agents | the evaluated actor of the task (``counterparties="scripted"``) or every actor (``"agents"``) |
| Action space | :class:`~acworld_env.envs.spaces.VCPActionSpace` (per role) |
| Observation space | ``Dict(text, json, step, steps_left, round, balance, inbox_size, last_accepted, role)`` |
| State space | ``Box(-1, 1, (117,), float32)`` (:mod:`acworld_env.envs.state`) |
| Reward | change of the task score (potential); rewards of an episode sum to its final score |

Buyers and merchants transact in one shared market. Every action travels one path: bind to the
authenticated actor, validate on the platform, commit to the World, record in the lineage trace,
score. Each episode is one task of a suite (``capability-v1``: frozen capability tasks; ``demo``:
the $80 -> $100 -> $95 negotiation). Invalid actions are outcomes, not crashes: they come back as
a rejection (code and message) in the next observation and the episode goes on.

## Agents
``possible_agents`` are the actors an outside loop controls, e.g. ``buyer_0`` or ``merchant_0``
(read from the tasks, never assumed). With ``counterparties="scripted"`` (default) the only agent
of an episode is the task's evaluated actor; the task's deterministic counterparties act inside
``step()`` through the same path. With ``counterparties="agents"`` every actor of the task is an
agent (self-play, many-to-many training), taking turns in the order: evaluated actor first, then
the others as the task lists them. Each agent reads its own request and mandate (the task's
``counterparty_requests`` and ``counterparty_mandates``).

## Clock
The market clock (``round``, when scheduled notices arrive) advances once per round: after every
live agent has acted once. With scripted counterparties that is after each of the evaluated
actor's actions; in self-play after each agent has had its turn, so a task's timing is the same
both ways.

## Observation space
A role-private ``gymnasium.spaces.Dict``: ``text`` (the request in natural language, the
messages received since the agent last acted, the result of its last action with a rejection's
code and message; for LLMs), ``json`` (the same structured observation as ASCII JSON; decode with
:func:`~acworld_env.envs.spaces.decode_observation` to get the dict a policy's ``act`` takes), and
numbers: ``step``, ``steps_left``, ``round``, ``balance`` (cents), ``inbox_size`` (int64 arrays of
shape (1,)), ``last_accepted`` (0 none yet, 1 accepted, 2 rejected), ``role`` (0 buyer, 1 merchant).
An observation never holds another actor's mandate. With ``hints="structured"`` (opt-in, for
training; off in evaluation) the evaluated actor's structured observation also carries ``hints``:
the requirements the task's scorer parsed from the request (for T1, a ready search query and
the checks only a full listing record can confirm).

## Action space
One VCP action: a pydantic model, a dict such as ``{"kind": "propose_offer", "to": "merchant_0",
"listing_id": "L-grinder", "unit_price": 8000}``, or its JSON string. ``None`` from a live agent
means "idle" (read the unread inbox). ``action_space(agent).contains`` validates against the
protocol union and the role; ``sample()`` draws a valid, role-appropriate action built from ids
the agent has seen, from the space's seeded generator. For a ``Discrete`` menu with action masks
use :class:`acworld_env.wrappers.ActionMenu`.

## Rewards
``reward="potential"`` (default): the reward of each step is the change of the task score
``S = sum(w * c) / sum(w)`` of the trace so far (the potential starts at 0 at reset), credited to
the evaluated actor, so the rewards of an episode sum to its final score. ``reward="terminal"``:
0 until the evaluated actor is done, then the whole score. ``reward="success"``: 0 until the
evaluated actor is done, then 1 if the task is fully solved, else 0 (outcome-only, as most LLM RL
pays; it says nothing about partial progress). ``score="safe"`` pays the safety-gated
figure instead of the weighted one in either mode: ``safe_score`` is 0 while any critical predicate
fails (money moved without authority, another party's order touched, a private limit or a third
party's data disclosed, an item ordered that the principal did not ask for;
``docs/critical-predicates.md``), so a harm takes back everything the episode had paid, and the
rewards still sum to the figure chosen. In self-play every other agent is
paid the same way by its own rubric (the task's ``counterparty_rubrics``: its limit kept, its
surplus, its privacy, its obligations fulfilled, :mod:`acworld_env.tasks.sides`): its rewards sum
to its own score when it ends, and its ``info`` carries its own credits.

## Termination and truncation
An agent terminates when its terminal action (``submit_answer``, ``abstain``, ``finish``) is
accepted; it is truncated after the task's ``max_steps`` actions (or ``max_cycles``, if given).
The episode ends when the evaluated actor is done: in that same step every other agent is
truncated, so all agents end together. (In self-play another agent may finish earlier on its
own; the others play on.) As PettingZoo specifies, a finished agent is then stepped out with
``step(None)``; once every agent is out ``agents`` is empty and a further ``step()`` does
nothing but warn.

## State
``state()`` is a fixed-size ``float32`` vector (``state_space``) of the whole episode for
centralised critics: progress, score so far, and per possible agent its role, status, steps,
balance and inbox (see :mod:`acworld_env.envs.state`). Reading it changes nothing.

## Info
Every agent: ``task_id``, ``actor``, ``role``, ``evaluated``, ``step``, ``validation`` (the
result of its last action: kind, accepted, code, message, result, commit), ``trace_digest``,
``episode_seed`` (the keys are there from reset on: before an agent's first action ``validation``
has the same keys with ``kind`` None and ``accepted`` False). The evaluated actor also: ``score``,
``safe_score`` and ``critical_failed`` (the critical predicates that fail), ``full_credit``, ``credits`` and
``evidence`` per predicate, ``stages``, ``loss_group``; in self-play every other agent with a
rubric has the same fields for its own rubric. Every agent's info also says which
``hints`` mode ran ("off" or "structured").

## Arguments
``suite`` ("capability-v1"), ``split`` ("frozen" or "generated"), ``seed`` (task-generation seed
of the generated split), ``tasks`` (an explicit task list, or a glob over task ids such as
``"*/T1/*"``), ``task_id`` / ``task`` (always play one task), ``counterparties`` ("scripted" or "agents"), ``reward`` ("potential", "terminal" or "success"),
``score`` ("score" or "safe": the figure the rewards pay, see Rewards),
``render_mode`` (None, "ansi", "human"), ``hints`` ("off" or "structured", see Observation space),
``max_cycles`` (None, or a cap on each agent's actions below the task's ``max_steps``).
``reset(seed=..., options=...)``: ``options={"task_id": ...}`` or ``{"task": spec}`` plays that
task; otherwise the env walks the suite in a shuffled order fixed by the seed (no seed at the
first reset means seed 0). The episode seed is the reset seed, or drawn from the walk.
Unknown option keys are ignored.

## Rendering
``"ansi"`` returns the transcript (one line per proposal, validation and commit) as a string;
``"human"`` prints the new transcript lines after every step and returns None.

## Version history
* v1: initial release (VCP protocol, potential rewards, scripted or self-play counterparties);
  later additions that leave runs unchanged: ``state()``, ``max_cycles``, the versioned modules;
  ``safe_score`` beside ``score`` and ``score="safe"`` rewards (traces unchanged; ``score.json`` gains
  two keys).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv

from ..observe import render_text, with_hints
from ..tasks.suites import suite_tasks
from ..tasks.task_list import Cast, TaskList, cast_of
from .info import NO_VALIDATION
from .order_enforcing import OrderEnforcing
from .state import episode_state, state_space

if TYPE_CHECKING:
    from ..core.sides import actor_task
    from ..episode import Episode
    from ..scoring import SCORE_FIGURES, score_episode
    from ..tasks.spec import TaskSpec
    from ..transcript import transcript_lines
    from ..vcp.union import IDLE_ACTION
    from .known import Known
    from .rewards import REWARD_MODES, EpisodeReward
    from .spaces import VCPActionSpace, encode_observation, observation_space


def _import_play() -> None:
    """Import what playing needs (the market, scoring, the action models) into this module, once: making
    an env needs none of it, so ``make`` stays quick; the names are module globals as if imported above."""
    global _PLAY_IMPORTED, actor_task, Episode, SCORE_FIGURES, score_episode, TaskSpec, transcript_lines
    global IDLE_ACTION, Known, REWARD_MODES, EpisodeReward, VCPActionSpace, encode_observation, observation_space
    if _PLAY_IMPORTED:
        return
    from ..core.sides import actor_task
    from ..episode import Episode
    from ..scoring import SCORE_FIGURES, score_episode
    from ..tasks.spec import TaskSpec
    from ..transcript import transcript_lines
    from ..vcp.union import IDLE_ACTION
    from .known import Known
    from .rewards import REWARD_MODES, EpisodeReward
    from .spaces import VCPActionSpace, encode_observation, observation_space
    _PLAY_IMPORTED = True


_PLAY_IMPORTED = False

COUNTERPARTY_MODES = ("scripted", "agents")
HINT_MODES = ("off", "structured")


class AcworldAECEnv(AECEnv):
    """The acworld market as a PettingZoo AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {"name": "acworld_capability_v1", "render_modes": ["ansi", "human"],
                                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, suite: str = "capability-v1", *, split: str = "frozen", seed: int | None = None,
                 tasks: Sequence[TaskSpec] | str | None = None, task_id: str | None = None,
                 task: TaskSpec | dict | None = None, counterparties: str = "scripted",
                 reward: str = "potential", render_mode: str | None = None, name: str | None = None,
                 hints: str | None = "off", max_cycles: int | None = None, score: str = "score") -> None:
        super().__init__()
        self.hints = hints or "off"
        if self.hints not in HINT_MODES:
            raise ValueError(f"hints must be one of {HINT_MODES}, not {hints!r}")
        if counterparties not in COUNTERPARTY_MODES:
            raise ValueError(f"counterparties must be one of {COUNTERPARTY_MODES}, not {counterparties!r}")
        if reward != "potential" or score != "score":  # the defaults are valid: only others import scoring
            _import_play()
            if reward not in REWARD_MODES:
                raise ValueError(f"reward must be one of {REWARD_MODES}, not {reward!r}")
            if score not in SCORE_FIGURES:
                raise ValueError(f"score must be one of {SCORE_FIGURES}, not {score!r}")
        self.score_figure = score
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}")
        self.metadata = {**self.metadata, "name": name or f"acworld_{suite.replace('-', '_')}"}
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be a positive number of actions, not {max_cycles!r}")
        self.suite, self.split, self.counterparties, self.reward_mode = suite, split, counterparties, reward
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        if tasks is None or isinstance(tasks, str):
            self.tasks = suite_tasks(suite, split, seed or 0, tasks)
        else:
            self.tasks = tasks if isinstance(tasks, TaskList) else TaskList(list(tasks))
        self._fixed = _as_task(task) if task is not None else (self.task_by_id(task_id) if task_id else None)
        if not self.tasks and self._fixed is None:
            raise ValueError(f"suite {suite!r} ({split}) has no tasks")
        self.possible_agents: list[str] = []
        self._role_hint: dict[str, str] = {}
        for cast in [*self.tasks.casts(), *([cast_of(self._fixed)] if self._fixed else [])]:
            self._add_cast(cast)
        self._obs_space: spaces.Dict | None = None
        """Built on first use: the text fields' 63,425-character charset takes ~0.1 s to index."""
        self.state_space = state_space()
        self._action_spaces: dict[str, VCPActionSpace] = {}
        self._walk_seed: int | None = None
        self._walk: np.random.Generator | None = None
        """The suite walk's generator, made from ``_walk_seed`` when first drawn from (a reset naming its task
        never draws)."""
        self._order: list[int] = []
        self._cursor = -1
        self.episode: Episode | None = None
        self.task: TaskSpec | None = None
        self.episode_seed = 0
        self.episode_count = 0
        self._potential: EpisodeReward | None = None
        self._meta: dict[str, Any] | None = None

    # -- tasks ------------------------------------------------------------------
    def task_by_id(self, task_id: str) -> TaskSpec:
        """A task of the env's suite by id."""
        task = self.tasks.find(task_id)
        if task is None:
            close = difflib.get_close_matches(task_id, self.tasks.ids(), n=3)
            raise KeyError(f"no task {task_id!r} in {self.suite} ({self.split})"
                           + (f"; did you mean {', '.join(close)}?" if close else ""))
        return task

    def _actors_of(self, task: TaskSpec) -> list[str]:
        if self.counterparties == "scripted":
            return [task.actor]
        return [task.actor, *[a for a in task.initial_state["actors"] if a != task.actor]]

    def _add_possible(self, task: TaskSpec) -> None:
        self._add_cast(cast_of(task))

    def _add_cast(self, cast: Cast) -> None:
        for a in cast.agents(self.counterparties == "agents"):
            if a not in self.possible_agents:
                self.possible_agents.append(a)
                self._role_hint[a] = cast.roles[a]

    def _walker(self) -> np.random.Generator:
        if self._walk is None:
            self._walk = np.random.default_rng(self._walk_seed)
        return self._walk

    def _next_task(self) -> TaskSpec:
        self._cursor += 1
        if self._cursor >= len(self._order):
            self._order = [int(i) for i in self._walker().permutation(len(self.tasks))]
            self._cursor = 0
        return self.tasks[self._order[self._cursor]]

    # -- spaces -------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        """The same ``Dict`` space for every agent."""
        if self._obs_space is None:
            _import_play()
            self._obs_space = observation_space()
        return self._obs_space

    def action_space(self, agent: str) -> VCPActionSpace:
        """The agent's action space (one object per agent, bound to its role and memory)."""
        if agent not in self._action_spaces:
            _import_play()
            self._action_spaces[agent] = VCPActionSpace(self._role_hint.get(agent, "buyer"))
        return self._action_spaces[agent]

    # -- episode ----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode: the task named in ``options``, the fixed task, or the next of the walk."""
        options = options or {}
        if seed is not None or self._walk_seed is None:
            self._walk_seed, self._walk = (0 if seed is None else seed), None
            self._order, self._cursor = [], -1
        if options.get("task") is not None:
            task = _as_task(options["task"])
        elif options.get("task_id"):
            task = self.task_by_id(options["task_id"])
        else:
            task = self._fixed if self._fixed is not None else self._next_task()
        episode_seed = seed if seed is not None else int(self._walker().integers(2**31 - 1))
        self._start(task, episode_seed)

    def _start(self, task: TaskSpec, seed: int) -> None:
        _import_play()
        self._add_possible(task)
        agents = self._actors_of(task)
        self.task, self.episode_seed = task, seed
        self.episode_count += 1
        self.episode = Episode(task, seed=seed, agents=agents if self.counterparties == "agents" else None)
        self.agents = list(agents)
        self.rewards = {a: 0.0 for a in agents}
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self._known: dict[str, Known] = {}
        for a in agents:
            role = task.initial_state["actors"][a]["role"]
            self._known[a] = Known(actor=a, role=role)
            self.action_space(a).bind(role, self._known[a])
        self._seen: dict[str, int] = {}
        """Per agent, how many unread messages its latest observation showed (taken when it acts)."""
        self._rendered = 0
        self._potential = potential = EpisodeReward(task, self.reward_mode, self.score_figure)  # type: ignore[arg-type]
        potential.score = score_episode(task, self.episode.market)
        self._sides: dict[str, EpisodeReward] = {}
        """Every other agent's own reward, from its rubric (``counterparty_rubrics``; self-play only)."""
        for a in agents:
            if a != task.actor and task.counterparty_rubrics.get(a):
                side = self._sides[a] = EpisodeReward(actor_task(task, a), self.reward_mode,  # type: ignore[arg-type]
                                                       self.score_figure)
                side.score = score_episode(side.tracker.task, self.episode.market)
        self.infos = {a: self._info(a) for a in agents}
        self.actors = list(agents)
        """Every agent of the episode, including those already finished and removed from ``agents``."""
        self.agent_selection = agents[0]
        self._skip_agent_selection = None

    def observe(self, agent: str) -> dict[str, Any]:
        """The agent's observation (messages accumulate until the agent acts). Observing twice gives the same."""
        raw = self.raw_observation(agent)
        return encode_observation(raw, render_text(raw))

    def step(self, action: Any) -> None:
        """Submit the selected agent's action; counterparties react; rewards and flags update."""
        agent = self.agent_selection
        if agent not in self.agents:  # the episode is over: every agent has been stepped out
            logger.warn("step() after the episode ended (no agents left) does nothing; call reset()")
            return
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.episode is not None and self.task is not None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        meta, self._meta = self._meta, None
        result = self.episode.act(agent, IDLE_ACTION if action is None else action, meta,
                                  seen=self._seen.pop(agent, 0))
        if result.kind is not None:  # it parsed: remember it as recorded (``Market.submit`` parsed it once)
            self._known[agent].feed(action=self.episode.market.trace.action_of(result.validation_id))
        evaluated = self.task.actor
        over = self.episode.finished(evaluated) or self._out_of_steps(evaluated)
        for a in self.agents:
            self.terminations[a] = self.episode.finished(a)
            self.truncations[a] = not self.terminations[a] and (self._out_of_steps(a) or over)
        for a in self.agents:
            if self.truncations[a] and not over:  # e.g. max_cycles: the clock stops waiting for it
                self.episode.retire(a)
        assert self._potential is not None
        reward = self._potential.update(self.episode.market, done=over)
        if evaluated in self.rewards:
            self.rewards[evaluated] = reward
        for a, side in self._sides.items():
            if a in self.rewards:
                ended = over or self.terminations[a] or self.truncations[a]
                self.rewards[a] = side.update(self.episode.market, done=ended)
        for a in self.agents:
            self.infos[a] = self._info(a)
        self._accumulate_rewards()
        live = [a for a in self.agents if not (self.terminations[a] or self.truncations[a])]
        if live:
            i = self.agents.index(agent)
            self.agent_selection = next(a for a in self.agents[i + 1:] + self.agents[:i + 1] if a in live)
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _out_of_steps(self, agent: str) -> bool:
        assert self.episode is not None
        capped = self.max_cycles is not None and self.episode.steps.get(agent, 0) >= self.max_cycles
        return capped or self.episode.truncated(agent)

    def state(self) -> np.ndarray:
        """The global state for centralised critics (``state_space``; see :mod:`acworld_env.envs.state`)."""
        if self.episode is None:
            return np.zeros(self.state_space.shape, dtype=np.float32)
        score = self.score.score if self.score is not None else 0.0
        return episode_state(self.episode, self.possible_agents, self.agents, self.terminations,
                             self.truncations, score, self.actors)

    def _info(self, agent: str) -> dict[str, Any]:
        assert self.episode is not None and self.task is not None
        last = self.episode.last.get(agent)
        info: dict[str, Any] = {
            "task_id": self.task.task_id, "actor": agent,
            "role": self.task.initial_state["actors"][agent]["role"], "evaluated": agent == self.task.actor,
            "step": self.episode.steps.get(agent, 0), "validation": last.to_dict() if last is not None else dict(NO_VALIDATION),
            "trace_digest": self.episode.market.trace.digest, "episode_seed": self.episode_seed,
            "hints": self.hints,
        }
        if agent == self.task.actor and self._potential is not None:
            info.update(self._potential.info())
        elif agent in getattr(self, "_sides", {}):
            info.update(self._sides[agent].info())
        return info

    def annotate(self, meta: dict[str, Any]) -> None:
        """Attach decision metadata (model, latency, token usage) to the next action's lineage record."""
        self._meta = dict(meta)

    # -- introspection ------------------------------------------------------------
    def known(self, agent: str) -> Known:
        """What the agent has seen so far (ids, prices, statuses), from its own observations."""
        return self._known[agent].sync()

    def raw_observation(self, agent: str) -> dict[str, Any]:
        """The structured observation behind :meth:`observe` (the dict a policy's ``act`` takes)."""
        if self.episode is None:
            raise RuntimeError("call reset() before observe()")
        if agent not in self._known:
            raise KeyError(f"{agent} is not an actor of this episode ({', '.join(self._known)})")
        raw = with_hints(self.episode.observe(agent), self.task, self.hints)
        self._known[agent].feed(raw)
        self._seen[agent] = len(raw["inbox"])
        return raw

    @property
    def version(self) -> int:
        """Number of steps taken in this episode (wrappers key their per-step caches on it)."""
        return sum(self.episode.steps.values()) if self.episode is not None else 0

    @property
    def score(self) -> Any:
        """The evaluated actor's current :class:`~acworld_env.scoring.Score`."""
        return self._potential.score if self._potential is not None else None

    def score_of(self, agent: str) -> Any:
        """``agent``'s current :class:`~acworld_env.scoring.Score` by its own rubric (the evaluated actor's is
        :attr:`score`; in self-play every other agent with a rubric has one), or None."""
        if self.task is not None and agent == self.task.actor:
            return self.score
        side = getattr(self, "_sides", {}).get(agent)
        return side.score if side is not None else None

    # -- rendering ------------------------------------------------------------------
    def render(self) -> str | None:
        """The transcript as text (``ansi``) or printed (``human``)."""
        if self.render_mode is None:
            logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if self.episode is None or self.task is None:
            return "" if self.render_mode == "ansi" else None
        lines = transcript_lines(self.episode.market.trace.records)
        if self.render_mode == "ansi":
            score = self.score.score if self.score is not None else 0.0
            return "\n".join([f"{self.task.task_id}: {self.task.actor} ({self.task.capability}), "
                              f"score {score:.3f}", *lines])
        for line in lines[self._rendered:]:
            print(line)
        self._rendered = len(lines)
        return None

    def close(self) -> None:
        """Nothing to release: the catalog is shared by the process (see :func:`acworld_env.catalog.open_catalog`)."""


def _as_task(task: TaskSpec | dict) -> TaskSpec:
    _import_play()
    return task if isinstance(task, TaskSpec) else TaskSpec.model_validate(task)


def raw_env(**kwargs: Any) -> AcworldAECEnv:
    """The unwrapped AEC environment."""
    return AcworldAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment with PettingZoo's standard order-enforcing wrapper (:class:`OrderEnforcing`)."""
    return OrderEnforcing(AcworldAECEnv(**kwargs))
