"""T7 lifecycle family: counts, words, references and mutations, the baseline gate, fresh generated splits."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from acworld_env.eval.baseline_gate import NULL_BASELINES, gate_failures, run_baselines
from acworld_env.eval.rollout import run_episode
from acworld_env.eval.validate import validate_tasks
from acworld_env.policies.baselines import shortcuts_for
from acworld_env.policies.make import make_policy
from acworld_env.tasks.families.lifecycle import FAMILY, build
from acworld_env.tasks.spec import PolicyRef

TASKS = build(0, frozen=True)
INTERNAL = re.compile(r"max_unit_price|min_unit_price|predicate|classify_event|authorize_payment|issue_refund|"
                      r"submit_answer|_id\b|verdict|oracle")
COUNTS = {"buyer_cancel": 2, "buyer_dispute": 2, "buyer_exchange": 2, "buyer_return_refund": 2,
          "merchant_cancel": 2, "merchant_dispute": 2, "merchant_exchange": 2, "merchant_ledger_close": 2,
          "merchant_refund": 2, "merchant_return_authorization": 2}


def test_frozen_counts_ids_and_roles() -> None:
    assert Counter(t.capability for t in TASKS) == COUNTS
    assert Counter(t.role for t in TASKS) == {"buyer": 8, "merchant": 12}
    for t in TASKS:
        assert re.fullmatch(rf"capability-v1/T7/{t.role}/{t.capability}/0[12]", t.task_id)
        assert t.family == FAMILY and t.actor == f"{t.role}_0"
        assert sum(p.weight for p in t.predicates) == pytest.approx(1.0), t.task_id
    assert [t.model_dump() for t in build(0)] == [t.model_dump() for t in TASKS]  # deterministic


def test_requests_are_natural_words() -> None:
    for t in TASKS:
        assert len(t.request) > 80 and not INTERNAL.search(t.request), t.task_id
    assert len({t.request for t in TASKS}) == len(TASKS)


def test_controlled_factors_stay_in_their_ranges() -> None:
    for t in TASKS:
        d = t.difficulty
        if "payment_depth" in d:
            assert 2 <= d["payment_depth"] <= 4, t.task_id
        if t.capability == "merchant_ledger_close":
            assert 2 <= d["ledger_records"] <= 5
        if "replacement_constraints" in d:
            assert 1 <= d["replacement_constraints"] <= 3
        if "return_conditions" in d:
            assert 1 <= d["return_conditions"] <= 4
        if "evidence_conditions" in d:
            assert 1 <= d["evidence_conditions"] <= 4


def test_references_earn_full_credit_and_each_mutation_lowers_what_it_declares(frozen_reports) -> None:
    reports = frozen_reports
    rep = reports[FAMILY]
    assert rep.failures == []
    assert rep.references_full == rep.tasks == 20
    assert rep.mutations_ok == rep.mutations >= 20
    per_cap = Counter(t.capability for t in TASKS for _ in t.mutations)
    assert all(per_cap[c] >= 2 for c in COUNTS)


@pytest.fixture(scope="module")
def runs() -> dict[str, Any]:
    """Every baseline on every T7 task."""
    return {r.baseline: r for r in run_baselines(TASKS)}


def test_baselines_pass_the_gate(runs: dict[str, Any]) -> None:
    assert gate_failures(list(runs.values())) == []
    for name in NULL_BASELINES:
        assert max(runs[name].scores.values()) == 0.0, name
    assert runs["random"].mean <= 0.05
    assert {"approve_everything", "refuse_everything", "refund_in_full"} <= set(shortcuts_for(FAMILY))
    for name in ("approve_everything", "refuse_everything", "refund_in_full"):
        run = runs[f"shortcut:{name}"]
        assert not any(run.full.values()) and run.mean <= 0.25, (name, run.mean)


@pytest.mark.parametrize("seed", [1, 2])
def test_generated_split_is_fresh_and_valid(seed: int) -> None:
    fresh = build(seed, frozen=False)
    assert Counter(t.capability for t in fresh) == COUNTS
    assert all(t.task_id.startswith(f"generated-{seed}/T7/") for t in fresh)
    assert not {t.request for t in fresh} & {t.request for t in TASKS}
    rep = validate_tasks(fresh)[FAMILY]
    assert rep.failures == [] and rep.references_full == 20
    assert gate_failures(run_baselines(fresh, seeds=1)) == []


def _task(cap: str) -> Any:
    return next(t for t in TASKS if t.capability == cap)


def test_the_shop_denies_final_sale_and_refunds_the_rest() -> None:
    task = next(t for t in TASKS if t.capability == "buyer_return_refund"
                and "final_sale" in t.difficulty["conditions"])
    final = task.counterparties[0].policy.params["final_sale"][0]
    order = next(c for c in task.mandate["cases"] if any(x["listing_id"] == final for x in c["lines"]))
    plan = [{"kind": "request_return", "order_id": order["order_id"], "reason": "Changed my mind.",
             "lines": [{"listing_id": final, "quantity": 1}]}]
    policy = make_policy(PolicyRef(name="lifecycle_plan", params={"steps": plan}))
    state = run_episode(task, policy).episode.market.world.state
    assert [r["status"] for r in state["returns"].values()] == ["denied"]
    ref = run_episode(task, make_policy(task.reference)).episode.market.world.state
    assert ref["returns"] and all(r["status"] == "refunded" for r in ref["returns"].values())


def test_a_packed_order_cancelled_costs_the_guard() -> None:
    task = _task("merchant_cancel")
    keep = task.predicates[-1].params["values"][0]
    plan = [*task.reference.params["steps"], {"kind": "cancel_order", "order_id": keep}]
    score = run_episode(task, make_policy(PolicyRef(name="lifecycle_plan", params={"steps": plan}))).score
    assert score.credits["packed_kept"] == 0.0 and score.score < 1.0


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.task_id.split("/T7/")[1])
def test_reference_plans_are_never_refused(task: Any) -> None:
    """Every step of a reference (and of the shop counterparty) is accepted: the plan is what a clerk could do."""
    records = run_episode(task, make_policy(task.reference)).episode.market.trace.records
    assert [(r.actor, r.kind, r.validation.code) for r in records if not r.accepted] == []
