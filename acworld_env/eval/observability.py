"""Which designed errors each information view can see (the paper's Table 11).

Every task's mutations are wrong decisions with a known place. Each mutation episode and the
task's reference episode are projected to the restricted views (last public action, public
action sequence, final World state) and to the full trace; a mutation is *observable* under a
view when its projection differs from the reference's. The full trace sees every mutation by
construction (the score is a function of it); the table shows what the weaker views miss.
No model is called.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.table import Table

from ..policies.make import make_policy
from ..scoring.analysis import project_records
from ..tasks.spec import TaskSpec
from .rollout import run_episode

OBSERVABILITY_VIEWS = (("final_action", "last action"), ("public_sequence", "action sequence"),
                       ("final_state", "final state"), ("full_trace", "full trace"))


@dataclass
class FamilyObservability:
    """One family: how many mutations, and how many each view distinguishes from the reference."""

    family: str
    mutations: int = 0
    seen: dict[str, int] = field(default_factory=lambda: {v: 0 for v, _ in OBSERVABILITY_VIEWS})
    missed: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


def _views(task: TaskSpec, policy: object) -> dict[str, str]:
    ep = run_episode(task, policy).episode
    return project_records(ep.market.trace.records, task.actor, ep.market.world.state_digest())


def mutation_observability(tasks: Sequence[TaskSpec]) -> list[FamilyObservability]:
    """Per family and overall: mutations observable under each view."""
    fams: dict[str, FamilyObservability] = {}
    for task in tasks:
        if not task.mutations:
            continue
        ref = _views(task, make_policy(task.reference))
        row = fams.setdefault(task.family, FamilyObservability(task.family))
        for mut in task.mutations:
            seen = _views(task, make_policy(mut.policy))
            row.mutations += 1
            for view, _ in OBSERVABILITY_VIEWS:
                if seen[view] != ref[view]:
                    row.seen[view] += 1
                else:
                    row.missed[view].append(mut.id)
    rows = [fams[f] for f in sorted(fams)]
    total = FamilyObservability("all", sum(r.mutations for r in rows))
    for r in rows:
        for view, _ in OBSERVABILITY_VIEWS:
            total.seen[view] += r.seen[view]
            total.missed[view].extend(r.missed[view])
    return [*rows, total]


def observability_table(rows: Sequence[FamilyObservability]) -> Table:
    """Rich table of :func:`mutation_observability`."""
    table = Table(title="Designed errors each view can see: mutations that differ from the reference",
                  caption="a view that misses a mutation would score that wrong decision as correct")
    table.add_column("family", no_wrap=True)
    table.add_column("mutations", justify="right")
    for _, label in OBSERVABILITY_VIEWS:
        table.add_column(label, justify="right")
    for r in rows:
        table.add_row(r.family, str(r.mutations), *(str(r.seen[v]) for v, _ in OBSERVABILITY_VIEWS))
    return table
