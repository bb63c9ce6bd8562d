"""``ScoreInput.engaged_in``: the guards' engagement test, stopping at the first accepted proposal found.

It must say exactly what the list of engaging records (:func:`~acworld_env.scoring.kinds_trade.engaged`)
says, for every actor and kind set of real traces, and a tracked input (incremental scoring) must note
it as a read of that actor's records only.
"""

from __future__ import annotations

from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy
from acworld_env.scoring.incremental import TrackedInput
from acworld_env.scoring.kinds import ScoreInput
from acworld_env.scoring.kinds_trade import engaged
from acworld_env.tasks.suites import load_suite

TASKS = load_suite("capability-v1")


def test_engaged_in_agrees_with_the_engaging_records_on_every_prefix() -> None:
    checked = engaged_true = 0
    for task in TASKS[::10]:
        result = run_episode(task, make_policy(task.reference), seed=0)
        records, state = result.episode.market.trace.records, result.episode.market.world.state
        kinds_seen = sorted({r.kind for r in records if r.kind})
        kind_sets = [[k] for k in kinds_seen] + [kinds_seen, ["no_such_kind"], []]
        actors = sorted({r.actor for r in records}) + ["nobody"]
        for end in range(len(records) + 1):
            si = ScoreInput(task, records[:end], state)
            for actor in actors:
                for kinds in kind_sets:
                    want = bool(engaged(si, actor, kinds))
                    assert si.engaged_in(actor, kinds) is want, (task.task_id, end, actor, kinds)
                    checked += 1
                    engaged_true += want
    assert checked > 1000 and 0 < engaged_true < checked


def test_a_tracked_input_notes_engaged_in_and_actions_as_reads_of_one_actor() -> None:
    task = TASKS[0]
    records = run_episode(task, make_policy(task.reference), seed=0).episode.market.trace.records
    si = TrackedInput(task, records, {})
    si.engaged_in(task.actor, ["get_inbox"])
    si.actions("someone_else", "get_inbox")
    assert si.reads == {"actors": {task.actor, "someone_else"}}
