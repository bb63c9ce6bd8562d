"""Menu coverage: the reference replayed slot by slot names what the menu cannot express."""

from __future__ import annotations

from acworld_env.tasks.suites import load_suite
from acworld_env.wrappers import menu_coverage as mc
from acworld_env.wrappers import menu_replay
from acworld_env.wrappers.menu_coverage import menu_coverage, task_coverage

FROZEN = load_suite("capability-v1", "frozen", 0)


def _task(suffix: str):
    return next(t for t in FROZEN if t.task_id.endswith(suffix))


def test_a_task_whose_every_reference_step_has_a_slot_is_covered_at_the_reference_score():
    t10 = [t for t in FROZEN if t.family == "T10_timing"]
    covered = [c for c in (task_coverage(t) for t in t10) if c.covered]
    assert covered, "some T10 reference is expressible through the menu"
    for c in covered:
        assert c.missing is None and c.expressed == c.steps > 0 and c.score == c.reference_score == 1.0
        assert c.lookups == []


def test_a_missing_slot_is_named_and_the_task_is_not_covered(monkeypatch):
    real = mc.menu_actions

    def without_finish(known):
        return [None if a is not None and a.get("kind") == "finish" else a for a in real(known)]

    monkeypatch.setattr(mc, "menu_actions", without_finish)
    monkeypatch.setattr(menu_replay, "menu_actions", without_finish)
    task = next(t for t in FROZEN if t.family == "T10_timing")
    c = task_coverage(task)
    assert not c.covered and c.missing == "finish" and c.why == "no_slot" and c.expressed == c.steps - 1
    assert c.lookups == []  # no read makes a finish slot appear


def test_a_reference_acting_on_an_id_it_never_read_is_covered_after_a_lookup_the_hook_sees():
    # The reference refunds the payment of the order it cannot fill without reading that order first.
    task = _task("T6/merchant/merchant_competing_commitment/01")
    seen: list[str] = []
    c = task_coverage(task, on_step=lambda env, agent, actions, i: seen.append(actions[i]["kind"]))
    assert c.covered and c.lookups == ["get_order"] and c.score == c.reference_score
    assert len(seen) == c.expressed + len(c.lookups) and seen.count("get_order") == 1
    assert seen.index("get_order") == seen.index("issue_refund") - 1


def test_a_record_two_reads_away_is_looked_up_by_listing_then_reading():
    # The overcharged order is one of the shop's history: list the orders, read the right one, refund it.
    task = _task("T8/merchant/merchant_reputation_recovery/01")
    c = task_coverage(task)
    assert c.covered and c.lookups == ["list_orders", "get_order"]


def test_no_lookup_is_inserted_when_the_search_has_no_budget(monkeypatch):
    monkeypatch.setattr(menu_replay, "MAX_SIMULATIONS", 0)
    task = _task("T6/merchant/merchant_competing_commitment/01")
    c = task_coverage(task)
    assert not c.covered and c.lookups == [] and c.missing == "issue_refund" and c.why == "unseen_id"


def test_lookups_are_deterministic():
    task = _task("T7/buyer/buyer_dispute/02")
    first, second = task_coverage(task), task_coverage(task)
    assert first.covered and first.lookups and first.lookups == second.lookups and first.score == second.score


def test_the_report_counts_each_family():
    sample = [t for fam in ("T6_inventory", "T10_timing") for t in FROZEN if t.family == fam][::5]
    report = menu_coverage(sample).by_family()
    assert set(report) == {"T6_inventory", "T10_timing"}
    for row in report.values():
        assert row["tasks"] == 4 and 0 <= row["covered"] <= 4 and row["share"] == round(row["covered"] / 4, 3)
        assert row["lookups"] == sum(row["lookup_kinds"].values()) >= row["tasks_with_lookups"]
    assert report["T10_timing"]["lookups"] == 0 and report["T6_inventory"]["lookup_kinds"].get("get_order", 0) >= 1
