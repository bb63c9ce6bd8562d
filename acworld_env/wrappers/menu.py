"""A discrete action menu with action masks, for standard RL algorithms.

The menu is the fixed slot table of :mod:`acworld_env.envs.candidates` (search variants,
``get_listing`` of seen listings, offers at a few price levels of seen prices, accept, reject
and counter on seen threads, pay seen orders with their total, classify seen events with each
verdict, answers naming each seen listing, abstain, finish, ...). Each step the slots are filled
from what the agent has seen; the mask marks the filled ones.

Observation: ``Dict(observation=Box(0, 1, (F,), float32), action_mask=Box(0, 1, (N,), int8))``
(plus ``text`` when ``text=True``, and ``slot_features=Box(0, 1, (N, S), float32)`` when
``slot_features=True``: one row of :data:`~acworld_env.wrappers.slot_features.SLOT_FEATURES` facts per
slot, zeros where the slot is unfilled, see :mod:`acworld_env.wrappers.slot_features`), the PettingZoo /
RLlib masking convention. ``F`` is
:data:`N_FEATURES` plus what the ``featuriser`` appends (:mod:`acworld_env.wrappers.featurise`:
``None``, the default, appends nothing; ``"bow"`` appends hashed words of the request and the latest
result and, per seen listing slot, how well that listing matches the request). Action:
``Discrete(N)``. Choosing a masked slot submits the idle action (read the inbox); an index outside
``Discrete(N)`` (or not an integer) raises :class:`InvalidMenuAction`. Once an agent has ended,
any action stepped for it is PettingZoo's dead step (``None``), and stepping after the episode
ended does nothing, so a fixed-size batch of actions never raises at the end.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from ..core.errors import AcworldError
from ..envs.candidates import LABELS, N_ORDERS, N_THREADS, SLOTS, menu_actions
from ..envs.known import KNOWN_KINDS, Known
from ..envs.spaces import observation_space as _inner_space
from ..vcp import TOOLS
from ..vcp.union import IDLE_ACTION
from .featurise import Featuriser, check_featuriser, extra_features
from .slot_features import N_SLOT_FEATURES, SlotFeaturiser

KINDS = tuple(sorted(TOOLS))
_TURNS = ("mine", "theirs", "agreed", "closed")
N_ACTIONS = len(SLOTS)
N_FEATURES = 2 + 2 + 3 + 1 + 1 + len(KNOWN_KINDS) + N_THREADS * len(_TURNS) + N_ORDERS * 3 + len(KINDS)


class InvalidMenuAction(AcworldError, ValueError):
    """An action that is not an index of the menu's ``Discrete(N)`` space."""


def menu_index(index: Any) -> int:
    """``index`` as a menu slot, or :class:`InvalidMenuAction` when it is outside ``Discrete(N)``."""
    value = index
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise InvalidMenuAction(f"menu actions are integers in Discrete({N_ACTIONS}), not {index!r}")
    if not 0 <= int(value) < N_ACTIONS:
        raise InvalidMenuAction(f"menu action {int(value)} is outside Discrete({N_ACTIONS}) "
                                f"(valid slots: 0..{N_ACTIONS - 1})")
    return int(value)


def features(raw: dict[str, Any], known: Known) -> np.ndarray:
    """A fixed-length vector in [0, 1] summarising the agent's situation."""
    out = np.zeros(N_FEATURES, dtype=np.float32)
    out[0 if raw.get("role") == "buyer" else 1] = 1.0
    step, max_steps = raw.get("step", 0), max(1, raw.get("max_steps", 1))
    out[2], out[3] = min(1.0, step / max_steps), max(0.0, 1.0 - step / max_steps)
    last = raw.get("last_result")
    out[4 + (0 if last is None else (1 if last.get("accepted") else 2))] = 1.0
    out[7] = min(1.0, len(raw.get("inbox", [])) / 10)
    out[8] = min(1.0, math.log10(1 + max(0, int(raw.get("balance", 0)))) / 12)
    i = 9
    for table in KNOWN_KINDS:
        out[i] = min(1.0, len(known[table]) / 4)
        i += 1
    threads = list(known["threads"].values())
    for k in range(N_THREADS):
        turn = threads[k].get("turn") if k < len(threads) else None
        if turn in _TURNS:
            out[i + _TURNS.index(turn)] = 1.0
        i += len(_TURNS)
    orders = list(known["orders"].values())
    for k in range(N_ORDERS):
        if k < len(orders):
            o, status = orders[k], orders[k].get("status")
            out[i] = float(o.get("total") is not None and not o.get("payment") and status in {None, "placed"})
            out[i + 1] = float(bool(o.get("payment")) or status in {"paid", "allocated"})
            out[i + 2] = float(bool(o.get("shipment")) or status in {"shipped", "delivered"})
        i += 3
    if known.last_kind in KINDS:
        out[i + KINDS.index(known.last_kind)] = 1.0
    return out


def n_features(featuriser: str | None = None) -> int:
    """The length of the ``observation`` vector with ``featuriser``."""
    return N_FEATURES + extra_features(featuriser)


def menu_observation_space(text: bool = False, featuriser: str | None = None,
                           slot_features: bool = False) -> spaces.Dict:
    """The observation space of the menu wrappers."""
    fields: dict[str, spaces.Space] = {
        "observation": spaces.Box(0.0, 1.0, (n_features(featuriser),), np.float32),
        "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
    }
    if slot_features:
        fields["slot_features"] = spaces.Box(0.0, 1.0, (N_ACTIONS, N_SLOT_FEATURES), np.float32)
    if text:
        fields["text"] = _inner_space()["text"]
    return spaces.Dict(fields)


class _Menus:
    """Per-agent menus of one raw acworld env, cached per env version."""

    def __init__(self, text: bool, featuriser: str | None = None, slot_features: bool = False) -> None:
        self.text = text
        self.featuriser = check_featuriser(featuriser)
        self.slot_features = bool(slot_features)
        self.cache: dict[str, tuple[int, int, list[dict[str, Any] | None]]] = {}
        self.featurisers: dict[str, tuple[int, Featuriser]] = {}
        self.slotters: dict[str, tuple[int, SlotFeaturiser]] = {}

    def slot_rows(self, raw_env: Any, agent: str, raw: dict[str, Any]) -> np.ndarray:
        """The slot features of ``agent``'s menu now (its memory kept per agent and episode)."""
        hit = self.slotters.get(agent)
        if hit is None or hit[0] != raw_env.episode_count:
            hit = self.slotters[agent] = (raw_env.episode_count, SlotFeaturiser())
        return hit[1](raw, raw_env.known(agent), self.actions(raw_env, agent))

    def vector(self, raw_env: Any, agent: str, raw: dict[str, Any]) -> np.ndarray:
        """The base features, then the featuriser's (its memory kept per agent and episode)."""
        base = features(raw, raw_env.known(agent))
        if self.featuriser is None:
            return base
        hit = self.featurisers.get(agent)
        if hit is None or hit[0] != raw_env.episode_count:
            hit = self.featurisers[agent] = (raw_env.episode_count, Featuriser(self.featuriser))
        return np.concatenate([base, hit[1](raw, raw_env.known(agent))])

    def actions(self, raw_env: Any, agent: str) -> list[dict[str, Any] | None]:
        key = (raw_env.episode_count, raw_env.version)
        hit = self.cache.get(agent)
        if hit is None or hit[:2] != key:
            raw_env.raw_observation(agent)  # what the agent sees now (no encoding: the menu reads ``known``)
            hit = (*key, menu_actions(raw_env.known(agent)))
            self.cache[agent] = hit
        return hit[2]

    def observation(self, raw_env: Any, agent: str) -> dict[str, Any]:
        raw = raw_env.raw_observation(agent)
        actions = self.actions(raw_env, agent)
        obs = {"observation": self.vector(raw_env, agent, raw),
               "action_mask": np.array([a is not None for a in actions], dtype=np.int8)}
        if self.slot_features:
            obs["slot_features"] = self.slot_rows(raw_env, agent, raw)
        if self.text:
            obs["text"] = raw_env.observe(agent)["text"]
        return obs

    def action(self, raw_env: Any, agent: str, index: Any) -> dict[str, Any]:
        chosen = self.actions(raw_env, agent)[menu_index(index)]
        return chosen if chosen is not None else dict(IDLE_ACTION)


class ActionMenu(BaseWrapper):
    """PettingZoo AEC wrapper: ``Discrete`` actions over the menu, masks in the observation."""

    def __init__(self, env: Any, text: bool = False, featuriser: str | None = None,
                 slot_features: bool = False) -> None:
        super().__init__(env)
        self._menus = _Menus(text, featuriser, slot_features)
        self._obs_space = menu_observation_space(text, featuriser, slot_features)
        self._act_spaces: dict[str, spaces.Discrete] = {}

    def observation_space(self, agent: str) -> spaces.Dict:
        """Features and mask (and text)."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """``Discrete(N)`` over :data:`LABELS`."""
        if agent not in self._act_spaces:
            self._act_spaces[agent] = spaces.Discrete(N_ACTIONS)
        return self._act_spaces[agent]

    def observe(self, agent: str) -> dict[str, Any]:
        """The menu observation of ``agent``."""
        return self._menus.observation(self.env.unwrapped, agent)

    def step(self, action: Any) -> None:
        """Submit the chosen slot's action; for a finished agent, the dead step whatever the action."""
        agent = self.env.agent_selection
        if agent not in self.env.agents or self.env.terminations[agent] or self.env.truncations[agent]:
            self.env.step(None)  # the dead step, or a no-op once the episode is over
            return
        self.env.step(None if action is None else self._menus.action(self.env.unwrapped, agent, action))

    def describe(self, agent: str) -> list[tuple[int, str, dict[str, Any]]]:
        """The available slots of ``agent`` now: (index, label, action)."""
        actions = self._menus.actions(self.env.unwrapped, agent)
        return [(i, LABELS[i], a) for i, a in enumerate(actions) if a is not None]


class GymActionMenu(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """Gymnasium wrapper of :class:`~acworld_env.envs.AcworldGymEnv` with the same menu.

    ``action_masks()`` returns the current mask (the sb3-contrib ``MaskablePPO`` convention), kept
    from the latest observation until the env moves on (no second menu per step).
    """

    def __init__(self, env: gymnasium.Env, text: bool = False, featuriser: str | None = None,
                 slot_features: bool = False) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, text=text, featuriser=featuriser,
                                                       slot_features=slot_features)
        gymnasium.Wrapper.__init__(self, env)
        self._menus = _Menus(text, featuriser, slot_features)
        self.featuriser = featuriser
        self.slot_features = bool(slot_features)
        self.observation_space = menu_observation_space(text, featuriser, slot_features)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._mask_key: tuple[int, int] | None = None
        self._mask = np.zeros(N_ACTIONS, dtype=bool)

    def _obs(self) -> dict[str, Any]:
        raw_env = self.env.unwrapped.aec
        obs = self._menus.observation(raw_env, self.env.unwrapped.actor)
        self._mask_key, self._mask = (raw_env.episode_count, raw_env.version), obs["action_mask"].astype(bool)
        return obs

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset and return the menu observation."""
        _, info = self.env.reset(**kwargs)
        return self._obs(), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Submit the chosen slot's action."""
        raw_env = self.env.unwrapped.aec
        chosen = self._menus.action(raw_env, self.env.unwrapped.actor, action)
        _, reward, terminated, truncated, info = self.env.step(chosen)
        return self._obs(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of available slots."""
        raw_env = self.env.unwrapped.aec
        if self._mask_key != (raw_env.episode_count, raw_env.version):
            self._obs()
        return self._mask.copy()
