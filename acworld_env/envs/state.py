"""The global state for centralised critics: a fixed-size float vector of the whole episode.

``state()`` of the AEC and parallel environments is one ``float32`` vector in ``[-1, 1]`` of
length :data:`STATE_SIZE` (``state_space``). It reads the episode without changing it (no
message counts as delivered), so calling it never moves a trace digest.

Layout: :data:`GLOBAL_FIELDS` first, then one block of :data:`AGENT_FIELDS` per agent slot.
Slot ``i`` is ``possible_agents[i]``; the first :data:`STATE_AGENT_SLOTS` possible agents have
a slot (an agent that is not an actor of the current episode leaves its block zero).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

STATE_AGENT_SLOTS = 8
"""Agent blocks in the state (possible agents beyond this many are not represented)."""
GLOBAL_FIELDS = ("episode_started", "evaluated_progress", "score", "round", "trace_records")
AGENT_FIELDS = ("present", "evaluated", "buyer", "merchant", "live", "terminated", "truncated",
                "progress", "steps_left", "balance", "inbox", "no_result", "accepted", "rejected")
STATE_SIZE = len(GLOBAL_FIELDS) + STATE_AGENT_SLOTS * len(AGENT_FIELDS)


def state_space() -> spaces.Box:
    """``Box(-1, 1, (STATE_SIZE,), float32)``."""
    return spaces.Box(-1.0, 1.0, (STATE_SIZE,), np.float32)


def _log_scale(value: float, decades: float) -> float:
    """A signed log10 scale clipped to [-1, 1] (``decades`` powers of ten reach 1)."""
    return math.copysign(min(1.0, math.log10(1 + abs(value)) / decades), value)


def episode_state(episode: Any, possible_agents: Sequence[str], agents: Sequence[str],
                  terminations: dict[str, bool], truncations: dict[str, bool],
                  score: float, actors: Sequence[str]) -> np.ndarray:
    """The state vector of a live episode (all zeros when ``episode`` is None).

    ``actors``: the agents of the episode (alive or not); ``agents``: those still in play.
    """
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    if episode is None:
        return out
    task = episode.task
    max_steps = max(1, int(task.max_steps))
    records = episode.market.trace.records
    g = dict.fromkeys(GLOBAL_FIELDS, 0.0)
    g["episode_started"] = 1.0
    g["evaluated_progress"] = min(1.0, episode.steps.get(task.actor, 0) / max_steps)
    g["score"] = float(min(1.0, max(0.0, score)))
    g["round"] = _log_scale(int(episode.market.round), 6)
    g["trace_records"] = _log_scale(len(records), 4)
    out[: len(GLOBAL_FIELDS)] = [g[k] for k in GLOBAL_FIELDS]
    for slot, agent in enumerate(possible_agents[:STATE_AGENT_SLOTS]):
        if agent not in actors:
            continue
        raw = episode.observe(agent)
        role = task.initial_state["actors"][agent]["role"]
        step = int(raw.get("step", 0))
        last = raw.get("last_result")
        f = dict.fromkeys(AGENT_FIELDS, 0.0)
        f.update(present=1.0, evaluated=float(agent == task.actor), buyer=float(role == "buyer"),
                 merchant=float(role == "merchant"), live=float(agent in agents),
                 terminated=float(bool(terminations.get(agent, episode.finished(agent)))),
                 truncated=float(bool(truncations.get(agent, agent not in agents and not episode.finished(agent)))),
                 progress=min(1.0, step / max_steps), steps_left=max(0.0, 1.0 - step / max_steps),
                 balance=_log_scale(int(raw.get("balance", 0)), 12),
                 inbox=min(1.0, len(raw.get("inbox", [])) / 10))
        f["no_result" if last is None else ("accepted" if last.get("accepted") else "rejected")] = 1.0
        start = len(GLOBAL_FIELDS) + slot * len(AGENT_FIELDS)
        out[start: start + len(AGENT_FIELDS)] = [f[k] for k in AGENT_FIELDS]
    return out
