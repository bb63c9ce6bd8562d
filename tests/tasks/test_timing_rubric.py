"""T10 rubric: doing nothing, chance and surface shortcuts earn little; guards pay only once engaged."""

from __future__ import annotations

from typing import Any

import pytest

from acworld_env.eval.baseline_gate import (
    NULL_BASELINES,
    RANDOM_MEAN,
    SHORTCUT_MEAN,
    baseline_table,
    gate_failures,
    run_baselines,
)
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.baselines import shortcuts_for
from acworld_env.policies.make import make_policy
from acworld_env.tasks.families.timing import build

TASKS = build()
GUARDS = {"no_duplicate", "expired_unused", "foreign_untouched"}


@pytest.fixture(scope="module")
def runs() -> dict[str, Any]:
    """Every baseline on every T10 task."""
    return {r.baseline: r for r in run_baselines(TASKS)}


def test_t10_passes_the_baseline_gate(runs: dict[str, Any]) -> None:
    assert gate_failures(list(runs.values())) == []
    header, rows = baseline_table(list(runs.values()))
    assert header == ["baseline", "T10_timing"] and len(rows) == len(runs)


def test_doing_nothing_earns_nothing(runs: dict[str, Any]) -> None:
    for name in NULL_BASELINES:
        assert max(runs[name].scores.values()) == 0.0, name
    assert runs["random"].mean <= RANDOM_MEAN / 2


def test_the_shortcuts_stay_well_below_full_credit(runs: dict[str, Any]) -> None:
    names = set(shortcuts_for("T10_timing"))
    assert {"act_on_every_notice", "classify_apply_and_act", "settle_every_order"} <= names
    for name in names:
        run = runs[f"shortcut:{name}"]
        assert not any(run.full.values()), name
        assert run.mean <= SHORTCUT_MEAN - 0.1, (name, run.mean)
    # uncited effects answer nothing: settling every order without reading the feed earns 0
    assert max(runs["shortcut:settle_every_order"].scores.values()) == 0.0
    # paying every payment notice pays the repeats too
    pay_all = runs["shortcut:act_on_every_notice"]
    assert all(s == 0.0 for t, s in pay_all.scores.items() if "/buyer/duplicate_payment/" in t)


def test_weights_sum_to_one_and_the_reference_earns_full_credit() -> None:
    for task in TASKS:
        assert sum(p.weight for p in task.predicates) == pytest.approx(1.0), task.task_id
        assert run_episode(task, make_policy(task.reference)).score.score == pytest.approx(1.0), task.task_id


class ClassifyOnly:
    """Gives every notice its right verdict and never acts on one."""

    def __init__(self, verdicts: dict[str, str], close: int) -> None:
        self.verdicts, self.close = verdicts, close
        self.queue: list[dict] = []

    def reset(self, seed: int | None = None) -> None:
        self.queue = []

    def act(self, obs: dict[str, Any]) -> dict | None:
        self.queue += [{"kind": "classify_event", "event_id": m["event_id"], "verdict": self.verdicts[m["event_id"]]}
                       for m in obs["inbox"] if m.get("market_event")]
        if self.queue:
            return self.queue.pop(0)
        return {"kind": "finish"} if obs["round"] > self.close else None


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.task_id.split("/T10/")[1])
def test_guards_pay_nothing_to_an_actor_that_never_acts(task) -> None:
    policy = ClassifyOnly(task.oracle["verdicts"], task.mandate["feed_closes_round"])
    score = run_episode(task, policy).score
    assert score.credits["notices_classified"] == 1.0
    assert all(c == 0.0 for p, c in score.credits.items() if p in GUARDS or p.startswith("in_sequence"))
    assert score.score == pytest.approx(0.3)
