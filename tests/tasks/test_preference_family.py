"""T3 Preference: frozen plan, natural requests, references and mutations, the baseline gate, fresh splits."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from acworld_env.episode import Episode
from acworld_env.eval.baseline_gate import gate_failures, run_baselines
from acworld_env.eval.rollout import run_episode
from acworld_env.eval.validate import validate_tasks
from acworld_env.policies.make import make_policy
from acworld_env.tasks.families.preference import build
from acworld_env.tasks.names import SHORTCUTS
from acworld_env.tasks.spec import TaskSpec

FAMILY = "T3_preference"
COUNTS = {"hard_over_soft": 4, "mandate_consistency": 2, "noisy_social_signals": 3, "preference_update": 3,
          "social_evidence": 4, "weighted_soft_preferences": 4}
FORBIDDEN = re.compile(r"max_unit_price|min_unit_price|predicate|classify_event|authorize_payment|issue_refund|"
                       r"submit_answer|_id\b|verdict|oracle")


@pytest.fixture(scope="module")
def frozen() -> list[TaskSpec]:
    return build(0, frozen=True)


def test_frozen_counts_ids_and_determinism(frozen: list[TaskSpec]) -> None:
    assert Counter(t.capability for t in frozen) == COUNTS
    assert all(re.fullmatch(rf"capability-v1/T3/buyer/{t.capability}/\d\d", t.task_id) for t in frozen)
    assert len({t.task_id for t in frozen}) == 20
    assert all(t.role == "buyer" and t.family == FAMILY for t in frozen)
    again = build(0, frozen=True)
    assert [t.model_dump() for t in again] == [t.model_dump() for t in frozen]


def test_requests_are_natural_words(frozen: list[TaskSpec]) -> None:
    for t in frozen:
        assert len(t.request) > 80, t.task_id
        assert not FORBIDDEN.search(t.request), (t.task_id, FORBIDDEN.search(t.request))


def test_weights_mutations_and_factors(frozen: list[TaskSpec]) -> None:
    by_cap: Counter[str] = Counter()
    for t in frozen:
        assert sum(p.weight for p in t.predicates) == pytest.approx(1.0), t.task_id
        assert {p.id for p in t.predicates} >= {"choice", "evidence"}
        by_cap[t.capability] += len(t.mutations)
        assert all(m.lowers for m in t.mutations)
    assert all(n >= 2 for n in by_cap.values()) and sum(by_cap.values()) >= 12
    d = [t.difficulty for t in frozen]
    assert {x["preferences"] for x in d if "preferences" in x} <= set(range(2, 7))
    assert {2, 6} <= {x["preferences"] for x in d if "preferences" in x}
    assert {x["advisors"] for x in d if "advisors" in x} >= {1, 5}
    assert {x["unreliable_signals"] for x in d if "unreliable_signals" in x} >= {1, 4}
    assert {x["revisions"] for x in d if "revisions" in x} == {1, 2, 3}
    assert {x["authority_layers"] for x in d if "authority_layers" in x} == {2, 4}


def test_references_full_and_mutations_lower_what_they_declare(frozen: list[TaskSpec], frozen_reports) -> None:
    report = frozen_reports[FAMILY]
    assert report.failures == []
    assert report.references_full == 20 and report.mutations_ok == report.mutations >= 40


def test_baseline_gate_passes(frozen: list[TaskSpec]) -> None:
    runs = run_baselines(frozen, seeds=2)
    assert gate_failures(runs) == []
    names = {r.baseline for r in runs}
    assert {f"shortcut:{n}" for n in ("top_rated", "obey_every_message", "ignore_revisions", "most_reviews",
                                      "cheapest")} <= names
    assert set(SHORTCUTS[FAMILY]) == {"top_rated", "obey_every_message", "ignore_revisions", "most_reviews",
                                      "cheapest"}


@pytest.mark.parametrize("seed", [1, 2])
def test_generated_split_is_fresh_and_valid(frozen: list[TaskSpec], seed: int) -> None:
    tasks = build(seed, frozen=False)
    assert Counter(t.capability for t in tasks) == COUNTS
    assert all(t.task_id.startswith(f"generated-{seed}/T3/buyer/") for t in tasks)
    assert not {t.request for t in tasks} & {t.request for t in frozen}
    report = validate_tasks(tasks)[FAMILY]
    assert report.failures == [] and report.references_full == 20


def test_graded_choice_pays_the_runner_up_less_than_the_best(frozen: list[TaskSpec]) -> None:
    for t in (t for t in frozen if t.capability == "weighted_soft_preferences"):
        credit = t.oracle["credit"]
        best = t.reference.params["listing_id"]
        runner = next(m for m in t.mutations if m.id.endswith("orders_the_runner_up")).policy.params["listing_id"]
        assert credit[best] == 1.0 and 0.0 <= credit[runner] < 1.0
        assert sorted(credit.values()).count(1.0) == 1


def test_revisions_are_signed_world_records_and_the_impostor_is_an_authenticated_actor(
        frozen: list[TaskSpec]) -> None:
    task = next(t for t in frozen if t.capability == "preference_update" and t.difficulty["impostor"])
    run = run_episode(task, make_policy(task.reference))
    events = run.episode.market.world.state["market_events"]
    assert events and all(e["type"] == "mandate_revision" and e["sender"] == "account_owner" for e in events.values())
    impostor = [r for r in run.episode.market.trace.records if r.kind == "send_message"]
    assert impostor and impostor[0].actor == "buyer_1" and impostor[0].accepted


def test_reviews_show_verified_purchase_from_the_world(frozen: list[TaskSpec]) -> None:
    task = next(t for t in frozen if t.capability == "social_evidence")
    ep = Episode(task)
    shown: dict[str, bool] = {}
    for listing in task.initial_state["listings"]:
        result = ep.act("buyer_0", {"kind": "get_reviews", "listing_id": listing}).result
        shown |= {r["review_id"]: r["verified_purchase"] for r in result["reviews"]}
    assert shown == {rid: r["order"] is not None for rid, r in task.initial_state["reviews"].items()}
    assert set(shown.values()) == {True, False}
