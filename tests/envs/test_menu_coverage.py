"""Menu coverage: the reference replayed slot by slot names what the menu cannot express."""

from __future__ import annotations

from acworld_env.tasks.suites import load_suite
from acworld_env.wrappers.menu_coverage import menu_coverage, task_coverage

FROZEN = load_suite("capability-v1", "frozen", 0)


def test_a_task_whose_every_reference_step_has_a_slot_is_covered_at_the_reference_score():
    t10 = [t for t in FROZEN if t.family == "T10_timing"]
    covered = [c for c in (task_coverage(t) for t in t10) if c.covered]
    assert covered, "some T10 reference is expressible through the menu"
    for c in covered:
        assert c.missing is None and c.expressed == c.steps > 0 and c.score == c.reference_score == 1.0


def test_a_missing_slot_is_named_and_the_task_is_not_covered():
    t1 = next(t for t in FROZEN if t.family == "T1_discovery")
    c = task_coverage(t1)
    assert not c.covered and c.missing == "search_listings" and c.expressed == 0


def test_the_report_counts_each_family():
    sample = [t for fam in ("T1_discovery", "T10_timing") for t in FROZEN if t.family == fam][::5]
    report = menu_coverage(sample).by_family()
    assert set(report) == {"T1_discovery", "T10_timing"}
    for row in report.values():
        assert row["tasks"] == 4 and 0 <= row["covered"] <= 4 and row["share"] == round(row["covered"] / 4, 3)
    assert report["T1_discovery"]["missing"] == {"search_listings": 4}
