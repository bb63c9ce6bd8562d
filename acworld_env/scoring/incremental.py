"""Incremental scoring of a live episode: each step re-evaluates only the predicates whose inputs changed.

A predicate is a pure function of the task, its parameters, the trace records and the World
state. :class:`IncrementalScorer` hands each predicate a :class:`TrackedInput` that notes what the
evaluation read: the whole trace (``records``), only some actors' proposals (``by``,
``actions``), the World state (``state``). At the next step a predicate is evaluated again only
if something it read changed: a new record (of an actor it read, when it read only some), or a
new commit when it read the state. Otherwise its previous credit and evidence stand: a pure
function given the same inputs returns the same result, whichever branch it took, because the
branch itself depended only on what it read.

The final score is byte-identical to :func:`~acworld_env.scoring.score.score_trace` over the
same trace and state (``tests/scoring/test_incremental.py`` checks every step of every frozen
task's reference and mutations).

Measured (issue 19): on ``capability-v1`` it skips 21 % of predicate evaluations (a predicate
that reads the acting agent's records, or the World state after a commit, is evaluated again, and
most do). Replaying every step's scoring of a reference pass (200 tasks, 1,452 scorings, CPU time,
minimum of 9): the full rescore takes 56 ms, this scorer 63 ms. Finer reads were tried and also
measured: noting ``actions(actor, kind)`` per kind raises the skip rate to 24 %, noting which
World tables were read (against the tables each new commit's delta touched) to 35 %; but
predicate evaluation is only ~25 us of the ~39 us a step's scoring costs (the rest is the input,
the loop and the score's assembly), so skipping a third would save ~8 us of a ~450 us env step,
about what the bookkeeping costs (the coarse version above is already slower than a full rescore).
:class:`~acworld_env.scoring.reward.PotentialReward` therefore keeps the plain ``score_trace``.

Measured again in the training loop itself (issue 32; ``benchmarks/bench_env.py``'s episode loop, reference
policies, 2-core box at load 2-4): this scorer inside ``PotentialReward``, A/B interleaved in one process,
best of 5, was 5.5 % slower on the frozen suite and 0.8 % on generated seed 1. The ceiling of any such skip:
timing every predicate evaluation of a pass and summing those this scorer would skip gives 9.1 ms of 67 ms
of predicate time on the frozen suite (1,105 of 5,334 evaluations) and 7.9 of 56 ms on generated seed 1,
about 1.5 % of the loop before any bookkeeping: what remains of scoring is the predicates' own walks over
the records the acting agent just extended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.taskspec import TaskSpec
from ..trace import TraceRecord, as_records
from .kinds import KINDS, ScoreInput
from .score import Score, assemble

ALL = None
"""A read of every actor's records (``si.records``)."""


class TrackedInput(ScoreInput):
    """A :class:`ScoreInput` that notes what a predicate read (see the module docstring).

    ``reads`` gets ``"records"`` (the whole trace was read), ``"actors"`` (the set of actors whose
    proposals were read through :meth:`by`, :meth:`actions` or :meth:`engaged_in`) and ``"state"``.
    """

    def __init__(self, task: TaskSpec, records: list[TraceRecord], state: dict[str, Any]) -> None:
        object.__setattr__(self, "task", task)
        object.__setattr__(self, "_records", as_records(records))
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "reads", {})

    @property  # type: ignore[override]
    def records(self) -> list[TraceRecord]:
        """Every record (noted as a read of the whole trace)."""
        self.reads["records"] = ALL
        return self._records

    @property  # type: ignore[override]
    def state(self) -> dict[str, Any]:
        """The World state (noted as a read of the state)."""
        self.reads["state"] = ALL
        return self._state

    def _own(self, actor: str) -> list[TraceRecord]:
        """Records of one actor's own proposals (noted as a read of that actor's records only); every
        per-actor read of :class:`ScoreInput` (``by``, ``actions``, ``engaged_in``) goes through here."""
        self.reads.setdefault("actors", set()).add(actor)
        return [r for r in self._records if r.actor == actor]


@dataclass
class _Cached:
    credit: float
    evidence: Any
    reads: dict[str, Any]


class IncrementalScorer:
    """Scores successive, growing prefixes of one episode's trace (see the module docstring).

    Call :meth:`score` with the episode's records (the same list object, only ever appended to),
    its live World state and the World's commit count. A trace that shrank or was replaced, or a
    state changed by anything but new commits, is rescored in full.
    """

    def __init__(self, task: TaskSpec, *, weights: str = "task") -> None:
        self.task = task
        self.weights = weights
        self._cache: dict[str, _Cached] = {}
        self._seen = 0
        self._commits = -1
        self._records: list[TraceRecord] | None = None
        self._state: dict[str, Any] | None = None
        self.evaluated = 0
        """Predicate evaluations done so far (for benchmarks and tests)."""

    def score(self, records: list[TraceRecord], state: dict[str, Any], commits: int) -> Score:
        """The score of ``records`` and ``state`` now, equal to ``score_trace(task, records, state)``."""
        if records is not self._records or state is not self._state or len(records) < self._seen \
                or commits < self._commits:  # another episode, or history rewritten: start over
            self._cache.clear()
            self._seen, self._commits = 0, -1
            self._records, self._state = records, state
        new = records[self._seen:]
        fresh_actors = {r.actor for r in new}
        state_changed = commits != self._commits
        credits: dict[str, float] = {}
        evidence: dict[str, Any] = {}
        si: TrackedInput | None = None
        for pred in self.task.predicates:
            cached = self._cache.get(pred.id)
            if cached is None or _stale(cached.reads, fresh_actors, state_changed):
                si = si or TrackedInput(self.task, records, state)
                reads = si.reads
                reads.clear()
                credit, ev = KINDS[pred.kind](si, pred.params)
                cached = self._cache[pred.id] = _Cached(round(float(credit), 12), ev, dict(reads))
                self.evaluated += 1
            credits[pred.id] = cached.credit
            evidence[pred.id] = cached.evidence
        self._seen, self._commits = len(records), commits
        return assemble(self.task, credits, evidence, weights=self.weights)


def _stale(reads: dict[str, Any], fresh_actors: set[str], state_changed: bool) -> bool:
    if state_changed and "state" in reads:
        return True
    if not fresh_actors:
        return False
    if "records" in reads:
        return True
    return bool(reads.get("actors", set()) & fresh_actors)
