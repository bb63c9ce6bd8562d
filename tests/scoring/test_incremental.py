"""Incremental scoring equals a full rescore, byte for byte, at every step of every frozen run.

Every frozen ``capability-v1`` task is played by its reference policy and by each of its
mutations; after every step the incremental scorer's ``score.json`` bytes must equal
``score_trace``'s over the same trace and state. A second scorer fed the same episode only at the
end (one full evaluation) must agree too, and cases where the scorer must start over (another
episode's trace, a shorter trace) are checked directly.
"""

from __future__ import annotations

import pytest

from acworld_env.episode import Episode
from acworld_env.eval.rollout import IDLE_ACTION
from acworld_env.policies.make import make_policy
from acworld_env.scoring.incremental import IncrementalScorer
from acworld_env.scoring.score import score_json, score_trace
from acworld_env.tasks.suites import load_suite

TASKS = load_suite("capability-v1")


def _play(task, policy_ref) -> tuple[Episode, int, int]:
    """Play one episode; compare after every step. Returns the episode, steps and evaluations saved."""
    ep = Episode(task, seed=0)
    policy = make_policy(policy_ref)
    policy.reset(0)
    scorer = IncrementalScorer(task)
    actor, steps, skipped = task.actor, 0, 0
    market = ep.market
    while not ep.finished(actor) and not ep.truncated(actor):
        action = policy.act(ep.observe(actor))
        ep.act(actor, IDLE_ACTION if action is None else action)
        before = scorer.evaluated
        fast = scorer.score(market.trace.records, market.world.state, len(market.world.commits))
        skipped += len(task.predicates) - (scorer.evaluated - before)
        full = score_trace(task, market.trace.records, market.world.state)
        assert score_json(fast) == score_json(full), f"{task.task_id}: step {steps + 1} differs"
        steps += 1
    return ep, steps, skipped


def test_every_frozen_reference_and_mutation_scores_identically() -> None:
    episodes = skipped = mutations = 0
    for task in TASKS:
        for ref in [task.reference, *[m.policy for m in task.mutations]]:
            _, _, saved = _play(task, ref)
            episodes += 1
            skipped += saved
        mutations += len(task.mutations)
    assert len(TASKS) == 200 and mutations == 476 and episodes == 676
    assert skipped > 0  # the mechanism does skip predicates whose inputs did not change


def test_a_scorer_restarts_on_another_episode_or_a_shorter_trace() -> None:
    task = TASKS[0]
    ep, steps, _ = _play(task, task.reference)
    assert steps >= 2
    market = ep.market
    scorer = IncrementalScorer(task)
    records, state = market.trace.records, market.world.state
    final = score_json(scorer.score(records, state, len(market.world.commits)))
    assert final == score_json(score_trace(task, records, state))
    short = records[:1]  # another list, shorter: the cache must not answer for it
    assert score_json(scorer.score(short, state, len(market.world.commits))) == \
        score_json(score_trace(task, short, state))
    other, _, _ = _play(task, task.mutations[0].policy) if task.mutations else (ep, 0, 0)
    got = scorer.score(other.market.trace.records, other.market.world.state, len(other.market.world.commits))
    assert score_json(got) == score_json(score_trace(task, other.market.trace.records, other.market.world.state))


@pytest.mark.parametrize("weights", ["equal"])
def test_equal_weights_also_match(weights: str) -> None:
    task = next(t for t in TASKS if len({p.weight for p in t.predicates}) > 1)
    ep, _, _ = _play(task, task.reference)
    m = ep.market
    got = IncrementalScorer(task, weights=weights).score(m.trace.records, m.world.state, len(m.world.commits))
    assert score_json(got) == score_json(score_trace(task, m.trace.records, m.world.state, weights=weights))
