"""How much of each task the discrete action menu can express: the reference episode replayed slot by slot.

A learner over :class:`~acworld_env.wrappers.menu.GymActionMenu` can only reach what the menu's
slots express, so the menu's limits are the environment's limits for every non-language learner.
:func:`menu_coverage` measures them: for each task, the task's reference plays the evaluated
actor; at each of its turns the menu is built from what the actor has seen, and the step is
taken with the *slot* whose action equals the reference's (compared as parsed VCP actions, so
key order and defaults do not matter; failing that, of those equal on everything but the wording of
their free-text fields, the one sharing the most words and figures with the reference's wording, the
final score deciding whether the wording mattered). A task is covered when every reference action had a slot
and the menu-played episode reaches the reference's score. Where a step has no slot, the report
names the action kind that was missing (the episode stops there: later steps would not be the
reference's).

The references are oracle scripts: some act on an id or a figure they never looked up (a payment
they refund, the shipment of an order they were told about). Where the reference's next action has
no slot, the replay first takes read-only menu slots (``get_order``, ``get_payment``,
``list_orders``, ``get_ledger``, ``search_listings``, ...: kinds that commit nothing to the World)
that make a slot for it appear, as an agent would look the record up: the shortest such sequence,
first in a fixed order, found by replaying the episode so far with each candidate read
(:func:`~acworld_env.wrappers.menu_replay.lookups`, bounded in depth and in replays). The inserted
reads are counted (``lookups``, per task and per family), the ``on_step`` hook sees them like any
other step, and the task is covered only if the episode with them still reaches the reference's score.

    python -m acworld_env.wrappers.menu_coverage [--split generated --seed 7] [--hints structured]
    python -m acworld_env.wrappers.menu_coverage --baseline baselines/menu_coverage.json
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..envs.candidates import LABELS, menu_actions
from ..envs.known import Known
from .menu_replay import ID, WORDS, as_dict, lookups, new_env, slot_for


@dataclass
class TaskCoverage:
    """One task: whether the menu expressed its reference, and where it did not."""

    task_id: str
    family: str
    steps: int = 0
    expressed: int = 0
    missing: str | None = None
    """The kind of the first reference action no slot expressed (None when every one had a slot)."""
    unseen: list[str] = field(default_factory=list)
    """Ids that action names which the actor had not seen by then (no slot built from its view can name them)."""
    unseen_figures: list[int] = field(default_factory=list)
    """Amounts, prices, rounds or quantities that action states which appeared in none of the actor's
    observations by then (as a number, or as a dollar or plain figure in text)."""

    @property
    def why(self) -> str | None:
        """Why the first missing action had no slot: ``"unseen_id"``, ``"unseen_figure"`` or ``"no_slot"``."""
        if self.missing is None:
            return None
        return "unseen_id" if self.unseen else "unseen_figure" if self.unseen_figures else "no_slot"
    score: float = 0.0
    reference_score: float = 0.0
    lookups: list[str] = field(default_factory=list)
    """Kinds of the read-only slots the replay inserted before reference actions that had no slot yet
    (see the module docstring), in the order taken."""

    @property
    def covered(self) -> bool:
        """Every reference action had a slot and the menu-played episode reached the reference's score."""
        return self.missing is None and abs(self.score - self.reference_score) < 1e-9


@dataclass
class CoverageReport:
    """Per family: tasks, covered tasks, and the kinds that were missing."""

    tasks: list[TaskCoverage] = field(default_factory=list)

    def by_family(self) -> dict[str, dict[str, Any]]:
        """``{family: {"tasks", "covered", "share", "missing": {kind: count}}}``."""
        out: dict[str, dict[str, Any]] = {}
        groups: dict[str, list[TaskCoverage]] = defaultdict(list)
        for t in self.tasks:
            groups[t.family].append(t)
        for fam, items in sorted(groups.items(), key=lambda kv: (len(kv[0].split("_")[0]), kv[0])):
            covered = sum(t.covered for t in items)
            out[fam] = {"tasks": len(items), "covered": covered, "share": round(covered / len(items), 3),
                        "missing": dict(Counter(t.missing for t in items if t.missing)),
                        "missing_unseen_id": sum(t.why == "unseen_id" for t in items),
                        "missing_unseen_figure": sum(t.why == "unseen_figure" for t in items),
                        "missing_no_slot": sum(t.why == "no_slot" for t in items),
                        "score_short": sum(t.missing is None and not t.covered for t in items),
                        "lookups": sum(len(t.lookups) for t in items),
                        "tasks_with_lookups": sum(bool(t.lookups) for t in items),
                        "lookup_kinds": dict(sorted(Counter(k for t in items for k in t.lookups).items()))}
        return out




def unseen_ids(action: dict[str, Any], known: Known) -> list[str]:
    """Record and actor ids ``action`` names that ``known`` never saw (answers and free text aside)."""
    seen = {known.actor, *known.actors} | {key for recs in known.records.values() for key in recs}
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key not in (*WORDS, "answer", "claims", "idempotency_key"):
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, str) and ID.match(node) and node not in seen and node not in found:
            found.append(node)

    walk(action)
    return found


_FIGURE_FIELDS = ("amount", "unit_price", "price", "total", "eta_round", "quantity")
_NUMBER_TEXT = re.compile(r"\d[\d,]*(?:\.\d+)?")


def note_figures(node: Any, seen: set[int], depth: int = 0) -> None:
    """Add to ``seen`` every integer in an observation, and every number its text states (as is and in cents)."""
    if depth > 12:
        return
    if isinstance(node, dict):
        for value in node.values():
            note_figures(value, seen, depth + 1)
    elif isinstance(node, list):
        for value in node:
            note_figures(value, seen, depth + 1)
    elif isinstance(node, int) and not isinstance(node, bool):
        seen.add(node)
    elif isinstance(node, str):
        for m in _NUMBER_TEXT.finditer(node):
            value = float(m.group(0).replace(",", ""))
            seen.update({int(value), int(round(value * 100))})


def unseen_figures(action: dict[str, Any], seen: set[int]) -> list[int]:
    """The amounts, prices, rounds and quantities ``action`` states that are not in ``seen``."""
    found: list[int] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _FIGURE_FIELDS and isinstance(value, int) and value not in seen and value not in found:
                    found.append(value)
                elif key not in ("answer", "claims"):
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(action)
    return found


def _reference_score(task: Any) -> float:
    """The reference's own score on ``task`` (seed 0), played as the evaluation runner plays it."""
    from ..episode import Episode
    from ..policies.make import make_policy
    from ..scoring import score_episode
    from ..vcp.union import IDLE_ACTION

    ep, policy = Episode(task, seed=0), make_policy(task.reference)
    policy.reset(0)
    while not ep.finished(task.actor) and not ep.truncated(task.actor):
        action = policy.act(ep.observe(task.actor))
        ep.act(task.actor, IDLE_ACTION if action is None else action)
    return score_episode(task, ep.market).score


StepHook = Callable[[Any, str, list[dict[str, Any] | None], int], None]
"""``(env, agent, menu actions, chosen slot index)``, called before each expressed reference step."""
INBOX_SLOT = LABELS.index("inbox")
"""The menu slot that reads the inbox: what a waiting turn is, as a menu choice."""


def task_coverage(task: Any, *, hints: str = "off", on_step: StepHook | None = None,
                  reference_score: bool = True, idle_steps: bool = False) -> TaskCoverage:
    """Replay ``task``'s reference through the menu (see the module docstring).

    ``on_step`` sees each step the menu expressed, before it is taken: the AEC env (its
    ``raw_observation`` and ``known`` are what the actor sees then), the agent, the menu and the
    index of the slot that expressed the reference's action (the demonstrations of
    ``examples/menu_learner.py`` are these pairs), the inserted lookups included. ``reference_score=False``
    skips playing the reference on its own (its score is then taken to be the menu-played one's, so
    ``covered`` only says that every step had a slot). ``idle_steps=True`` also shows ``on_step`` the turns
    the reference waits (its policy returns None: the env reads the inbox), as the menu's ``inbox`` slot:
    waiting for a notice is a choice a menu policy must learn too.
    """
    from ..policies.make import make_policy

    out = TaskCoverage(task.task_id, task.family)
    out.reference_score = _reference_score(task) if reference_score else float("nan")
    env = new_env(task, hints)
    policy = make_policy(task.reference)
    policy.reset(0)
    figures: set[int] = set()
    history: list[Any] = []
    carried: list[Any] = []  # messages delivered during inserted lookups, which the reference has not seen yet
    for agent in env.agent_iter(max_iter=10_000):
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        raw = env.raw_observation(agent)
        note_figures(raw, figures)
        if carried:
            raw, carried = {**raw, "inbox": [*carried, *(raw.get("inbox") or [])]}, []
        wanted = policy.act(raw)
        if wanted is None:
            if idle_steps and on_step is not None:
                actions = menu_actions(env.known(agent))
                if actions[INBOX_SLOT] is not None:
                    on_step(env, agent, actions, INBOX_SLOT)
            env.step(None)
            history.append(None)
            continue
        wanted = as_dict(wanted)
        out.steps += 1
        actions = menu_actions(env.known(agent))
        slot = slot_for(actions, wanted)
        if slot is None:
            for read in lookups(task, hints, history, wanted):
                taken = slot_for(actions, read)
                if taken is None:  # pragma: no cover - the replay is deterministic
                    break
                if on_step is not None:
                    on_step(env, agent, actions, next(i for i, a in enumerate(actions) if a is taken))
                env.step(taken)
                history.append(taken)
                out.lookups.append(str(taken["kind"]))
                _, _, term, trunc, _ = env.last()
                if term or trunc:
                    break
                seen = env.raw_observation(agent)
                note_figures(seen, figures)
                carried += seen.get("inbox") or []
                actions = menu_actions(env.known(agent))
            else:
                slot = slot_for(actions, wanted)
        if slot is None:
            out.missing = str(wanted.get("kind"))
            out.unseen = unseen_ids(wanted, env.known(agent))
            out.unseen_figures = unseen_figures(wanted, figures)
            break
        out.expressed += 1
        if on_step is not None:
            on_step(env, agent, actions, next(i for i, a in enumerate(actions) if a is slot))
        env.step(slot)
        history.append(slot)
    out.score = env.score.score if env.score is not None else 0.0
    if not reference_score:
        out.reference_score = out.score
    return out


def menu_coverage(tasks: list[Any], *, hints: str = "off") -> CoverageReport:
    """The coverage of every task of ``tasks``."""
    return CoverageReport([task_coverage(t, hints=hints) for t in tasks])


BASELINE_SPLITS = (("frozen", 0), ("generated", 1))


def write_baseline(path: str, *, suite: str = "capability-v1") -> dict[str, Any]:
    """Measure every split of :data:`BASELINE_SPLITS` with hints off and structured; write the record to ``path``.

    Per family the record keeps the covered tasks, the read-only lookups the replay inserted (``lookups``,
    ``tasks_with_lookups``, ``lookup_kinds``) and, for the others, why the first missing action
    had no slot (``missing_unseen_id``, ``missing_unseen_figure``, ``missing_no_slot``) or that every
    step had one but the episode fell short of the score (``score_short``: the wording mattered).
    ``covered_only_with_hints`` counts, per family, the tasks whose reference needs a requirement the
    request states only in words (covered with ``hints="structured"``, not without).
    """
    import time

    from ..envs.candidates import SLOTS
    from ..tasks.suites import load_suite

    start = time.perf_counter()
    splits: dict[str, Any] = {}
    for split, seed in BASELINE_SPLITS:
        tasks = load_suite(suite, split, seed)
        for hints in ("off", "structured"):
            rows = menu_coverage(tasks, hints=hints).by_family()
            name = f"{split}{f' (seed {seed})' if split != 'frozen' else ''}, hints {hints}"
            splits[name] = {"by_family": rows, "covered": sum(r["covered"] for r in rows.values()),
                            "tasks": sum(r["tasks"] for r in rows.values()),
                            "lookups": sum(r["lookups"] for r in rows.values()),
                            "tasks_with_lookups": sum(r["tasks_with_lookups"] for r in rows.values())}
            print(f"{name}: {splits[name]['covered']}/{splits[name]['tasks']} "
                  f"({splits[name]['lookups']} lookups in {splits[name]['tasks_with_lookups']} tasks)")
    words_only = {}
    for split, seed in BASELINE_SPLITS:
        name = f"{split}{f' (seed {seed})' if split != 'frozen' else ''}"
        off, on = (splits[f"{name}, hints {h}"]["by_family"] for h in ("off", "structured"))
        words_only[name] = {fam: on[fam]["covered"] - off[fam]["covered"] for fam in on
                            if on[fam]["covered"] != off[fam]["covered"]}
    record = {"command": "python -m acworld_env.wrappers.menu_coverage [--split generated --seed 1] "
                         "[--hints structured]",
              "slots": len(SLOTS), "splits": splits, "wall_s": round(time.perf_counter() - start, 1),
              "covered_only_with_hints": words_only}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return record


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Print (and return) the per-family coverage of a split."""
    from ..tasks.suites import load_suite

    ap = argparse.ArgumentParser(description="Menu coverage of the reference episodes, per family.")
    ap.add_argument("--suite", default="capability-v1")
    ap.add_argument("--split", default="frozen")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hints", default="off")
    ap.add_argument("--baseline", metavar="PATH", help="measure frozen and generated (seed 1), hints off and "
                    "structured, and write the record to PATH (as baselines/menu_coverage.json)")
    args = ap.parse_args(argv)
    if args.baseline:
        return write_baseline(args.baseline, suite=args.suite)
    report = menu_coverage(load_suite(args.suite, args.split, args.seed), hints=args.hints).by_family()
    for fam, row in report.items():
        print(f"{fam:<16} {row['covered']:>3}/{row['tasks']:<3} {row['share']:.0%}  missing: {row['missing'] or '-'}"
              f"  (naming unseen ids: {row['missing_unseen_id']}, stating unseen figures: "
              f"{row['missing_unseen_figure']}, no slot: {row['missing_no_slot']}, all slots but short of the "
              f"score: {row['score_short']}; lookups: {row['lookups']} in {row['tasks_with_lookups']} tasks)")
    return report


if __name__ == "__main__":
    main()


_slot_for, _as_dict = slot_for, as_dict
"""The names these helpers had here before :mod:`~acworld_env.wrappers.menu_replay` held them."""
