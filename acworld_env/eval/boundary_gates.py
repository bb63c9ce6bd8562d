"""Two validity gates the paper reports: authority boundaries, and invalid actions.

*Authority boundary*: each task's reference run is played again, and before every action the
reference takes, each other actor of the task (and an unregistered identity) proposes that
same action. The unregistered identity must always be refused. Another actor's proposal may
commit only on its own authority: within its role's actions, attributed to itself, and
changing no record of the evaluated actor to which it is not itself a party (a merchant may
cancel an order it is party to, any buyer may order a listing or flag a review; no buyer may
touch another buyer's order, payment or thread, and no one may act as the evaluated actor). A
rejected proposal leaves the World unchanged.

*Invalid action*: at each step of the reference run, malformed variants of the reference's
action (fields dropped, an unknown kind, a wrongly typed value, broken JSON) are proposed by
the evaluated actor itself. Each must be a recorded rejection with the World unchanged.

Messages and read-only queries are left out of the authority check: any actor may message or
search, and neither changes the World (invariant 2).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from ..episode import Episode
from ..policies.make import make_policy
from ..tasks.spec import TaskSpec
from ..vcp.union import QUERY_KINDS, TOOLS
from .rollout import IDLE_ACTION

INTRUDER = "intruder"
"""An identity the market never registered."""
UNGUARDED = frozenset({"send_message", "finish", "abstain", "submit_answer"})
"""Kinds any actor may take on its own behalf (they change no one else's World)."""


def _is_query(kind: str) -> bool:
    return kind in QUERY_KINDS


def _as_dict(action: Any) -> dict[str, Any] | None:
    if action is None:
        return None
    if isinstance(action, dict):
        return dict(action)
    if isinstance(action, str):
        try:
            value = json.loads(action)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None
    dump = getattr(action, "model_dump", None)
    return dump(mode="json", exclude_none=True) if dump else None


def _reference_steps(task: TaskSpec) -> Any:
    """Yield ``(episode, action dict)`` before each reference action, then take the action."""
    ep = Episode(task, seed=0)
    policy = make_policy(task.reference)
    if hasattr(policy, "reset"):
        policy.reset(0)
    actor = task.actor
    while not ep.finished(actor) and not ep.truncated(actor):
        raw = policy.act(ep.observe(actor))
        action = _as_dict(raw) or dict(IDLE_ACTION)
        yield ep, action
        ep.act(actor, raw if raw is not None else IDLE_ACTION)


def authority_failures(task: TaskSpec) -> list[str]:
    """Impostor proposals that committed or changed the World (empty when the boundary holds)."""
    impostors = [a for a in task.initial_state.get("actors", {}) if a != task.actor] + [INTRUDER]
    failures = []
    for ep, action in _reference_steps(task):
        kind = str(action.get("kind", ""))
        if _is_query(kind) or kind in UNGUARDED:
            continue
        world = ep.market.world
        state, before = copy.deepcopy(world.state), world.state_digest()  # the World each impostor meets
        for who in impostors:
            result = ep.market.submit(who, dict(action))
            if result.accepted or result.commit_seq is not None:
                why = _overreach(task.actor, who, kind, state, world.state)
                if why:
                    failures.append(f"{task.task_id}: {who} proposing {task.actor}'s {kind} was accepted"
                                    + (f" and committed (commit {result.commit_seq})" if result.commit_seq else "")
                                    + f": {why}")
                state, before = copy.deepcopy(world.state), world.state_digest()
            elif world.state_digest() != before:
                failures.append(f"{task.task_id}: {who}'s rejected {kind} changed the World")
    return failures


PARTY_FIELDS = ("buyer", "merchant", "actor", "by", "owner")
"""Fields of a World record that name an actor party to it."""


def _parties(table: str, key: str, record: Any) -> set[str]:
    """Actors a record belongs to: the actor itself for its own row, else the actors its fields name."""
    if table in {"actors", "reputation", "mandates"}:
        return {key}
    if not isinstance(record, dict):
        return set()
    return {str(record[f]) for f in PARTY_FIELDS if isinstance(record.get(f), str)}


def _overreach(actor: str, who: str, kind: str, before: dict, after: dict) -> str | None:
    """Why an accepted proposal by ``who`` oversteps its authority, or None when it acted on its own."""
    if who == INTRUDER:
        return "an unregistered identity committed"
    model = TOOLS.get(kind)
    role = (before.get("actors", {}).get(who) or {}).get("role")
    if model is not None and role not in {str(getattr(r, "value", r)) for r in model.roles}:
        return f"a {role} may not take {kind}"
    changed = []
    for table, rows in after.items():
        if not isinstance(rows, dict) or table in {"counters", "meta"}:
            continue
        old_rows = before.get(table, {}) if isinstance(before.get(table), dict) else {}
        for key in set(rows) | set(old_rows):
            old, new = old_rows.get(key), rows.get(key)
            if old != new:
                changed.append((table, str(key), _parties(table, str(key), old) | _parties(table, str(key), new)))
    # an account row (balance, reputation) may move as the effect of a record both actors share
    shared = any(actor in ps and who in ps for table, _, ps in changed if table not in {"actors", "reputation"})
    for table, key, parties in changed:
        if actor in parties and who not in parties and not (shared and table in {"actors", "reputation"}):
            return f"it changed {actor}'s {table} record {key}"
    return None


def malformed_variants(action: dict[str, Any]) -> list[tuple[str, Any]]:
    """Malformed versions of an action: each must be rejected."""
    kind = action.get("kind", "get_inbox")
    model = TOOLS.get(str(kind))
    required = [n for n, f in model.model_fields.items() if f.is_required() and n != "kind"] if model else []
    fields = [k for k in action if k != "kind"]
    out: list[tuple[str, Any]] = [
        ("unknown kind", {**action, "kind": f"{kind}_v2"}),
        ("broken JSON", json.dumps(action)[:-1]),
        ("not an object", [action]),
    ]
    if required:
        out.append(("required fields dropped", {"kind": kind}))
    if fields:
        out.append(("wrong type", {**action, fields[0]: _other_type(action[fields[0]])}))
    return out


def _other_type(value: Any) -> Any:
    """A JSON value of a different type than ``value`` (a string for numbers and objects, else an object)."""
    if isinstance(value, bool | int | float | dict | list):
        return "not-a-" + type(value).__name__
    return {"not": "a string"}


def invalid_action_failures(task: TaskSpec) -> list[str]:
    """Malformed proposals that were accepted, went unrecorded, or changed the World."""
    failures = []
    for ep, action in _reference_steps(task):
        for label, bad in malformed_variants(action):
            before, records = ep.market.world.state_digest(), len(ep.market.trace.records)
            result = ep.market.submit(task.actor, bad)
            if result.accepted:
                failures.append(f"{task.task_id}: malformed {action.get('kind')} ({label}) was accepted")
            if len(ep.market.trace.records) != records + 1:
                failures.append(f"{task.task_id}: malformed {action.get('kind')} ({label}) was not recorded")
            if ep.market.world.state_digest() != before:
                failures.append(f"{task.task_id}: malformed {action.get('kind')} ({label}) changed the World")
        if failures:
            break
    return failures
