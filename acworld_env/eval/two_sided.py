"""Two policies in one episode: every actor of a task is an agent, each played by its role's policy.

``acworld eval SUITE --counterparties agents --policy buyer=SPEC --policy merchant=SPEC`` runs
each task with ``counterparties="agents"`` (the PettingZoo AEC env, every actor an agent with its
own rubric) and hands each actor to the policy of its role. The run's ``score.json`` is the
evaluated actor's score, as always; ``sides.json`` (:mod:`~acworld_env.scoring.sides`) adds every
other actor's score and the deal, and ``run.json`` records which policy played which role.

A run is one AEC loop (:func:`run_cast`): the selected agent observes (its ``raw_observation``,
which marks what it saw), its policy acts, the env steps; a finished agent is stepped out with
``None``. An actor hosted elsewhere plays the same loop over HTTP
(:mod:`acworld_env.remote.seat`), so the same two policies give the same trace digest either way.

Policy specs per role are those of ``acworld policies``. ``reference`` is the task's own plan for
the actor it plays: the reference plan for the evaluated actor, and for any other actor the
task's scripted policy for it (its counterparty tactic), or ``finish`` when the task has none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import AcworldError
from ..core.sides import actor_task
from ..core.taskspec import TaskSpec
from ..policies.specs import PolicyFactory
from ..scoring.sides import AGENTS, sides_doc, write_sides
from .rollout import Interrupted, Rollout

ROLES = ("buyer", "merchant")
"""The roles a ``--policy ROLE=SPEC`` may name."""
MAX_ITER = 100_000
"""Bound on the AEC iterations of one run (every agent is truncated after the task's ``max_steps``)."""


class PolicyAssignmentError(AcworldError, ValueError):
    """``--policy`` values that do not say which policy plays which role."""


def parse_policy_options(values: list[str], *, counterparties: str = "scripted") -> tuple[str, dict[str, str] | None]:
    """``(policy, policies)`` from the ``--policy`` values and ``--counterparties``.

    One bare spec (``reference``, ``openai:gpt-4o``; a spec whose text before its first ``=`` holds
    a ``:`` or ``/`` is bare): with scripted counterparties it is the evaluated actor's policy, as
    ever (``policies`` is None); with ``agents`` it plays every role. ``ROLE=SPEC`` values (needing
    ``agents``) name one policy per role; each role of :data:`ROLES` at most once. Anything else
    raises :class:`PolicyAssignmentError` with the reason.
    """
    if counterparties not in ("scripted", AGENTS):
        raise PolicyAssignmentError(f"--counterparties must be scripted or agents, not {counterparties!r}")
    values = [v.strip() for v in values or ["reference"]]
    if any(not v for v in values):
        raise PolicyAssignmentError("--policy needs a value (a spec, or ROLE=SPEC)")
    named: dict[str, str] = {}
    bare: list[str] = []
    for value in values:
        head, sep, spec = value.partition("=")
        if not sep or any(c in head for c in ":/\\."):
            bare.append(value)
            continue
        role = head.strip()
        if role not in ROLES:
            raise PolicyAssignmentError(f"unknown role {role!r} in --policy {value!r}; roles: {', '.join(ROLES)}")
        if role in named:
            raise PolicyAssignmentError(f"--policy gives the {role} twice ({named[role]!r} and {spec.strip()!r})")
        if not spec.strip():
            raise PolicyAssignmentError(f"--policy {value!r} names no spec for the {role}")
        named[role] = spec.strip()
    if bare and named:
        raise PolicyAssignmentError("give either one --policy SPEC or one --policy ROLE=SPEC per role, not both")
    if len(bare) > 1:
        raise PolicyAssignmentError(f"more than one --policy without a role ({', '.join(bare)}); "
                                    "name each role: --policy buyer=SPEC --policy merchant=SPEC")
    if named and counterparties != AGENTS:
        raise PolicyAssignmentError("--policy ROLE=SPEC needs --counterparties agents (every actor an agent); "
                                    "with scripted counterparties give one --policy SPEC")
    if counterparties != AGENTS:
        return bare[0], None
    policies = named or dict.fromkeys(ROLES, bare[0])
    missing = [r for r in ROLES if r not in policies]
    if missing:
        raise PolicyAssignmentError("--counterparties agents needs a policy for every role: missing "
                                    + ", ".join(f"--policy {r}=SPEC" for r in missing))
    return combined_policy(policies), policies


def combined_policy(policies: Mapping[str, str]) -> str:
    """The one policy string of a two-sided evaluation (its manifest's ``policy``): ``buyer=X,merchant=Y``."""
    return ",".join(f"{role}={policies[role]}" for role in sorted(policies))


def folder_name(policies: Mapping[str, str]) -> str:
    """The default output folder's name for ``policies``: ``buyer_X__merchant_Y`` (safe characters only)."""
    return "__".join(f"{role}_{_safe(policies[role])}" for role in sorted(policies))


def _safe(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in spec).strip(".") or "policy"


def check_roles(tasks: list[TaskSpec], policies: Mapping[str, str]) -> None:
    """Refuse (``ValueError``) a selection with an actor whose role has no policy."""
    for task in tasks:
        for actor, rec in task.initial_state.get("actors", {}).items():
            if rec["role"] not in policies:
                raise PolicyAssignmentError(f"{task.task_id} has a {rec['role']} ({actor}) and no --policy "
                                            f"{rec['role']}=SPEC is given")


# -- policies per actor ----------------------------------------------------------------------

@dataclass
class Cast:
    """The policies of one two-sided run, by actor, and the spec each plays."""

    policies: dict[str, Any]
    specs: dict[str, str]


def task_policy(task: TaskSpec, actor: str) -> Any:
    """``reference`` for ``actor``: its reference plan if evaluated, else the task's scripted policy for it."""
    from ..policies.base import FixedPolicy
    from ..policies.make import make_policy

    if actor == task.actor:
        return make_policy(task.reference)
    for c in task.counterparties:
        if c.actor == actor:
            return make_policy(c.policy)
    return FixedPolicy([])


class CastFactory:
    """``(task, seed) -> Cast``: every actor of the task gets a fresh policy of its role's spec."""

    def __init__(self, policies: Mapping[str, str], factories: Mapping[str, PolicyFactory]) -> None:
        self.specs = dict(policies)
        self.factories = dict(factories)
        """By spec (two roles with one spec share its factory)."""

    def __call__(self, task: TaskSpec, seed: int) -> Cast:
        cast: dict[str, Any] = {}
        for actor, rec in task.initial_state.get("actors", {}).items():
            spec = self.specs.get(rec["role"])
            if spec is None:
                raise PolicyAssignmentError(f"no policy for the {rec['role']} {actor} of {task.task_id}")
            cast[actor] = (task_policy(task, actor) if spec == "reference"
                           else self.factories[spec](actor_task(task, actor) if _has_side(task, actor) else task, seed))
        return Cast(cast, {a: self.specs[rec["role"]] for a, rec in task.initial_state["actors"].items()})


def _has_side(task: TaskSpec, actor: str) -> bool:
    return actor == task.actor or bool(task.counterparty_rubrics.get(actor))


# -- one run ------------------------------------------------------------------------------------

def run_cast(task: TaskSpec, cast: Cast, *, seed: int = 0, out_dir: str | Path | None = None,
             extra: dict[str, Any] | None = None, should_stop: Callable[[], bool] | None = None) -> Rollout:
    """Play ``task`` with every actor an agent, each by its policy in ``cast``; save the artifacts
    (``sides.json`` included) when ``out_dir`` is given. Raises :class:`~.rollout.Interrupted` when
    ``should_stop`` answers True before a decision; an exception leaving the loop carries the trace
    so far as ``partial_records``."""
    from ..envs.aec import AcworldAECEnv
    from ..observe import with_hints
    from ..scoring import save_task_run, score_episode

    env = AcworldAECEnv(task=task, tasks=[task], counterparties=AGENTS)
    env.reset(seed=seed)
    assert env.episode is not None
    for policy in cast.policies.values():
        if hasattr(policy, "reset"):
            policy.reset(seed)
    try:
        for _ in range(MAX_ITER):
            if not env.agents:
                break
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            if should_stop is not None and should_stop():
                raise Interrupted(task.task_id)
            policy = cast.policies[agent]
            observation = with_hints(env.raw_observation(agent), task, getattr(policy, "hints", "off"))
            action = policy.act(observation)
            meta = getattr(policy, "last_meta", None)
            if meta:
                env.annotate(meta)
            env.step(action)
    except Exception as exc:
        exc.partial_records = env.episode.market.trace.records  # type: ignore[attr-defined]
        raise
    market = env.episode.market
    score = score_episode(task, market)
    doc = sides_doc(task, market.trace.records, market.world.state)
    path = None
    if out_dir is not None:
        roles = {a: rec["role"] for a, rec in task.initial_state["actors"].items()}
        run_meta = {"counterparties": AGENTS, "agents": roles, **(extra or {})}
        path = save_task_run(market, task, score, out_dir, seed=seed, **run_meta)
        write_sides(path, doc)
    return Rollout(env.episode, path, score, sides=doc)

