"""T6 Inventory: frozen counts and ids, natural requests, controlled factors, references at 1.0,
mutations lowering exactly what they declare, the baseline gate, the boundary gates, and fresh
generated splits."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from acworld_env.episode import Episode
from acworld_env.eval.baseline_gate import gate_failures, run_baselines
from acworld_env.eval.boundary_gates import authority_failures, invalid_action_failures
from acworld_env.eval.rollout import run_episode
from acworld_env.eval.validate import validate_tasks
from acworld_env.policies.make import make_policy
from acworld_env.tasks.families.inventory import FAMILY, build
from acworld_env.tasks.families.inventory_policy import PlanRunner, step
from acworld_env.tasks.families.inventory_tasks import PLAN
from acworld_env.tasks.names import SHORTCUTS

TASKS = build(0, frozen=True)
BANNED = re.compile(r"max_unit_price|min_unit_price|predicate|classify_event|authorize_payment|issue_refund|"
                    r"submit_answer|_id\b|verdict|oracle")
FACTORS = {"unavailable_units": (1, 6), "substitutes": (2, 5), "exception_depth": (1, 3), "state_changes": (1, 4),
           "skus": (1, 4), "competing_buyers": (2, 4), "partial_backorder_requests": (1, 8),
           "carrier_updates": (2, 7)}


def test_frozen_counts_ids_and_roles() -> None:
    assert len(TASKS) == 20
    counts = Counter((t.role, t.capability) for t in TASKS)
    assert counts == {(role, cap): n for role, cap, n in PLAN}
    assert Counter(t.role for t in TASKS) == {"buyer": 8, "merchant": 12}
    for t in TASKS:
        assert t.family == FAMILY
        assert re.fullmatch(rf"capability-v1/T6/{t.role}/{t.capability}/\d\d", t.task_id)
    assert len({t.task_id for t in TASKS}) == 20


def test_frozen_build_is_deterministic_and_ignores_the_seed() -> None:
    again = build(7, frozen=True)
    assert [t.model_dump() for t in again] == [t.model_dump() for t in TASKS]


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.task_id)
def test_request_is_natural_and_weights_sum_to_one(task) -> None:
    assert len(task.request) > 80
    assert not BANNED.search(task.request), task.request
    assert sum(p.weight for p in task.predicates) == pytest.approx(1.0)
    assert task.schedule, "every T6 task has at least one supply change"
    for name, value in task.difficulty.items():
        low, high = FACTORS[name]
        assert low <= value <= high, (name, value)


def test_mutations_per_capability_and_in_total() -> None:
    per_cap = Counter()
    for t in TASKS:
        per_cap[t.capability] += len(t.mutations)
        assert all(m.lowers for m in t.mutations)
    assert min(per_cap.values()) >= 2
    assert sum(per_cap.values()) >= 18


def test_controlled_factors_are_covered() -> None:
    seen: dict[str, set] = {}
    for t in TASKS:
        for k, v in t.difficulty.items():
            seen.setdefault(k, set()).add(v)
    assert seen["competing_buyers"] == {2, 3, 4}
    assert seen["exception_depth"] >= {2, 3}
    assert max(seen["skus"]) == 4 and max(seen["substitutes"]) == 5
    assert max(seen["partial_backorder_requests"]) <= 8


def test_references_earn_full_credit_and_mutations_lower_what_they_declare(frozen_reports) -> None:
    reports = frozen_reports
    rep = reports[FAMILY]
    assert rep.failures == []
    assert rep.references_full == rep.tasks == 20
    assert rep.mutations_ok == rep.mutations >= 18
    assert rep.traces_verified == rep.rescored_identical == rep.tasks + rep.mutations


def test_baselines_and_shortcuts_stay_under_the_gate() -> None:
    assert set(SHORTCUTS[FAMILY]) >= {"promise_every_buyer", "always_backorder", "never_substitute",
                                      "first_read_state"}
    runs = [r for r in run_baselines(TASKS, seeds=3) if r.family == FAMILY]
    assert gate_failures(runs) == []
    by_name = {r.baseline: r for r in runs}
    for null in ("idle", "finish", "abstain"):
        assert max(by_name[null].scores.values()) == 0.0
    assert not any(any(r.full.values()) for name, r in by_name.items() if name.startswith("shortcut:"))


def test_no_impostor_commits_and_malformed_actions_are_refused() -> None:
    assert [f for t in TASKS for f in authority_failures(t)] == []
    assert [f for t in TASKS[::4] for f in invalid_action_failures(t)] == []


@pytest.mark.parametrize("seed", [1, 2])
def test_generated_split_is_fresh_and_valid(seed: int) -> None:
    fresh = build(seed, frozen=False)
    assert len(fresh) == 20
    assert all(t.task_id.startswith(f"generated-{seed}/T6/") for t in fresh)
    assert not {t.request for t in fresh} & {t.request for t in TASKS}
    assert [t.model_dump() for t in build(seed, frozen=False)] == [t.model_dump() for t in fresh]
    rep = validate_tasks(fresh)[FAMILY]
    assert rep.failures == []
    assert gate_failures([r for r in run_baselines(fresh, seeds=2) if r.family == FAMILY]) == []


def test_supply_change_reaches_the_world_in_its_round() -> None:
    task = next(t for t in TASKS if t.capability == "buyer_restock_price")
    first = task.schedule[0]
    ep = Episode(task)
    assert ep.market.world.state["listings"]["L-001"]["stock"] == 0
    while ep.market.round < first["round"]:
        assert first["id"] not in ep.market.world.state["market_events"]
        ep.act(task.actor, {"kind": "get_inbox"})
    assert ep.market.world.state["listings"]["L-001"]["stock"] > 0
    assert ep.market.world.state["market_events"][first["id"]]["to"] == task.actor
    assert any(m.get("event_id") == first["id"] for m in ep.observe(task.actor)["inbox"])


def test_plan_runner_waits_for_its_trigger_and_pays_the_order_it_placed() -> None:
    runner = PlanRunner(steps=[step([{"kind": "get_inbox"}]),
                               step([{"kind": "authorize_payment", "order_id": "$order", "amount": 5}],
                                    event="evt-002", round_=3)])
    obs = {"round": 0, "inbox": [], "last_result": None}
    assert runner.act(obs) == {"kind": "get_inbox"}
    assert runner.act({**obs, "round": 4}) is None
    placed = {"kind": "place_order", "accepted": True, "result": {"order_id": "ord-0009", "total": 5}}
    assert runner.act({"round": 2, "inbox": [{"event_id": "evt-002"}], "last_result": placed}) is None
    assert runner.act({"round": 3, "inbox": [], "last_result": None}) == {
        "kind": "authorize_payment", "order_id": "ord-0009", "amount": 5}
    assert runner.act({"round": 4, "inbox": [], "last_result": None})["kind"] == "finish"


def test_acting_on_the_first_read_loses_credit() -> None:
    shortcut = SHORTCUTS[FAMILY]["first_read_state"]
    for task in TASKS:
        ref = run_episode(task, make_policy(task.reference)).score
        stale = run_episode(task, shortcut()).score
        assert ref.score == 1.0
        assert stale.score < 1.0, task.task_id


def test_an_equivalent_correct_path_earns_full_credit() -> None:
    """Shipping what was committed, or cancelling (which refunds) instead of refunding, is as good."""
    for task in TASKS:
        if task.capability not in {"merchant_competing_commitment", "merchant_partial_backorder"}:
            continue
        read, commit = task.reference.params["steps"]
        alt = []
        for a in commit["do"]:
            if a["kind"] == "issue_refund" and task.capability == "merchant_competing_commitment":
                oid = next(o for o, r in task.initial_state["orders"].items() if r["payment"] == a["payment_id"])
                alt.append({"kind": "cancel_order", "order_id": oid, "reason": "sold out"})
            else:
                alt.append(a)
        alt += [{"kind": "ship_order", "order_id": o} for o in task.mandate["orders"]]
        score = run_episode(task, PlanRunner(steps=[read, {**commit, "do": alt}])).score
        assert score.score == 1.0, (task.task_id, score.credits)
