"""T1 Discovery: credit is earned, surface shortcuts fail, and each capability asks for what it names."""

from __future__ import annotations

import pytest

from acworld_env.eval.baseline_gate import (
    NULL_MEAN,
    RANDOM_MEAN,
    SHORTCUT_FULL_SHARE,
    SHORTCUT_MEAN,
    gate_failures,
    run_baselines,
)
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.baselines import shortcuts_for
from acworld_env.policies.make import make_policy
from acworld_env.tasks.families import discovery
from acworld_env.tasks.families.discovery_needs import filterable, satisfies
from acworld_env.tasks.frozen import load_frozen

TASKS = [t for t in load_frozen("capability-v1") if t.family == "T1_discovery"]
CAPS = {"basic_feasible_discovery": 3, "best_feasible_selection": 5, "correct_abstention": 4,
        "hard_constraint_filtering": 4, "query_reformulation": 4}


@pytest.fixture(scope="module")
def runs() -> dict:
    return {r.baseline: r for r in run_baselines(TASKS)}


def _by(cap: str) -> list:
    return [t for t in TASKS if t.capability == cap]


def test_frozen_t1_keeps_the_paper_counts_and_ids():
    assert {c: len(_by(c)) for c in CAPS} == CAPS
    assert [t.task_id for t in TASKS] == [f"capability-v1/T1/buyer/{c}/{i:02d}" for c, n in CAPS.items()
                                          for i in range(1, n + 1)]
    assert discovery.build(frozen=True) == TASKS


def test_t1_passes_the_baseline_gate(runs):
    assert gate_failures(list(runs.values())) == []
    assert {"shortcut:words_cheapest", "shortcut:first_hit", "shortcut:type_cheapest",
            "shortcut:search_then_abstain"} <= set(runs)


def test_doing_nothing_earns_nothing(runs):
    assert all(s == 0.0 for s in runs["idle"].scores.values())
    assert all(s == 0.0 for s in runs["finish"].scores.values())
    for task_id, score in runs["abstain"].scores.items():  # a bare abstention: at most a third
        assert score <= (1 / 3 if "/correct_abstention/" in task_id else 0.0), task_id
    assert runs["abstain"].mean <= NULL_MEAN and runs["random"].mean <= RANDOM_MEAN


def test_surface_shortcuts_stay_below_the_thresholds(runs):
    for name in shortcuts_for("T1_discovery"):
        run = runs[f"shortcut:{name}"]
        assert run.mean <= SHORTCUT_MEAN, name
        for cap in CAPS:
            fulls = [run.full[t.task_id] for t in _by(cap)]
            assert sum(fulls) <= SHORTCUT_FULL_SHARE * len(fulls), (name, cap)


def test_reference_earns_full_credit_and_each_mutation_lowers_exactly_what_it_declares():
    for task in TASKS:
        assert abs(sum(p.weight for p in task.predicates) - 1.0) < 1e-9, task.task_id
        ref = run_episode(task, make_policy(task.reference), seed=0).score
        assert ref.full_credit, (task.task_id, ref.credits)
        for mut in task.mutations:
            got = run_episode(task, make_policy(mut.policy), seed=0).score
            lowered = sorted(k for k, v in got.credits.items() if v < ref.credits[k])
            assert lowered == sorted(mut.lowers), mut.id


def test_the_mandate_holds_only_a_budget_and_the_request_states_it():
    for task in TASKS:
        assert set(task.mandate) <= {"budget"}, task.task_id
        if "budget" in task.mandate:
            cents = task.mandate["budget"]
            assert f"${cents // 100}" in task.request
        assert task.oracle["hints"]["filters"] and task.oracle["needs"]


def test_abstaining_pays_fully_only_with_the_evidence():
    task = _by("correct_abstention")[0]
    params = {**task.reference.params, "evidence_search": None}  # abstains on an empty page
    blind = run_episode(task, make_policy({"name": "discovery_buyer", "params": params}), seed=0).score
    assert blind.credits["abstained"] < 1.0 and blind.credits["near_miss_seen"] == 0.0
    assert blind.score <= 1 / 3 + 0.1 + 1e-9  # searched (the guard) but never saw why nothing fits
    ref = run_episode(task, make_policy(task.reference), seed=0).score
    assert ref.credits["abstained"] == 1.0 and ref.credits["near_miss_seen"] == 1.0


def test_hard_constraint_tasks_need_a_read():
    for task in _by("hard_constraint_filtering"):
        checks = [n for n in task.oracle["needs"] if not filterable(n)]
        assert any(n["field"] == "description" for n in checks), task.task_id
        first = discovery.records({**task.oracle["hints"]["filters"], "sort": "price_asc"})[0]
        assert first["listing_id"] not in task.oracle["accepted"]  # the top filtered hit fails a check
        assert not all(satisfies(first, n) for n in checks)


def test_best_selection_is_not_decided_by_the_sort_order():
    for task in _by("best_feasible_selection"):
        hits = discovery.records({**task.oracle["hints"]["filters"], "sort": "price_asc"})
        assert hits[0]["listing_id"] not in task.oracle["accepted"], task.task_id
        assert task.difficulty["objective"] in {"price_per_gram", "cheapest_well_reviewed"}
    assert {t.difficulty["objective"] for t in _by("best_feasible_selection")} == {
        "price_per_gram", "cheapest_well_reviewed"}


def test_reformulation_needs_two_to_five_rounds_and_the_literal_query_fails():
    for task in _by("query_reformulation"):
        assert 2 <= task.difficulty["search_rounds"] <= 5
        assert all(n["vague"] for n in task.oracle["needs"])  # no requirement is spelled out
        literal = task.reference.params["searches"][0]
        assert "text" in literal and not any(k in literal for k in ("attributes", "options", "category"))
        page = discovery.catalog().search_ids(literal)[1]
        assert not set(page) & set(task.oracle["feasible"]), task.task_id


def test_abstention_conflicts_are_over_budget_and_vary_in_subtlety():
    for task in _by("correct_abstention"):
        cheapest = discovery.catalog().get(task.oracle["decisive"][0])
        assert cheapest is not None and cheapest.price > task.mandate["budget"]
        assert not task.oracle["accepted"]
    assert {t.difficulty["conflict"] for t in _by("correct_abstention")} == {"subtle", "obvious"}


def test_generated_split_is_fresh_and_passes_the_gate():
    generated = discovery.build(seed=5, frozen=False)
    assert not {t.request for t in generated} & {t.request for t in TASKS}
    assert gate_failures(run_baselines(generated)) == []
