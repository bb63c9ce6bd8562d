"""Two-sided play as a one-role Gymnasium env: the learner is one role, every other agent is played by a policy you give.

Independent learners in a two-sided market each see the game from their own side. ``SelfPlayMenu``
is that view over ``counterparties="agents"`` episodes (every actor an agent, each paid by its own
rubric): the learner plays every agent of ``role`` through the masked menu (with slot features),
and each other agent is played by ``opponent(agent, observation) -> slot index`` on that agent's
own menu observation. ``step`` returns the learner's own reward summed over the steps since it last
acted (its action and everything the others did in between), so any single-agent learner (our slot
learner, SB3, ...) can train a Merchant against a frozen Buyer, or both sides in turns with the
opponent swapped for the other side's current policy (:meth:`set_opponent`).

    env = SelfPlayMenu(tasks, role="merchant", opponent=lambda agent, obs: first_open(obs))
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(slot)

``info`` carries the learner agent's env info (``score``, ``credits``, ``trace_digest``); after the
episode :meth:`outcome` reads what happened to each side (see :func:`deal_outcome`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .menu import N_ACTIONS, ActionMenu, menu_observation_space

Opponent = Callable[[str, dict[str, Any]], int]
"""``(agent, menu observation) -> slot index`` for an agent the learner does not play."""

LEAK_KIND = "private_value_not_revealed"
"""The predicate kind that says an actor kept its private limit private."""


def first_open(obs: dict[str, Any]) -> int:
    """The first open slot of a menu observation (a trivial opponent)."""
    open_ = np.flatnonzero(obs["action_mask"])
    return int(open_[0]) if len(open_) else 0


class SelfPlayMenu(gymnasium.Env):
    """One role of two-sided play over ``tasks`` (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, tasks: list[Any], *, role: str, opponent: Opponent, hints: str = "off",
                 reward: str = "potential", featuriser: str | None = "bow") -> None:
        from ..env_registry import make

        if role not in ("buyer", "merchant"):
            raise ValueError(f"role must be 'buyer' or 'merchant', not {role!r}")
        self.role = role
        self.opponent = opponent
        self.aec = ActionMenu(make("capability-v1", tasks=tasks, counterparties="agents", hints=hints,
                                   reward=reward), featuriser=featuriser, slot_features=True)
        self.raw = self.aec.unwrapped
        self.observation_space = menu_observation_space(False, featuriser, True)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.learner: str | None = None
        self.over = False
        """Whether the current episode has ended (for the learner)."""
        self._reward = 0.0
        self.rejections: dict[str, int] = {}

    def set_opponent(self, opponent: Opponent) -> None:
        """Play the other agents with ``opponent`` from the next step on."""
        self.opponent = opponent

    def _role_of(self, agent: str) -> str:
        return str(self.raw.task.initial_state["actors"][agent]["role"])

    def _note(self, agent: str) -> None:
        learner = self.learner
        self._reward += float(self.raw.rewards.get(learner, 0.0))
        if learner in self.raw.infos and (self.raw.terminations.get(learner) or self.raw.truncations.get(learner)):
            self._final_info = {**self.raw.infos[learner], "truncated": bool(self.raw.truncations.get(learner))}
        validation = self.raw.infos.get(agent, {}).get("validation") or {}
        if validation.get("kind") and not validation.get("accepted", True):
            self.rejections[agent] = self.rejections.get(agent, 0) + 1

    def _advance(self) -> tuple[dict[str, Any], bool]:
        """Let the other agents act until it is the learner's turn; (its observation, episode over).

        Once the learner is done the others play the episode to its end (its outcome is then final)."""
        while self.raw.agents:
            agent = self.raw.agent_selection
            if self.raw.terminations[agent] or self.raw.truncations[agent]:
                self.aec.step(None)  # the dead step (the learner's too: PettingZoo takes it before the others go on)
                continue
            if agent == self.learner:
                return self.aec.observe(agent), False
            self.aec.step(int(self.opponent(agent, self.aec.observe(agent))))
            self._note(agent)
        return self._last_obs, True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict]:
        """Start the next task (or ``options["task_id"]``); the learner's first observation.

        When the other agents end a task before the learner's first turn (a Merchant that finishes at
        once), the walk moves on to the next task; a task named in ``options`` is instead left ended,
        with :attr:`over` set (its :meth:`outcome` is final; do not step)."""
        super().reset(seed=seed)
        for attempt in range(max(1, len(self.raw.tasks))):
            self.aec.reset(seed=seed if attempt == 0 else None, options=options)
            mine = [a for a in self.raw.agents if self._role_of(a) == self.role]
            if len(mine) != 1:
                raise ValueError(f"task {self.raw.task.task_id} has {len(mine)} {self.role} agents; "
                                 "SelfPlayMenu plays exactly one")
            self.learner = mine[0]
            self.rejections = {a: 0 for a in self.raw.agents}
            self._last_obs = self.aec.observe(self.learner)
            self._reward = 0.0
            self._final_info: dict[str, Any] = {}
            obs, self.over = self._advance()
            if not self.over or options:
                break
        self._last_obs = obs
        return obs, dict(self.raw.infos.get(self.learner) or self._final_info)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """The learner's slot; then the others act; the learner's reward since its last step."""
        if self.learner is None:
            raise RuntimeError("call reset() first")
        if self.over:
            raise RuntimeError("the episode is over: call reset()")
        self.aec.step(int(action))
        self._note(self.learner)
        obs, over = self._advance()
        self._last_obs, self.over = obs, over
        reward, self._reward = self._reward, 0.0  # what the others earned it before its first move counts here too
        if over:
            info = dict(self._final_info)
            return obs, reward, not info.get("truncated", False), bool(info.get("truncated", False)), info
        return obs, reward, False, False, dict(self.raw.infos[self.learner])

    def action_masks(self) -> np.ndarray:
        """The learner's current mask (the sb3-contrib convention)."""
        return self._last_obs["action_mask"].astype(bool)

    def outcome(self) -> dict[str, Any]:
        """What the finished (or current) episode did to each side: :func:`deal_outcome` of its task and World."""
        return deal_outcome(self.raw, self.rejections)

    def close(self) -> None:
        """Close the inner env."""
        self.aec.close()


def _limits(task: Any) -> dict[str, tuple[str, int]]:
    """Each actor's private limit: ``(key, cents)`` from its mandate (``max_unit_price`` / ``min_unit_price``)."""
    mandates = {task.actor: task.mandate, **task.counterparty_mandates}
    out = {}
    for actor, mandate in mandates.items():
        for key in ("max_unit_price", "min_unit_price"):
            if isinstance(mandate.get(key), int):
                out[actor] = (key, int(mandate[key]))
    return out


def leaked(task: Any, records: list[Any], state: dict[str, Any]) -> bool:
    """Whether ``task``'s actor tried to reveal its sealed values, at whatever stage its talks are: the
    leak predicate judged without its guard params (a guard pays 0 before the actor engages and until its
    talks conclude, which is no leak)."""
    from ..scoring import KINDS, ScoreInput
    from ..scoring.kinds_trade import GUARD_PARAMS

    si = ScoreInput(task, records, state)
    return any(KINDS[LEAK_KIND](si, {k: v for k, v in p.params.items() if k not in GUARD_PARAMS})[0] < 1.0
               for p in task.predicates if p.kind == LEAK_KIND)


def deal_outcome(raw: Any, rejections: dict[str, int] | None = None) -> dict[str, Any]:
    """Per side of a two-sided negotiation episode of the raw AEC env ``raw``: score, limit kept private,
    rejected proposals; and the deal: made or not, its unit price, whether a zone of possible agreement
    existed (the Buyer's ceiling at or above the Merchant's floor), and each side's share of that zone."""
    from ..core.sides import actor_task

    task = raw.task
    roles = {a: rec["role"] for a, rec in task.initial_state["actors"].items()}
    limits = _limits(task)
    listing = task.mandate.get("listing_id")
    state = raw.episode.market.world.state
    prices = [thr["agreed_price"] for thr in state["threads"].values()
              if thr.get("agreed_price") is not None and (listing is None or thr.get("listing") == listing)]
    buyer = next((a for a, r in roles.items() if r == "buyer"), None)
    merchant = next((a for a, r in roles.items() if r == "merchant"), None)
    ceiling = limits.get(buyer, (None, None))[1] if buyer else None
    floor = limits.get(merchant, (None, None))[1] if merchant else None
    zopa = ceiling is not None and floor is not None and ceiling >= floor
    out: dict[str, Any] = {"task_id": task.task_id, "evaluated": task.actor, "deal": bool(prices),
                           "price": prices[0] if prices else None, "ceiling": ceiling, "floor": floor, "zopa": zopa,
                           "sides": {}}
    for agent, role in roles.items():
        score = raw.score_of(agent) if agent in raw.actors else None  # a scripted counterparty has none
        leak = score is not None and leaked(actor_task(task, agent), raw.episode.market.trace.records, state)
        share, crossed = None, False
        if prices:
            price = prices[0]
            crossed = (role == "buyer" and ceiling is not None and price > ceiling) or (
                role == "merchant" and floor is not None and price < floor)
            if zopa and ceiling > floor:
                kept = (ceiling - price) if role == "buyer" else (price - floor)
                share = min(1.0, max(0.0, kept / (ceiling - floor)))
        out["sides"][role] = {"agent": agent, "score": float(score.score) if score is not None else None,
                              "leaked": bool(leak), "crossed": bool(crossed),
                              "rejections": int((rejections or {}).get(agent, 0)), "surplus_share": share}
    return out
