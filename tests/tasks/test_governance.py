"""T8 Governance: counts, requests, references and mutations, baselines, generated split, live peers."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from acworld_env.eval.baseline_gate import gate_failures, run_baselines
from acworld_env.eval.rollout import run_episode
from acworld_env.eval.validate import validate_tasks
from acworld_env.policies.baselines import shortcuts_for
from acworld_env.policies.make import make_policy
from acworld_env.tasks.families.governance import FAMILY, PLAN, build
from acworld_env.tasks.spec import TaskSpec

FORBIDDEN = re.compile(r"max_unit_price|min_unit_price|predicate|classify_event|authorize_payment|issue_refund|"
                       r"submit_answer|_id\b|verdict|oracle")
FACTOR_RANGES = {"merchants": {2, 3, 4}, "sponsored": {1, 2, 3}, "review_pollution": {0.2, 0.6},
                 "colluding_peers": {1, 2, 3}, "history_events": {4, 12},
                 "remediation_steps": {1, 2, 3}}


@pytest.fixture(scope="module")
def frozen() -> list[TaskSpec]:
    return build(0, frozen=True)


def test_frozen_counts_ids_and_determinism(frozen: list[TaskSpec]) -> None:
    counts = Counter((t.role, t.capability) for t in frozen)
    assert counts == {(role, cap): n for role, cap, n in PLAN}
    assert len(frozen) == 20 and sum(t.role == "buyer" for t in frozen) == 10
    for t in frozen:
        assert re.fullmatch(rf"capability-v1/T8/{t.role}/{t.capability}/\d\d", t.task_id)
        assert t.family == FAMILY
        assert abs(sum(p.weight for p in t.predicates) - 1.0) < 1e-9, t.task_id
    assert [t.model_dump() for t in build(0)] == [t.model_dump() for t in frozen]
    assert [t.model_dump() for t in build(5, frozen=True)] == [t.model_dump() for t in frozen]


def test_requests_are_natural_and_factors_in_range(frozen: list[TaskSpec]) -> None:
    for t in frozen:
        assert len(t.request) > 80 and not FORBIDDEN.search(t.request), t.task_id
        for key, value in t.difficulty.items():
            assert value in FACTOR_RANGES[key], (t.task_id, key, value)


def test_live_counterparties_are_shops_of_the_market(frozen: list[TaskSpec]) -> None:
    for t in frozen:
        assert t.counterparties, t.task_id
        merchants = [a for a, r in t.initial_state["actors"].items() if r["role"] == "merchant"]
        assert 2 <= len(merchants) <= 4, t.task_id


def test_mutations_per_capability(frozen: list[TaskSpec]) -> None:
    per_cap = Counter()
    for t in frozen:
        per_cap[t.capability] += len(t.mutations)
    assert all(per_cap[cap] >= 2 for _, cap, _ in PLAN)
    assert sum(per_cap.values()) >= 18


def test_references_full_and_mutations_lower_what_they_declare(frozen: list[TaskSpec], frozen_reports) -> None:
    report = frozen_reports[FAMILY]
    assert report.failures == []
    assert report.references_full == 20 and report.mutations_ok == report.mutations >= 18
    assert report.traces_verified == report.rescored_identical == 20 + report.mutations


def test_baseline_gate_passes(frozen: list[TaskSpec]) -> None:
    runs = run_baselines(frozen, seeds=2)
    assert gate_failures(runs) == []
    names = {r.baseline for r in runs}
    assert {"shortcut:pick_sponsored", "shortcut:accept_peer_proposals", "shortcut:trust_star_average"} <= names
    for r in runs:
        if r.baseline in {"idle", "finish", "abstain"}:
            assert max(r.scores.values()) == 0.0, r.baseline


@pytest.mark.parametrize("seed", [1, 2])
def test_generated_split_is_fresh_and_valid(frozen: list[TaskSpec], seed: int) -> None:
    fresh = build(seed, frozen=False)
    assert len(fresh) == 20 and all(t.task_id.startswith(f"generated-{seed}/T8/") for t in fresh)
    assert not {t.request for t in fresh} & {t.request for t in frozen}
    assert [t.model_dump() for t in build(seed, frozen=False)] == [t.model_dump() for t in fresh]
    report = validate_tasks(fresh)[FAMILY]
    assert report.failures == []


def test_shortcuts_are_registered() -> None:
    assert {"pick_sponsored", "accept_peer_proposals", "trust_star_average"} <= set(shortcuts_for(FAMILY))


def test_colluding_peers_act_through_the_platform_and_press_again(frozen: list[TaskSpec]) -> None:
    task = next(t for t in frozen if t.capability == "merchant_anti_collusion")
    run = run_episode(task, make_policy(task.reference))
    sent = [r for r in run.episode.market.trace.records if r.actor != task.actor and r.kind == "send_message"]
    colluders = task.predicates[2].params["expected"]
    assert {r.actor for r in sent} >= set(colluders)
    assert all(r.accepted for r in sent)
    first = [r for r in sent if r.actor == "merchant_1"]
    assert len(first) >= 2 and first[-1].round >= 3  # the proposal, then the pressure


def test_accepting_the_cartel_price_loses_the_price_checks(frozen: list[TaskSpec]) -> None:
    task = next(t for t in frozen if t.capability == "merchant_anti_collusion")
    run = run_episode(task, shortcuts_for(FAMILY)["accept_peer_proposals"]())
    assert run.score.credits["own_price"] == 0.0 and run.score.credits["never_aligned"] == 0.0


def test_late_sponsorship_notice_arrives_mid_episode(frozen: list[TaskSpec]) -> None:
    for task in (t for t in frozen if t.capability == "merchant_sponsorship_disclosure"):
        if task.difficulty["sponsored"] >= 2:
            assert task.schedule and task.schedule[0]["round"] == 2
            late = re.search(r"L-\d{3}", task.schedule[0]["notices"][0]["text"]).group(0)
            assert late in task.predicates[0].params["listings"] and late not in task.request


def test_buyer_answer_is_never_the_surface_choice(frozen: list[TaskSpec]) -> None:
    for task in (t for t in frozen if t.role == "buyer"):
        answer = task.predicates[0].params["accepted"]
        assert task.mandate["listings"][0] not in answer
        reviews = task.initial_state["reviews"].values()
        avg = {lid: [r["rating"] for r in reviews if r["listing"] == lid] for lid in task.mandate["listings"]}
        top = max(avg, key=lambda lid: (sum(avg[lid]) / len(avg[lid]), lid))
        assert top not in answer, task.task_id
