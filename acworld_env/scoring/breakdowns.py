"""Breakdowns of saved runs by family: restricted-view collisions and where credit was lost.

* **Collisions by family** (the paper's Table 9): among runs *without* full credit (the
  denominator), how many project under a weaker view (same final state, same last public
  action, same public action sequence) onto a full-credit run of the same task.
* **Lost credit, partial and zero** (the paper's Table 12): each run without full credit
  counted under its dominant loss group, split into partial-credit and zero-credit runs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from rich.table import Table

from .analysis import RunAnalysis
from .score import LOSS_GROUPS

COLLISION_VIEWS = (("final_state", "same final state"), ("final_action", "same last action"),
                   ("public_sequence", "same action sequence"))
LOSS_COLUMNS = (*LOSS_GROUPS, "Mixed")


@dataclass(frozen=True)
class FamilyCollisions:
    """One family: runs without full credit, and how many collide under each restricted view."""

    family: str
    incomplete: int
    hits: dict[str, int]


def collisions_by_family(runs: Sequence[RunAnalysis]) -> list[FamilyCollisions]:
    """Per family and overall: incomplete runs that a weaker view could not tell from full credit."""
    valid = [r for r in runs if r.valid]
    passing: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in valid:
        if r.full_credit:
            for view, _ in COLLISION_VIEWS:
                passing[(view, r.task_id)].add(r.views[view])
    families: dict[str, list[RunAnalysis]] = defaultdict(list)
    for r in valid:
        if not r.full_credit:
            families[r.family].append(r)

    def row(name: str, members: list[RunAnalysis]) -> FamilyCollisions:
        hits = {v: sum(1 for r in members if r.views[v] in passing[(v, r.task_id)]) for v, _ in COLLISION_VIEWS}
        return FamilyCollisions(name, len(members), hits)

    rows = [row(f, m) for f, m in sorted(families.items())]
    rows.append(row("all", [r for m in families.values() for r in m]))
    return rows


def collisions_by_family_table(rows: Sequence[FamilyCollisions]) -> Table:
    """Rich table of :func:`collisions_by_family`, with the overall rate over incomplete runs."""
    table = Table(title="Failing runs a weaker checker would pass, by family",
                  caption="of the runs without full credit: those whose view equals a full-credit run's of the "
                  "same task; the full trace never collides")
    table.add_column("family", no_wrap=True)
    table.add_column("without full credit", justify="right")
    for _, label in COLLISION_VIEWS:
        table.add_column(label, justify="right")
    for r in rows:
        table.add_row(r.family, str(r.incomplete), *(str(r.hits[v]) for v, _ in COLLISION_VIEWS))
    total = rows[-1] if rows else None
    if total and total.incomplete:
        table.add_row("rate (%)", "100.0", *(f"{100 * total.hits[v] / total.incomplete:.1f}" for v, _ in
                                              COLLISION_VIEWS))
    return table


def loss_split(runs: Sequence[RunAnalysis]) -> dict[str, dict[str, tuple[int, int]]]:
    """Per group: for each loss group, (partial-credit runs, zero-credit runs) among runs without full credit."""
    out: dict[str, dict[str, tuple[int, int]]] = {}
    groups: dict[str, list[RunAnalysis]] = defaultdict(list)
    for r in runs:
        if r.valid and not r.full_credit:
            groups[r.group].append(r)
    for name, members in sorted(groups.items()):
        partial = Counter(r.loss_group or "Mixed" for r in members if r.score > 0)
        zero = Counter(r.loss_group or "Mixed" for r in members if r.score == 0)
        out[name] = {g: (partial.get(g, 0), zero.get(g, 0)) for g in LOSS_COLUMNS}
    return out


def loss_split_table(split: dict[str, dict[str, tuple[int, int]]]) -> Table:
    """Rich table of :func:`loss_split`: partial/zero counts per dominant loss group."""
    table = Table(title="Where credit was lost: dominant loss group of each run without full credit",
                  caption="each cell: partial-credit runs / zero-credit runs; Mixed: an exact tie in missing weight")
    table.add_column("group", no_wrap=True)
    for g in (*LOSS_COLUMNS, "total"):
        table.add_column(g, justify="right")
    for name, cells in split.items():
        total = (sum(p for p, _ in cells.values()), sum(z for _, z in cells.values()))
        table.add_row(name, *(f"{p}/{z}" for p, z in cells.values()), f"{total[0]}/{total[1]}")
    return table
