"""Replaying a reference through the action menu: the slot that expresses a wanted action, and the
read-only lookups that make one appear where none does yet.

:func:`slot_for` compares actions as parsed VCP actions (key order and defaults do not matter); failing
an exact match it takes, of the slots equal on everything but the wording of their free-text fields,
the one sharing the most words and figures with the wanted wording. :func:`lookups` finds the shortest
sequence of read-only slots (at most :data:`LOOKUP_DEPTH`) after which a slot for the wanted action
exists, by replaying the episode so far with each candidate read (:func:`replay`); candidates come in a
fixed order: reads naming an id of the wanted action, then reads of records the actor knows to be
linked to those ids, then the rest, each group in menu order; a read already taken is not repeated,
and a first read that teaches the actor nothing new is not extended. At most :data:`MAX_SIMULATIONS`
replays are tried per wanted action. Used by :mod:`acworld_env.wrappers.menu_coverage`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..envs.candidates import menu_actions
from ..envs.known import Known
from ..vcp.union import IDLE_ACTION, QUERY_KINDS, parse_action


def _plain(action: Any) -> dict[str, Any] | None:
    parsed = parse_action(action)
    return parsed.model_dump(mode="json", exclude_none=True) if hasattr(parsed, "model_dump") else None


WORDS = ("text", "note", "summary", "reason", "rationale")
"""Free-text fields: a slot whose other fields match may word them its own way (the score decides)."""


def _structure(action: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k not in WORDS}


def _words_of(action: dict[str, Any]) -> set[str]:
    """The lower-case words and figures of an action's free-text fields."""
    return set(re.findall(r"[\w.]+", " ".join(str(action.get(f, "")) for f in WORDS).lower()))


def slot_for(actions: list[dict[str, Any] | None], wanted: dict[str, Any]) -> dict[str, Any] | None:
    """The slot action equal to ``wanted``, else, of those equal on everything but free-text wording, the one
    whose wording shares the most words and figures with the wanted one's (the first in menu order on ties)."""
    target = _plain(wanted)
    if target is None:
        return None
    plain = [(a, _plain(a)) for a in actions if a is not None]
    exact = next((a for a, p in plain if p == target), None)
    if exact is not None:
        return exact
    near = [(a, p) for a, p in plain if p is not None and _structure(p) == _structure(target)]
    if not near:
        return None
    said = _words_of(target)
    return max(enumerate(near), key=lambda ip: (len(_words_of(ip[1][1]) & said), -ip[0]))[1][0]


def as_dict(action: Any) -> dict[str, Any]:
    if hasattr(action, "model_dump"):
        return action.model_dump(mode="json", exclude_none=True)
    if isinstance(action, str):
        return json.loads(action)
    return dict(action)


ID = re.compile(r"^(?:L-[A-Za-z0-9_-]+|m\d{3}-p\d{5}-v\d{3}|[a-z]{3}-\d{3,}|(?:buyer|merchant)_\d+)$")
"""What an id looks like: a listing, a record (``ord-0001``) or an actor."""


LOOKUP_DEPTH = 2
"""Most read-only slots the replay inserts before one reference action."""
MAX_SIMULATIONS = 400
"""Most replays tried while looking for the reads that make one reference action's slot appear."""
_NOT_LOOKUPS = frozenset({IDLE_ACTION["kind"]})
"""Read-only kinds the replay never inserts (reading the inbox is what an idle turn does anyway)."""


def new_env(task: Any, hints: str) -> Any:
    from ..envs.aec import AcworldAECEnv

    env = AcworldAECEnv(task=task, hints=hints)
    env.reset(seed=0)
    return env


def replay(task: Any, hints: str, history: list[Any]) -> tuple[Any, str | None]:
    """A fresh episode driven by ``history`` (the actor's actions so far, None for idle turns), as
    :func:`~acworld_env.wrappers.menu_coverage.task_coverage` drives it: the env and the agent whose turn comes next (None once it ended)."""
    env, taken = new_env(task, hints), 0
    for agent in env.agent_iter(max_iter=10_000):
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.raw_observation(agent)
        if taken == len(history):
            return env, agent
        env.step(history[taken])
        taken += 1
    return env, None


def _ids_in(node: Any, out: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key not in (*WORDS, "answer", "claims", "idempotency_key"):
                _ids_in(value, out)
    elif isinstance(node, list):
        for value in node:
            _ids_in(value, out)
    elif isinstance(node, str) and ID.match(node):
        out.add(node)
    return out


def _linked(known: Known, ids: set[str]) -> set[str]:
    """Ids of records the actor knows to be linked to ``ids`` (an order's payment, a payment's order, ...)."""
    linked: set[str] = set()
    for recs in known.records.values():
        for key, rec in recs.items():
            named = _ids_in(rec, set())
            if key in ids:
                linked |= named
            elif named & ids:
                linked.add(key)
    return linked - ids


def _reads(actions: list[dict[str, Any] | None], known: Known, wanted: dict[str, Any],
           taken: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The read-only slots a lookup may take now, in the fixed order of the module docstring."""
    named = _ids_in(wanted, set())
    linked = _linked(known, named)
    done = [_plain(a) for a in taken]
    ranked = []
    for pos, action in enumerate(actions):
        if action is None or action.get("kind") not in QUERY_KINDS or action["kind"] in _NOT_LOOKUPS:
            continue
        if _plain(action) in done:
            continue
        ids = _ids_in(action, set())
        ranked.append((0 if ids & named else 1 if ids & linked else 2, pos, action))
    return [a for _, _, a in sorted(ranked, key=lambda r: r[:2])]


def _view(known: Known) -> str:
    """What the actor knows, as one comparable string (a read that leaves it unchanged taught nothing)."""
    return json.dumps([known.records, known.hits, known.actors], sort_keys=True, default=str)


def lookups(task: Any, hints: str, history: list[Any], wanted: dict[str, Any]) -> list[dict[str, Any]]:
    """The shortest sequence of read-only slots after ``history`` that makes a slot for ``wanted``
    appear (the first in the fixed order), or ``[]`` when none of at most :data:`LOOKUP_DEPTH`
    reads does within :data:`MAX_SIMULATIONS` replays."""
    budget = [MAX_SIMULATIONS]

    def search(prefix: list[dict[str, Any]], env: Any, agent: str) -> list[dict[str, Any]]:
        known = env.known(agent)
        before = _view(known)
        reads = _reads(menu_actions(known), known, wanted, [a for a in history + prefix if isinstance(a, dict)])
        tried: list[tuple[dict[str, Any], Any, str]] = []
        for read in reads:
            if budget[0] <= 0:
                return []
            budget[0] -= 1
            env2, agent2 = replay(task, hints, history + prefix + [read])
            if agent2 is None:
                continue
            if slot_for(menu_actions(env2.known(agent2)), wanted) is not None:
                return [*prefix, read]
            if _view(env2.known(agent2)) != before:
                tried.append((read, env2, agent2))
        if len(prefix) + 1 < LOOKUP_DEPTH:
            for read, env2, agent2 in tried:
                found = search([*prefix, read], env2, agent2)
                if found:
                    return found
        return []

    env, agent = replay(task, hints, history)
    return [] if agent is None else search([], env, agent)
