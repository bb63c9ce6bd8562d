"""T2 Grounding: counts, words, references and mutations, the baseline gate, the generated split."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from acworld_env.core.taskspec import task_canonical
from acworld_env.eval.baseline_gate import (
    NULL_BASELINES,
    SHORTCUT_MEAN,
    gate_failures,
    run_baselines,
)
from acworld_env.eval.rollout import run_episode
from acworld_env.eval.validate import validate_tasks
from acworld_env.policies.baselines import shortcuts_for
from acworld_env.policies.make import make_policy
from acworld_env.tasks.families.grounding import FAMILY, build
from acworld_env.tasks.spec import PolicyRef, TaskSpec

TASKS = build(0, frozen=True)
COUNTS = {("buyer", "authoritative_attribute_read"): 2, ("buyer", "conflict_and_normalization"): 2,
          ("buyer", "grounded_comparison"): 2, ("buyer", "unsupported_claim_detection"): 2,
          ("merchant", "comparative_claim_limits"): 3, ("merchant", "correction_and_retraction"): 2,
          ("merchant", "evidence_backed_response"): 3, ("merchant", "truthful_listing_update"): 4}
FORBIDDEN = re.compile(r"max_unit_price|min_unit_price|predicate|classify_event|authorize_payment|issue_refund|"
                       r"submit_answer|_id\b|verdict|oracle")


def test_frozen_counts_ids_and_determinism() -> None:
    assert Counter((t.role, t.capability) for t in TASKS) == COUNTS
    assert len(TASKS) == 20
    for t in TASKS:
        assert t.family == FAMILY and t.catalog == "capability-v1"
        assert re.fullmatch(rf"capability-v1/T2/{t.role}/{t.capability}/\d\d", t.task_id)
        assert t.actor == ("buyer_0" if t.role == "buyer" else "merchant_0")
    assert [t.model_dump() for t in build(0, frozen=True)] == [t.model_dump() for t in TASKS]


def test_tasks_round_trip_through_their_canonical_json() -> None:
    for t in TASKS:
        line = task_canonical(t)
        assert task_canonical(TaskSpec.model_validate_json(line)) == line, t.task_id


def test_requests_are_words_and_weights_sum_to_one() -> None:
    for t in TASKS:
        assert len(t.request) > 80 and not FORBIDDEN.search(t.request), t.task_id
        assert sum(p.weight for p in t.predicates) == pytest.approx(1.0), t.task_id
        assert 1 <= t.difficulty["sources"] <= 5, t.task_id


def test_each_capability_has_two_mutations_and_sixteen_in_all() -> None:
    per_cap: Counter[str] = Counter()
    for t in TASKS:
        per_cap[t.capability] += len(t.mutations)
        assert len(t.mutations) >= 2 and all(m.lowers for m in t.mutations), t.task_id
    assert min(per_cap.values()) >= 2 and sum(per_cap.values()) >= 16


def test_references_earn_full_credit_and_mutations_lower_exactly_their_predicates(frozen_reports) -> None:
    report = frozen_reports[FAMILY]
    assert report.failures == []
    assert report.references_full == 20 and report.mutations_ok == report.mutations >= 16


@pytest.fixture(scope="module")
def runs() -> dict[str, Any]:
    """Every baseline on every T2 task."""
    return {r.baseline: r for r in run_baselines(TASKS)}


def test_t2_passes_the_baseline_gate(runs: dict[str, Any]) -> None:
    assert gate_failures(list(runs.values())) == []
    for name in NULL_BASELINES:
        assert max(runs[name].scores.values()) == 0.0, name
    names = set(shortcuts_for(FAMILY))
    assert {"trust_listing_claims", "first_record", "claim_best", "spray_every_fact"} <= names
    for name in names:
        run = runs[f"shortcut:{name}"]
        assert not any(run.full.values()) and run.mean <= SHORTCUT_MEAN - 0.1, (name, run.mean)


def test_trusting_the_seller_copy_fails_every_figure_task(runs: dict[str, Any]) -> None:
    trust = runs["shortcut:trust_listing_claims"]
    for t in TASKS:
        if t.capability in {"authoritative_attribute_read", "conflict_and_normalization"}:
            assert trust.scores[t.task_id] <= 0.4, t.task_id


def test_a_question_reaches_the_merchant_and_the_reply_is_checked() -> None:
    t = next(x for x in TASKS if x.capability == "evidence_backed_response")
    plan = t.reference.params["plan"]
    bad_reply = [a if a["kind"] != "answer_question" else {**a, "text": a["text"] + " It is 1 kg lighter than most."}
                 for a in plan]
    score = run_episode(t, make_policy(PolicyRef(name="grounded_plan", params={"plan": bad_reply}))).score
    assert score.credits["reply_grounded"] == 1.0 and score.credits["no_unsupported_figure"] == 0.0


@pytest.mark.parametrize("seed", [3, 11])
def test_generated_split_is_fresh_and_valid(seed: int, tmp_path: Any) -> None:
    fresh = build(seed, frozen=False)
    assert Counter((t.role, t.capability) for t in fresh) == COUNTS
    assert all(t.task_id.startswith(f"generated-{seed}/T2/") for t in fresh)
    assert not {t.request for t in fresh} & {t.request for t in TASKS}
    assert [t.request for t in fresh] != [t.request for t in build(seed + 1, frozen=False)]
    report = validate_tasks(fresh, workdir=tmp_path)[FAMILY]
    assert report.failures == [] and report.references_full == len(fresh)


def test_a_decimal_written_as_a_json_number_is_read_like_its_text() -> None:
    t = next(x for x in TASKS if x.task_id.endswith("conflict_and_normalization/02"))
    plan = t.reference.params["plan"]
    as_numbers = [a if a["kind"] != "submit_answer" else
                  {**a, "answer": {k: (float(v) if re.fullmatch(r"\d+\.\d+", v) else v) for k, v in a["answer"].items()}}
                  for a in plan]
    assert as_numbers != plan and any(isinstance(v, float) for a in as_numbers for v in a.get("answer", {}).values())
    result = run_episode(t, make_policy(PolicyRef(name="grounded_plan", params={"plan": as_numbers})))
    assert result.score.score == 1.0
    answer = next(r for r in result.episode.market.trace.records if r.kind == "submit_answer")
    assert answer.accepted and answer.action["answer"]["weight_oz"] == "27.87"
