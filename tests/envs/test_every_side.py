"""Every side has a rubric: each actor of a task other than the evaluated one has its own request,
complete mandate and predicates, and in self-play it is paid by them (rewards summing to its score)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import ValidationError

from acworld_env.core.sides import actor_task, rubric_actors
from acworld_env.envs.aec import AcworldAECEnv
from acworld_env.policies.make import make_policy
from acworld_env.scoring import KINDS, score_trace
from acworld_env.tasks.capability import build_capability
from acworld_env.tasks.frozen import load_frozen
from acworld_env.tasks.sides import with_sides
from acworld_env.tasks.spec import TaskSpec

FROZEN = load_frozen("capability-v1")
GENERATED = build_capability(7, frozen=False)
NEGOTIATIONS = [t for t in FROZEN if t.family == "T4_negotiation"]


@pytest.mark.parametrize(("split", "tasks"), [("frozen", FROZEN), ("generated", GENERATED)])
def test_every_other_actor_has_a_request_a_mandate_and_a_rubric(split: str, tasks: list[TaskSpec]) -> None:
    for task in tasks:
        others = [a for a in task.initial_state["actors"] if a != task.actor]
        assert rubric_actors(task) == others, task.task_id
        for a in others:
            rubric = task.counterparty_rubrics[a]
            assert all(p.kind in KINDS for p in rubric), task.task_id
            assert sum(p.weight for p in rubric) == pytest.approx(1.0), (task.task_id, a)
            request = task.counterparty_requests[a]
            assert len(request.split()) >= 12 and "mandate" not in request.lower(), (task.task_id, a, request)
            mandate = task.counterparty_mandates.get(a, {})
            for value in mandate.values():  # every fact of the mandate is in the request
                for item in value if isinstance(value, list) else [value]:
                    text = str(item)
                    if isinstance(item, int):
                        text = f"${item // 100}"
                    assert text in request, (task.task_id, a, text, request)


def test_a_buyer_counterpart_names_the_listing_it_negotiates() -> None:
    merchant_tasks = [t for t in NEGOTIATIONS if t.role == "merchant"]
    assert merchant_tasks
    for task in merchant_tasks:
        (buyer,) = [a for a in task.counterparty_rubrics if task.initial_state["actors"][a]["role"] == "buyer"]
        mandate = task.counterparty_mandates[buyer]
        assert mandate["listing_id"] == task.mandate["listing_id"]
        assert mandate["listing_id"] in task.counterparty_requests[buyer]
        kinds = {p.kind for p in task.counterparty_rubrics[buyer]}
        assert "price_never_crossed" in kinds and len(kinds & {"order_settled", "no_agreement"}) == 1


def test_sides_leave_the_evaluated_actor_alone() -> None:
    """Deriving the sides twice changes nothing; the evaluated actor's request, mandate and predicates stay."""
    for task in FROZEN[::7]:
        bare = task.model_copy(update={"counterparty_rubrics": {}, "counterparty_requests": {}})
        again = with_sides(bare)
        assert again.predicates == task.predicates and again.request == task.request
        assert again.mandate == task.mandate and again.reference == task.reference
        assert again.counterparty_rubrics == task.counterparty_rubrics
        assert with_sides(task) == task


def test_actor_task_is_the_side_as_scored() -> None:
    task = NEGOTIATIONS[0]
    (other,) = rubric_actors(task)
    side = actor_task(task, other)
    assert side.actor == other and side.predicates == task.counterparty_rubrics[other]
    assert side.sealed == task.counterparty_sealed[other] and side.request == task.counterparty_requests[other]
    assert actor_task(task, task.actor) is task
    with pytest.raises(KeyError, match="no rubric"):
        actor_task(task, "merchant_9")


def test_a_rubric_for_the_evaluated_or_an_unknown_actor_is_refused() -> None:
    data = NEGOTIATIONS[0].model_dump(mode="json")
    rubric = data["counterparty_rubrics"]
    (other,) = rubric
    with pytest.raises(ValidationError, match=r"counterparty_rubrics\.buyer_0|counterparty_rubrics\.merchant_0"):
        TaskSpec.model_validate({**data, "counterparty_rubrics": {data["actor"]: rubric[other]}})
    with pytest.raises(ValidationError, match="counterparty_rubrics.ghost"):
        TaskSpec.model_validate({**data, "counterparty_rubrics": {"ghost": rubric[other]}})


def play(task: TaskSpec, drive_counterparts: bool, reward: str = "potential") -> tuple[dict, dict, AcworldAECEnv]:
    """Self-play: the reference as the evaluated actor; the others by the task's scripted policies or idle."""
    env = AcworldAECEnv(task=task, counterparties="agents", reward=reward)
    env.reset(seed=0)
    policies: dict[str, Any] = {task.actor: make_policy(task.reference)}
    if drive_counterparts:
        policies.update({c.actor: make_policy(c.policy) for c in task.counterparties})
    for p in policies.values():
        p.reset(0)
    totals: dict[str, float] = {}
    final: dict[str, dict] = {}
    for agent in env.agent_iter(max_iter=5_000):
        _, rew, term, trunc, info = env.last()
        totals[agent] = totals.get(agent, 0.0) + rew
        if term or trunc:
            final[agent] = info
            env.step(None)
            continue
        policy = policies.get(agent)
        env.step(policy.act(env.raw_observation(agent)) if policy is not None else None)
    return totals, final, env


@pytest.mark.parametrize("reward", ["potential", "terminal"])
@pytest.mark.parametrize("task", NEGOTIATIONS[::5], ids=lambda t: t.task_id)
def test_each_agent_is_paid_by_its_own_rubric(task: TaskSpec, reward: str) -> None:
    totals, final, env = play(task, drive_counterparts=True, reward=reward)
    assert set(final) == set(task.initial_state["actors"])
    for agent, info in final.items():
        assert "credits" in info and "score" in info, agent
        assert totals[agent] == pytest.approx(info["score"], abs=1e-9), (agent, reward)
        side = actor_task(task, agent)
        assert set(info["credits"]) == {p.id for p in side.predicates}
        rescored = score_trace(side, env.episode.market.trace.records, env.episode.market.world.state)
        assert info["credits"] == rescored.credits
    assert final[task.actor]["evaluated"] and not any(i["evaluated"] for a, i in final.items() if a != task.actor)


def test_a_counterpart_that_trades_earns_more_than_an_idle_one() -> None:
    zone = [t for t in NEGOTIATIONS if any(p.kind == "surplus_share" for r in t.counterparty_rubrics.values()
                                           for p in r)]
    assert zone
    gained = []
    for task in zone:
        (other,) = rubric_actors(task)
        traded, _, _ = play(task, drive_counterparts=True)
        idle, _, _ = play(task, drive_counterparts=False)
        assert idle[other] < 0.5, task.task_id
        gained.append(traded[other] > idle[other])
    assert sum(gained) >= len(zone) // 2


def test_scripted_mode_pays_only_the_evaluated_actor() -> None:
    task = NEGOTIATIONS[0]
    env = AcworldAECEnv(task=task)
    env.reset(seed=0)
    assert env.agents == [task.actor]
    assert "credits" in env.infos[task.actor]


def test_requests_read_like_a_person_wrote_them() -> None:
    for task in FROZEN:
        for request in task.counterparty_requests.values():
            assert request[0].isupper() and request.rstrip().endswith(".")
            assert not re.search(r"[{}_]{2}|None|\[\]", request), request


def test_the_demo_task_has_a_merchant_side_too() -> None:
    from acworld_env.tasks.suites import load_suite

    (task,) = load_suite("demo")
    assert rubric_actors(task) == ["merchant_0"]
    assert "L-grinder" in task.counterparty_requests["merchant_0"] and "$90" in task.counterparty_requests["merchant_0"]
    totals, final, _ = play(task, drive_counterparts=True)
    assert totals["merchant_0"] == pytest.approx(final["merchant_0"]["score"]) and totals["merchant_0"] > 0.5
