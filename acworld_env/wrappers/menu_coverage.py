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
that make a slot for it appear, as an agent would look the record up: the shortest such sequence
(at most :data:`LOOKUP_DEPTH` reads) found by replaying the episode so far with each candidate read,
candidates in a fixed order (reads naming an id of the wanted action, then reads of records linked
to those ids, then the rest, each group in menu order; a read already taken is not repeated; a
first read that teaches the actor nothing new is not extended), at most :data:`MAX_SIMULATIONS`
replays per gap. The inserted reads are counted (``lookups``, per task and per family), the
``on_step`` hook sees them like any other step, and the task is covered only if the episode with
them still reaches the reference's score.

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

from ..envs.candidates import menu_actions
from ..envs.known import Known
from ..vcp.union import IDLE_ACTION, QUERY_KINDS, parse_action


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


def _plain(action: Any) -> dict[str, Any] | None:
    parsed = parse_action(action)
    return parsed.model_dump(mode="json", exclude_none=True) if hasattr(parsed, "model_dump") else None


_WORDS = ("text", "note", "summary", "reason", "rationale")
"""Free-text fields: a slot whose other fields match may word them its own way (the score decides)."""


def _structure(action: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k not in _WORDS}


def _words_of(action: dict[str, Any]) -> set[str]:
    """The lower-case words and figures of an action's free-text fields."""
    return set(re.findall(r"[\w.]+", " ".join(str(action.get(f, "")) for f in _WORDS).lower()))


def _slot_for(actions: list[dict[str, Any] | None], wanted: dict[str, Any]) -> dict[str, Any] | None:
    """The slot action equal to ``wanted``, else, of those equal on everything but free-text wording, the one
    whose wording shares the most words and figures with the wanted one's (the first in menu order on ties)."""
    target = _plain(wanted)
    if target is None:
        return None
    plain = [(a, _plain(a)) for a in actions if a is not None]
    exact = next((a for a, p in plain if p == target), None)
    if exact is not None:
        return exact
    near = [(a, p) for a, p in plain if p is not None and _structure(p) == _structure(target)]
    if not near:
        return None
    said = _words_of(target)
    return max(enumerate(near), key=lambda ip: (len(_words_of(ip[1][1]) & said), -ip[0]))[1][0]


def _as_dict(action: Any) -> dict[str, Any]:
    if hasattr(action, "model_dump"):
        return action.model_dump(mode="json", exclude_none=True)
    if isinstance(action, str):
        return json.loads(action)
    return dict(action)


_ID = re.compile(r"^(?:L-[A-Za-z0-9_-]+|m\d{3}-p\d{5}-v\d{3}|[a-z]{3}-\d{3,}|(?:buyer|merchant)_\d+)$")


def unseen_ids(action: dict[str, Any], known: Known) -> list[str]:
    """Record and actor ids ``action`` names that ``known`` never saw (answers and free text aside)."""
    seen = {known.actor, *known.actors} | {key for recs in known.records.values() for key in recs}
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key not in (*_WORDS, "answer", "claims", "idempotency_key"):
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, str) and _ID.match(node) and node not in seen and node not in found:
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

LOOKUP_DEPTH = 2
"""Most read-only slots the replay inserts before one reference action."""
MAX_SIMULATIONS = 400
"""Most replays tried while looking for the reads that make one reference action's slot appear."""
_NOT_LOOKUPS = frozenset({IDLE_ACTION["kind"]})
"""Read-only kinds the replay never inserts (reading the inbox is what an idle turn does anyway)."""


def _new_env(task: Any, hints: str) -> Any:
    from ..envs.aec import AcworldAECEnv

    env = AcworldAECEnv(task=task, hints=hints)
    env.reset(seed=0)
    return env


def _replay(task: Any, hints: str, history: list[Any]) -> tuple[Any, str | None]:
    """A fresh episode driven by ``history`` (the actor's actions so far, None for idle turns), as
    :func:`task_coverage` drives it: the env and the agent whose turn comes next (None once it ended)."""
    env, taken = _new_env(task, hints), 0
    for agent in env.agent_iter(max_iter=10_000):
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.raw_observation(agent)
        if taken == len(history):
            return env, agent
        env.step(history[taken])
        taken += 1
    return env, None


def _ids_in(node: Any, out: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key not in (*_WORDS, "answer", "claims", "idempotency_key"):
                _ids_in(value, out)
    elif isinstance(node, list):
        for value in node:
            _ids_in(value, out)
    elif isinstance(node, str) and _ID.match(node):
        out.add(node)
    return out


def _linked(known: Known, ids: set[str]) -> set[str]:
    """Ids of records the actor knows to be linked to ``ids`` (an order's payment, a payment's order, ...)."""
    linked: set[str] = set()
    for recs in known.records.values():
        for key, rec in recs.items():
            named = _ids_in(rec, set())
            if key in ids:
                linked |= named
            elif named & ids:
                linked.add(key)
    return linked - ids


def _reads(actions: list[dict[str, Any] | None], known: Known, wanted: dict[str, Any],
           taken: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The read-only slots a lookup may take now, in the fixed order of the module docstring."""
    named = _ids_in(wanted, set())
    linked = _linked(known, named)
    done = [_plain(a) for a in taken]
    ranked = []
    for pos, action in enumerate(actions):
        if action is None or action.get("kind") not in QUERY_KINDS or action["kind"] in _NOT_LOOKUPS:
            continue
        if _plain(action) in done:
            continue
        ids = _ids_in(action, set())
        ranked.append((0 if ids & named else 1 if ids & linked else 2, pos, action))
    return [a for _, _, a in sorted(ranked, key=lambda r: r[:2])]


def _view(known: Known) -> str:
    """What the actor knows, as one comparable string (a read that leaves it unchanged taught nothing)."""
    return json.dumps([known.records, known.hits, known.actors], sort_keys=True, default=str)


def _lookups(task: Any, hints: str, history: list[Any], wanted: dict[str, Any]) -> list[dict[str, Any]]:
    """The shortest sequence of read-only slots after ``history`` that makes a slot for ``wanted``
    appear (the first in the fixed order), or ``[]`` when none of at most :data:`LOOKUP_DEPTH`
    reads does within :data:`MAX_SIMULATIONS` replays."""
    budget = [MAX_SIMULATIONS]

    def search(prefix: list[dict[str, Any]], env: Any, agent: str) -> list[dict[str, Any]]:
        known = env.known(agent)
        before = _view(known)
        reads = _reads(menu_actions(known), known, wanted, [a for a in history + prefix if isinstance(a, dict)])
        tried: list[tuple[dict[str, Any], Any, str]] = []
        for read in reads:
            if budget[0] <= 0:
                return []
            budget[0] -= 1
            env2, agent2 = _replay(task, hints, history + prefix + [read])
            if agent2 is None:
                continue
            if _slot_for(menu_actions(env2.known(agent2)), wanted) is not None:
                return [*prefix, read]
            if _view(env2.known(agent2)) != before:
                tried.append((read, env2, agent2))
        if len(prefix) + 1 < LOOKUP_DEPTH:
            for read, env2, agent2 in tried:
                found = search([*prefix, read], env2, agent2)
                if found:
                    return found
        return []

    env, agent = _replay(task, hints, history)
    return [] if agent is None else search([], env, agent)


def task_coverage(task: Any, *, hints: str = "off", on_step: StepHook | None = None,
                  reference_score: bool = True) -> TaskCoverage:
    """Replay ``task``'s reference through the menu (see the module docstring).

    ``on_step`` sees each step the menu expressed, before it is taken: the AEC env (its
    ``raw_observation`` and ``known`` are what the actor sees then), the agent, the menu and the
    index of the slot that expressed the reference's action (the demonstrations of
    ``examples/menu_learner.py`` are these pairs), the inserted lookups included. ``reference_score=False``
    skips playing the reference on its own (its score is then taken to be the menu-played one's, so
    ``covered`` only says that every step had a slot).
    """
    from ..policies.make import make_policy

    out = TaskCoverage(task.task_id, task.family)
    out.reference_score = _reference_score(task) if reference_score else float("nan")
    env = _new_env(task, hints)
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
            env.step(None)
            history.append(None)
            continue
        wanted = _as_dict(wanted)
        out.steps += 1
        actions = menu_actions(env.known(agent))
        slot = _slot_for(actions, wanted)
        if slot is None:
            for read in _lookups(task, hints, history, wanted):
                taken = _slot_for(actions, read)
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
                slot = _slot_for(actions, wanted)
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
