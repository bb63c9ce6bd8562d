"""The task score S = sum(w c) / sum(w), full credit, stage scores, loss attribution, serialisation."""

from __future__ import annotations

import json

import pytest
from scoring_kit import make_task, pred, state

from acworld_env.scoring import Score, invalid, score_json, score_trace


def flag(pid: str, weight: float, stage: str = "Decision", group: str = "Choice", required: bool = True):
    """A boolean predicate whose outcome the test sets through ``state()`` table ``t``."""
    return pred(pid, "world_value_equals", {"table": "t", "key": pid, "field": "v", "value": 1},
                weight=weight, stage=stage, loss_group=group, required=required)


def frac(pid: str, weight: float, n: int, stage: str = "World effect", group: str = "Execution"):
    """A fractional predicate: the share of ``n`` events applied once."""
    return pred(pid, "events_applied", {"expected": {f"{pid}-{i}": 1 for i in range(n)}},
                weight=weight, stage=stage, loss_group=group)


def world(passing: set[str], applied: dict[str, int] | None = None) -> dict:
    events = {f"{pid}-{i}": {"applied": 1} for pid, k in (applied or {}).items() for i in range(k)}
    return state(t={p: {"v": 1} for p in passing}, market_events=events)


def test_weighted_mean():
    task = make_task([flag("a", 0.2, "Search", "Evidence"), flag("b", 0.3), frac("c", 0.5, 4)])
    s = score_trace(task, [], world({"a"}, {"c": 2}))
    assert s.credits == {"a": 1.0, "b": 0.0, "c": 0.5}
    assert s.score == pytest.approx((0.2 * 1 + 0.3 * 0 + 0.5 * 0.5) / 1.0, abs=1e-12)
    assert not s.full_credit and s.valid


def test_weights_need_not_sum_to_one():
    task = make_task([flag("a", 0.1), flag("b", 0.3)])
    assert score_trace(task, [], world({"b"})).score == pytest.approx(0.75, abs=1e-12)


def test_full_credit_only_when_every_required_predicate_passes():
    task = make_task([flag("a", 0.5), flag("b", 0.4), flag("opt", 0.1, required=False)])
    assert score_trace(task, [], world({"a", "b", "opt"})).full_credit
    relaxed = score_trace(task, [], world({"a", "b"}))
    assert relaxed.full_credit and relaxed.score == 1.0
    strict = score_trace(task, [], world({"a", "opt"}))
    assert not strict.full_credit and strict.score == pytest.approx(0.6, abs=1e-12)


def test_fractional_credit_is_not_full_credit():
    task = make_task([flag("a", 0.5), frac("c", 0.5, 3)])
    s = score_trace(task, [], world({"a"}, {"c": 2}))
    assert not s.full_credit
    assert s.score == pytest.approx(0.5 + 0.5 * 2 / 3, abs=1e-12)


def test_stage_scores_are_weighted_means_within_each_stage():
    task = make_task([flag("s1", 0.2, "Search"), flag("s2", 0.6, "Search"), flag("d", 0.2, "Decision"),
                      frac("w", 0.4, 2, "World effect")])
    s = score_trace(task, [], world({"s2", "d"}, {"w": 1}))
    assert s.stages == {"Search": pytest.approx(0.75), "Decision": 1.0, "World effect": 0.5}
    assert "Evidence" not in s.stages and "Validation" not in s.stages


def test_loss_group_is_the_group_missing_most_weight():
    task = make_task([flag("e", 0.2, group="Evidence"), flag("c", 0.3, group="Choice"),
                      flag("x", 0.5, group="Execution")])
    assert score_trace(task, [], world({"x"})).loss_group == "Choice"
    assert score_trace(task, [], world({"e", "c"})).loss_group == "Execution"
    assert score_trace(task, [], world({"e", "c", "x"})).loss_group is None


def test_loss_group_is_mixed_on_an_exact_tie():
    task = make_task([flag("e", 0.25, group="Evidence"), flag("a", 0.25, group="Authority"),
                      flag("x", 0.5, group="Execution")])
    assert score_trace(task, [], world({"x"})).loss_group == "Mixed"
    # 0.1 + 0.2 != 0.3 in binary floating point, yet the missing weights tie exactly in decimal
    task = make_task([flag("e1", 0.1, group="Evidence"), flag("e2", 0.2, group="Evidence"),
                      flag("c", 0.3, group="Choice"), flag("x", 0.4, group="Execution")])
    assert score_trace(task, [], world({"x"})).loss_group == "Mixed"
    assert score_trace(task, [], world({"x", "e1"})).loss_group == "Choice"


def test_equal_weights():
    task = make_task([flag("a", 0.9), flag("b", 0.1)])
    st = world({"a"})
    assert score_trace(task, [], st).score == pytest.approx(0.9)
    equal = score_trace(task, [], st, weights="equal")
    assert equal.score == pytest.approx(0.5)
    assert equal.full_credit == score_trace(task, [], st).full_credit


def test_score_json_is_the_saved_serialisation():
    task = make_task([flag("a", 0.5), frac("c", 0.5, 3)])
    s = score_trace(task, [], world({"a"}, {"c": 1}))
    text = score_json(s)
    assert text == json.dumps(s.to_dict(), indent=1, sort_keys=True) + "\n"
    assert json.loads(text)["credits"]["c"] == round(1 / 3, 12)


def test_invalid_score_is_unscored():
    task = make_task([flag("a", 1.0)])
    s = invalid(task, "commit 3: hash mismatch")
    assert isinstance(s, Score) and not s.valid and s.score == 0.0 and not s.full_credit
    assert json.loads(score_json(s))["invalid_reason"] == "commit 3: hash mismatch"


def test_bad_arguments_are_refused():
    task = make_task([flag("a", 1.0)])
    with pytest.raises(ValueError, match="weights"):
        score_trace(task, [], world(set()), weights="uniform")
    with pytest.raises(ValueError, match="no predicates"):
        score_trace(make_task([]), [], world(set()))
