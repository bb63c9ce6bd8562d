"""The capability-v1 suite: frozen file identity, the validity gate, requests, generated splits."""

from __future__ import annotations

import re

import pytest

from acworld_env.eval.validate import predicate_stats, validate_tasks
from acworld_env.tasks.freeze import frozen_text
from acworld_env.tasks.frozen import frozen_path, load_frozen
from acworld_env.tasks.suites import load_suite

INTERNAL = re.compile(r"max_unit_price|min_unit_price|predicate|classify_event|authorize_payment|"
                      r"issue_refund|submit_answer|_id\b|verdict|oracle", re.I)


def test_frozen_file_is_regenerated_byte_for_byte():
    assert frozen_path("capability-v1").read_text(encoding="utf-8") == frozen_text()


def test_frozen_suite_loads_unique_tasks_with_paper_counts():
    tasks = load_suite("capability-v1")
    assert len({t.task_id for t in tasks}) == len(tasks)
    counts: dict[tuple[str, str, str], int] = {}
    for t in tasks:
        counts[(t.family, t.role, t.capability)] = counts.get((t.family, t.role, t.capability), 0) + 1
    assert counts[("T4_negotiation", "buyer", "zopa")] == 3
    assert counts[("T4_negotiation", "merchant", "deadline")] == 1
    assert counts[("T10_timing", "merchant", "duplicate_refund")] == 3
    assert counts[("T10_timing", "buyer", "stale_certificate")] == 2
    assert sum(1 for t in tasks if t.family == "T4_negotiation") == 20
    assert sum(1 for t in tasks if t.family == "T10_timing") == 20


def test_validity_gate_passes_on_frozen_suite(frozen_reports):
    tasks = load_frozen("capability-v1")
    reports = frozen_reports.all()
    assert len(reports) == 10
    for fam, rep in reports.items():
        assert rep.failures == [], fam
        assert rep.references_full == rep.tasks
        assert rep.mutations_ok == rep.mutations >= rep.tasks
        assert rep.traces_verified == rep.rescored_identical == rep.tasks + rep.mutations
    stats = predicate_stats(tasks)
    assert 0.05 <= stats["min_weight"] <= stats["max_weight"] <= 1.0


@pytest.mark.parametrize("seed", [3, 17])
def test_generated_tasks_are_fresh_and_valid(seed):
    frozen = {t.model_dump_json(exclude={"task_id"}) for t in load_frozen("capability-v1")}
    generated = load_suite("capability-v1", "generated", seed)
    assert all(t.task_id.startswith(f"generated-{seed}/") for t in generated)
    assert not frozen & {t.model_dump_json(exclude={"task_id"}) for t in generated}
    assert load_suite("capability-v1", "generated", seed) == generated  # deterministic
    reports = validate_tasks(generated[::4])
    assert all(rep.failures == [] for rep in reports.values())


def test_requests_read_like_people_not_specs():
    for t in load_frozen("capability-v1"):
        assert not INTERNAL.search(t.request), (t.task_id, INTERNAL.search(t.request))
        assert len(t.request) > 80


def test_mandates_never_reach_the_counterparty_observation():
    from acworld_env.episode import Episode

    for t in load_frozen("capability-v1"):
        if not t.counterparties:
            continue
        ep = Episode(t)
        other = t.counterparties[0].actor
        obs = ep.observe(other)
        assert obs["mandate"] == t.counterparty_mandates.get(other, {})
        for value in t.sealed:
            assert str(value) not in repr(obs["mandate"])
