"""One clock: the market moves one round when every live agent has acted once, scripted or self-play.

Each T10 task (timing: notices arriving in rounds) is run twice with its reference policy as the
evaluated actor: once with scripted counterparties, once with ``counterparties="agents"`` where
every other actor is an agent driven from outside by the task's own scripted policy (or idle when
it has none). The rounds at which notices arrive, and the evaluated actor's step at which it sees
each one, must be the same both ways.
"""

from __future__ import annotations

from typing import Any

import pytest

from acworld_env.envs.aec import AcworldAECEnv
from acworld_env.policies.make import make_policy
from acworld_env.tasks.frozen import load_frozen
from acworld_env.tasks.spec import TaskSpec

T10 = [t for t in load_frozen("capability-v1") if t.task_id.startswith("capability-v1/T10/")]


def arrivals(task: TaskSpec, mode: str) -> tuple[dict[str, tuple[int, int]], list[tuple[int, str]], float]:
    """Per message to the evaluated actor: (round it arrived, evaluated step at which it was seen);
    the scheduled events as (round, id); and the evaluated actor's final score."""
    env = AcworldAECEnv(task=task, counterparties=mode)
    env.reset(seed=0)
    policies: dict[str, Any] = {task.actor: make_policy(task.reference)}
    if mode == "agents":
        policies.update({c.actor: make_policy(c.policy) for c in task.counterparties})
    for p in policies.values():
        p.reset(0)
    seen: dict[str, tuple[int, int]] = {}
    for agent in env.agent_iter(max_iter=5_000):
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        raw = env.raw_observation(agent)
        if agent == task.actor:
            for m in raw["inbox"]:
                seen.setdefault(m["message_id"], (m["round"], env.episode.steps.get(agent, 0)))
        policy = policies.get(agent)
        env.step(policy.act(raw) if policy is not None else None)
    scheduled = [(r.round, r.action["id"]) for r in env.episode.market.trace.records if r.actor == "market"]
    return seen, scheduled, env.score.score


@pytest.mark.parametrize("task", T10, ids=[t.task_id for t in T10])
def test_notices_arrive_in_the_same_rounds_scripted_and_self_play(task: TaskSpec) -> None:
    seen_scripted, sched_scripted, score_scripted = arrivals(task, "scripted")
    seen_agents, sched_agents, score_agents = arrivals(task, "agents")
    assert sched_scripted, "a T10 task schedules notices"
    assert sched_agents == sched_scripted
    assert seen_agents == seen_scripted
    assert score_agents == pytest.approx(score_scripted)


def test_the_clock_waits_for_every_live_agent() -> None:
    """With four agents the round moves after the fourth action, not after each (and not for a retired one)."""
    task = T10[0]
    env = AcworldAECEnv(task=task, counterparties="agents")
    env.reset(seed=0)
    market = env.episode.market
    n = len(env.agents)
    assert n >= 3
    for i in range(n - 1):
        env.step(None)
        assert market.round == 0, f"the clock moved after {i + 1} of {n} agents acted"
    env.step(None)
    assert market.round == 1
    last = env.agents[-1]
    env.episode.retire(last)
    for _ in range(n - 1):
        env.step(None)
    assert market.round == 2, "a retired agent is not waited for"
