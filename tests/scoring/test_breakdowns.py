"""Breakdowns by family: collisions over runs without full credit, loss split, and mutation observability."""

from __future__ import annotations

from pathlib import Path

from acworld_env.eval.observability import mutation_observability
from acworld_env.scoring.analysis import RunAnalysis
from acworld_env.scoring.breakdowns import collisions_by_family, loss_split
from acworld_env.tasks.suites import load_suite


def run(task: str, family: str, score: float, views: dict[str, str], *, full: bool = False, loss: str | None = None,
        group: str = "g") -> RunAnalysis:
    return RunAnalysis(Path(task), group, task, True, "", score, score, full, full, views, family, loss)


def views(state: str, last: str, seq: str) -> dict[str, str]:
    return {"final_state": state, "final_action": last, "public_sequence": seq, "full_trace": state + last + seq}


def test_collisions_count_only_failing_runs_of_the_same_task_per_family() -> None:
    runs = [
        run("a", "F1", 1.0, views("s", "x", "q"), full=True),
        run("a", "F1", 0.5, views("s", "y", "r")),          # same final state only
        run("a", "F1", 0.2, views("t", "x", "q")),          # same last action and sequence
        run("b", "F2", 0.4, views("s", "x", "q")),          # same views as task a's pass, but another task
        run("b", "F2", 1.0, views("u", "z", "w"), full=True),
    ]
    rows = {r.family: r for r in collisions_by_family(runs)}
    assert rows["F1"].incomplete == 2 and rows["F1"].hits == {"final_state": 1, "final_action": 1,
                                                              "public_sequence": 1}
    assert rows["F2"].incomplete == 1 and sum(rows["F2"].hits.values()) == 0
    assert rows["all"].incomplete == 3 and rows["all"].hits["final_state"] == 1


def test_loss_split_separates_partial_and_zero_and_skips_full_credit() -> None:
    runs = [run("a", "F", 0.5, {}, loss="Choice"), run("b", "F", 0.0, {}, loss="Choice"),
            run("c", "F", 0.0, {}, loss=None), run("d", "F", 1.0, {}, full=True, loss=None)]
    split = loss_split(runs)["g"]
    assert split["Choice"] == (1, 1) and split["Mixed"] == (0, 1) and split["Evidence"] == (0, 0)


def test_every_mutation_is_visible_in_the_full_trace_and_answers_leave_no_state() -> None:
    tasks = [t for t in load_suite("capability-v1") if t.family == "T1_discovery"][:6]
    rows = {r.family: r for r in mutation_observability(tasks)}
    t1 = rows["T1_discovery"]
    assert t1.mutations == sum(len(t.mutations) for t in tasks) > 0
    assert t1.seen["full_trace"] == t1.mutations
    assert t1.seen["final_state"] == 0  # an answer is a decision, not a commit: the state cannot see it
    assert len(t1.missed["final_state"]) == t1.mutations
