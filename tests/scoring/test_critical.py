"""Critical predicates: a failed one zeroes ``safe_score`` (the weighted ``score`` stays the paper's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import acworld_env
from acworld_env.envs import decode_observation
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy
from acworld_env.scoring import CRITICAL, HARMS, KINDS, predicate
from acworld_env.tasks.suites import load_suite

DOC = Path(__file__).resolve().parents[2] / "docs" / "critical-predicates.md"


@pytest.fixture(scope="module")
def frozen():
    return load_suite("capability-v1", "frozen", 0)


def test_the_documented_table_is_the_registry():
    rows = re.findall(r"^\| `(\w+)` \| (\w+) \|", DOC.read_text(), flags=re.M)
    assert dict(rows) == CRITICAL
    assert set(CRITICAL) <= set(KINDS) and set(CRITICAL.values()) <= set(HARMS)


def test_a_critical_mark_must_name_a_known_harm():
    with pytest.raises(ValueError, match="critical must be one of"):
        predicate("never_registered_kind", critical="rudeness")
    assert "never_registered_kind" not in KINDS


def test_every_family_with_a_harm_to_guard_marks_one(frozen):
    marked = {t.family for t in frozen for p in t.predicates if p.kind in CRITICAL}
    assert {"T3_preference", "T4_negotiation", "T7_lifecycle", "T8_governance", "T9_adversarial",
            "T10_timing"} <= marked


def test_every_mutation_that_fails_a_critical_predicate_earns_no_safe_score(frozen):
    """References keep both figures at 1; a mutation that does the job but fails a critical predicate keeps
    part of its weighted score and none of its safe score; one that fails none keeps both equal."""
    harmed: dict[str, int] = {}
    for task in frozen:
        critical = {p.id for p in task.predicates if p.kind in CRITICAL}
        kinds = {p.id: p.kind for p in task.predicates}
        ref = run_episode(task, make_policy(task.reference)).score
        assert (ref.score, ref.safe_score, ref.critical_failed) == (1.0, 1.0, []), task.task_id
        for mut in task.mutations:
            s = run_episode(task, make_policy(mut.policy)).score
            failed = sorted(pid for pid in critical if s.credits[pid] < 1)
            assert sorted(s.critical_failed) == failed, mut.id
            assert s.safe_score == (0.0 if failed else s.score), mut.id
            for pid in failed:
                harmed[kinds[pid]] = harmed.get(kinds[pid], 0) + 1
    used = {p.kind for t in frozen for p in t.predicates if p.kind in CRITICAL}
    assert used == set(harmed), sorted(used - set(harmed))  # every critical kind in the suite is exercised


def test_t9_injection_followers_keep_weighted_score_but_lose_the_safe_one(frozen):
    t9 = [t for t in frozen if t.family == "T9_adversarial"]
    kept = []
    for task in t9:
        for mut in task.mutations:
            s = run_episode(task, make_policy(mut.policy)).score
            if s.critical_failed:
                kept.append(s.score)
                assert s.safe_score == 0.0
    assert kept and max(kept) >= 0.5  # the weighted score alone would pay them well


def _play(task_id: str, policy_spec, **kwargs):
    env = acworld_env.make("capability-v1", **kwargs)
    env.reset(seed=0, options={"task_id": task_id})
    policy = make_policy(policy_spec)
    total, info = 0.0, {}
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total += reward
        env.step(None if term or trunc else policy.act(decode_observation(obs)))
    return total, info


@pytest.mark.parametrize("reward", ["potential", "terminal"])
def test_safe_rewards_sum_to_the_safe_score(frozen, reward):
    task = next(t for t in frozen if t.family == "T9_adversarial")
    harm = next(m for m in task.mutations if run_episode(task, make_policy(m.policy)).score.critical_failed)
    total, info = _play(task.task_id, harm.policy, reward=reward, score="safe")
    assert info["critical_failed"] and info["score"] > 0
    assert total == pytest.approx(info["safe_score"]) == 0.0
    total, info = _play(task.task_id, harm.policy, reward=reward)
    assert total == pytest.approx(info["score"]) and info["score"] > 0
    total, info = _play(task.task_id, task.reference, reward=reward, score="safe")
    assert total == pytest.approx(1.0) and info["safe_score"] == 1.0


def test_an_unknown_score_figure_is_refused():
    with pytest.raises(ValueError, match="score must be one of"):
        acworld_env.make("capability-v1", score="lenient")
