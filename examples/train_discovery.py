"""Train a small numpy policy on generated T1 Discovery tasks; evaluate it on the frozen ones.

The learner is a linear softmax policy over a masked discrete action set, trained with
REINFORCE and a learned linear baseline on the potential rewards (each step's reward is the
change of the task score, so the per-predicate credits -- a search that surfaced a feasible
listing, the answer read before answering, the right listing / a justified abstention, nothing
bought -- arrive as soon as they are earned).

Hints: a T1 agent is given the shopper's words, not a query. A linear policy cannot parse
words, so this example plays the env with ``hints="structured"``: the observation then also
carries the requirements the task's scorer parsed from the request (a search query, the
checks only a full listing record shows, the objective). Evaluation of models runs with hints
off; the script also reports the trained policy with hints off (its hint slots unavailable),
to show what the hints are worth.

Split discipline: training plays only tasks generated fresh from ``--train-seeds``
(``split="generated"``, ids ``generated-S/T1/...``; any whose request equals a frozen task's is
dropped, and a seed whose builder fails is skipped with a warning), evaluation plays only the
20 frozen tasks ``capability-v1/T1/...``. The script prints the frozen mean score of the
randomly initialised policy (before) and of the trained policy (after): the mean over
``--eval-rollouts`` sampled episodes per task, plus the greedy (arg-max) policy's score after
training. It returns, and writes with ``--out``, the figures. Everything but the wall time is
deterministic given ``--seed``.

Action set (:data:`CHOICES`): a few slots of the standard menu (:class:`acworld_env.wrappers.ActionMenu`),
looked up by label, plus discovery slots built only from the agent's own observation: search
with the hinted query (with or without the budget), search the request's words, read the next
unread result of the latest search (in the hinted objective's order), answer the listing last read.

Run::

    python examples/train_discovery.py                    # default budget: about a minute on 2 cores
    python examples/train_discovery.py --episodes 400 --seed 1 --out runs/train_discovery.json
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import shlex
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import acworld_env
from acworld_env.envs import decode_observation
from acworld_env.tasks.families.discovery_needs import satisfies, unit_price_key
from acworld_env.tasks.families.discovery_shortcuts import content_words
from acworld_env.tasks.spec import TaskSpec
from acworld_env.tasks.suites import load_suite
from acworld_env.wrappers import ActionMenu

SUITE = "capability-v1"
FROZEN_GLOB = f"{SUITE}/T1/*"
GENERATED_GLOB = "generated-*/T1/*"
HINTS = "structured"
"""The env's hints mode for training and the main evaluation (see the module docstring)."""
MENU_LABELS = ("search:all", "search:keywords", "search:category", "listing[0].get",
               "listing[0].answer", "abstain", "finish")
"""Slots taken from the standard menu, by label."""
CHOICES: tuple[str, ...] = (
    *(f"menu:{label}" for label in MENU_LABELS),
    "search:hints", "search:hints-no-budget", "search:words", "candidate.next", "read.answer",
)
"""The policy's discrete actions (menu slots first, then the discovery slots)."""
FEATURES = ("bias", "has_hints", "has_budget", "objective_per_unit", "objective_cheapest", "has_checks",
            "searches=0", "searches=1", "searches>=2", "last_search_hinted", "last_search_no_budget",
            "last_search_empty", "last_search_nonempty", "results_over_budget", "read_any", "read_passes_checks", "read_fails_checks",
            "candidates_left", "last_was_search", "last_was_read", "last_rejected", "steps_used")
"""The policy's input: a few facts from the agent's observation and its own actions."""


# -- tasks --------------------------------------------------------------------------------

def frozen_tasks() -> list[TaskSpec]:
    """The 20 frozen T1 Discovery tasks (evaluation only)."""
    return [t for t in load_suite(SUITE, "frozen") if fnmatch.fnmatch(t.task_id, FROZEN_GLOB)]


class TrainingSet:
    """Generated T1 tasks for training, and what was left out of them.

    ``failed_seeds``: generation seeds whose builder raised (seed -> error), skipped.
    ``dropped``: generated task ids left out because a frozen (held-out) task has the same request.
    """

    def __init__(self) -> None:
        self.tasks: list[TaskSpec] = []
        self.failed_seeds: dict[int, str] = {}
        self.dropped: list[str] = []


def generated_tasks(seeds: Sequence[int], exclude: Sequence[TaskSpec] = ()) -> TrainingSet:
    """Fresh T1 tasks from each generation seed, minus any with the request of a task in ``exclude``."""
    held_out = {t.request for t in exclude}
    out = TrainingSet()
    for seed in seeds:
        try:
            built = load_suite(SUITE, "generated", seed)
        except RuntimeError as exc:  # a builder found no valid task for this seed
            out.failed_seeds[seed] = str(exc)
            continue
        for t in built:
            if not fnmatch.fnmatch(t.task_id, GENERATED_GLOB):
                continue
            if t.request in held_out:
                out.dropped.append(t.task_id)
            else:
                out.tasks.append(t)
    return out


# -- the policy-side action set -------------------------------------------------------------

class DiscoveryView:
    """Turns one agent's observations into features and the concrete action of every choice.

    It remembers only what the agent saw and did: its request, budget and hints, its own
    searches and their results, and the listings it read. The menu slots come from :class:`ActionMenu`.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget the episode."""
        self.request, self.budget, self.hints = "", None, {}
        self.step, self.max_steps = 0, 1
        self.searches: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.last_search: dict[str, Any] | None = None
        self.read: dict[str, Any] | None = None
        self.read_ids: list[str] = []
        self.pending: dict[str, Any] | None = None
        self.last_kind: str | None = None
        self.last_rejected = False

    def absorb(self, obs: dict[str, Any]) -> None:
        """Take in the structured observation after the agent's previous action."""
        self.request = obs.get("request") or ""
        self.budget = (obs.get("mandate") or {}).get("budget")
        self.hints = obs.get("hints") or {}
        self.step, self.max_steps = int(obs.get("step", 0)), max(1, int(obs.get("max_steps", 1)))
        last, sent = obs.get("last_result"), self.pending
        self.pending = None
        if not last or sent is None:
            return
        self.last_kind, self.last_rejected = last.get("kind"), not last.get("accepted")
        if self.last_rejected:
            return
        result = last.get("result") or {}
        if sent["kind"] == "search_listings":
            self.last_search = sent
            self.searches.append(sent)
            self.results = [it for it in result.get("items", []) if "listing_id" in it]
        elif sent["kind"] == "get_listing":
            self.read = result if isinstance(result, dict) else None
            self.read_ids.append(sent["listing_id"])

    def sent(self, action: dict[str, Any]) -> None:
        """Remember the action the agent is about to submit."""
        self.pending = action

    def _hinted(self, budget: bool) -> dict[str, Any] | None:
        filters = self.hints.get("filters")
        if not isinstance(filters, dict) or not filters:
            return None
        q = {k: v for k, v in filters.items() if budget or k != "max_price"}
        return {"kind": "search_listings", **q, "sort": "price_asc", "page_size": 50}

    def _candidates(self) -> list[str]:
        items, unit = self.results, (self.hints.get("objective") or {}).get("unit")
        if unit:
            items = sorted(items, key=lambda r: unit_price_key(r, unit))
        return [r["listing_id"] for r in items]

    def _passes(self) -> bool:
        return self.read is not None and all(satisfies(self.read, n) for n in self.hints.get("checks") or [])

    def actions(self, menu: dict[str, dict[str, Any]]) -> list[dict[str, Any] | None]:
        """One concrete VCP action per entry of :data:`CHOICES` (None: unavailable now)."""
        out: list[dict[str, Any] | None] = [menu.get(label) for label in MENU_LABELS]
        words = " ".join(content_words(self.request))
        out += [self._hinted(True), self._hinted(False),
                {"kind": "search_listings", "text": words} if words else None]
        unread = [i for i in self._candidates() if i not in self.read_ids]
        out.append({"kind": "get_listing", "listing_id": unread[0]} if unread else None)
        lid = (self.read or {}).get("listing_id")
        out.append({"kind": "submit_answer", "answer": {"listing_id": lid}, "evidence": [lid]} if lid else None)
        return out

    def features(self) -> np.ndarray:
        """The feature vector named by :data:`FEATURES`."""
        s, n = self.last_search or {}, len(self.searches)
        objective = self.hints.get("objective") or {}
        hinted = self.hints.get("filters") or {}
        searched = self.last_search is not None
        unread = [i for i in self._candidates() if i not in self.read_ids]
        f = [1.0, bool(self.hints), self.budget is not None, objective.get("minimize") == "price_per",
             objective.get("minimize") == "price", bool(self.hints.get("checks")),
             n == 0, n == 1, n >= 2,
             searched and bool(hinted) and all(s.get(k) == v for k, v in hinted.items() if k != "max_price"),
             searched and "max_price" in hinted and "max_price" not in s,
             searched and not self.results, bool(self.results),
             bool(self.results) and self.budget is not None and min(r["price"] for r in self.results) > self.budget,
             self.read is not None,
             self._passes(), self.read is not None and not self._passes(), bool(unread),
             self.last_kind == "search_listings", self.last_kind == "get_listing", self.last_rejected,
             self.step / self.max_steps]
        return np.asarray(f, dtype=np.float64)


# -- the learner --------------------------------------------------------------------------

class LinearSoftmaxPolicy:
    """``pi(a | s) = softmax(W phi(s))`` over the unmasked actions; a linear value baseline."""

    def __init__(self, n_features: int, n_actions: int, rng: np.random.Generator, init_scale: float = 0.01) -> None:
        self.W = rng.normal(0.0, init_scale, size=(n_actions, n_features))
        self.v = np.zeros(n_features)

    def probs(self, phi: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Action probabilities (zero on masked actions)."""
        logits = np.where(mask, self.W @ phi, -np.inf)
        z = np.exp(logits - logits.max())
        return z / z.sum()

    def act(self, phi: np.ndarray, mask: np.ndarray, rng: np.random.Generator, greedy: bool = False) -> int:
        """Sample an action (or take the most likely one)."""
        p = self.probs(phi, mask)
        return int(np.argmax(p)) if greedy else int(rng.choice(len(p), p=p))

    def update(self, episodes: list[list[tuple[np.ndarray, np.ndarray, int, float]]], lr: float,
               lr_value: float, entropy: float, gamma: float) -> None:
        """One REINFORCE step from a batch of episodes of ``(phi, mask, action, reward)``.

        ``gamma < 1`` discounts the returns so that stalling (re-reading, re-searching) before
        an earned credit costs something; the scores reported are never discounted.
        """
        gW, gv, steps = np.zeros_like(self.W), np.zeros_like(self.v), 0
        for ep in episodes:
            returns, g = np.zeros(len(ep)), 0.0
            for t in range(len(ep) - 1, -1, -1):
                g = ep[t][3] + gamma * g
                returns[t] = g
            for (phi, mask, a, _), g in zip(ep, returns, strict=True):
                p = self.probs(phi, mask)
                advantage = g - self.v @ phi
                grad_logits = -p
                grad_logits[a] += 1.0
                logp = np.log(np.where(mask, p, 1.0))
                grad_logits = advantage * grad_logits - entropy * p * (logp - (p * logp).sum())
                gW += np.outer(grad_logits, phi)
                gv += advantage * phi
                steps += 1
        n = max(1, len(episodes))
        self.W += lr * gW / n
        self.v += lr_value * gv / max(1, steps)


# -- rollouts -----------------------------------------------------------------------------

def _menu_now(env: ActionMenu, agent: str) -> dict[str, dict[str, Any]]:
    return {label: action for _, label, action in env.describe(agent)}


def run_episode(env: ActionMenu, task_id: str, policy: LinearSoftmaxPolicy, rng: np.random.Generator,
                seed: int, greedy: bool = False) -> tuple[float, list[tuple[np.ndarray, np.ndarray, int, float]]]:
    """Play one episode of ``task_id``; return its score and the ``(phi, mask, action, reward)`` steps."""
    env.reset(seed=seed, options={"task_id": task_id})
    agent, view, steps = env.agents[0], DiscoveryView(), []
    while not (env.terminations[agent] or env.truncations[agent]):
        view.absorb(decode_observation(env.env.observe(agent)))
        actions = view.actions(_menu_now(env, agent))
        mask = np.array([a is not None for a in actions])
        phi = view.features()
        choice = policy.act(phi, mask, rng, greedy)
        action = actions[choice]
        assert action is not None
        view.sent(action)
        env.env.step(action)  # the menu's inner env takes the VCP action itself
        steps.append((phi, mask, choice, float(env.rewards[agent])))
    return float(env.unwrapped.score.score), steps


def evaluate(env: ActionMenu, tasks: Sequence[TaskSpec], policy: LinearSoftmaxPolicy, seed: int,
             rollouts: int, greedy: bool = False) -> dict[str, float]:
    """Mean score per task over ``rollouts`` sampled episodes (one if greedy)."""
    rng = np.random.default_rng([seed, 99])
    out = {}
    for i, task in enumerate(tasks):
        scores = [run_episode(env, task.task_id, policy, rng, seed=10_000 * i + k, greedy=greedy)[0]
                  for k in range(1 if greedy else rollouts)]
        out[task.task_id] = float(np.mean(scores))
    return out


def _summary(per_task: dict[str, float], tasks: Sequence[TaskSpec]) -> dict[str, Any]:
    by_cap: dict[str, list[float]] = defaultdict(list)
    for t in tasks:
        by_cap[t.capability].append(per_task[t.task_id])
    return {"mean": round(float(np.mean(list(per_task.values()))), 4),
            "per_capability": {c: round(float(np.mean(v)), 4) for c, v in sorted(by_cap.items())}}


def _seeds(text: str) -> list[int]:
    """``"1-8"`` or ``"1,2,5"`` -> a list of seeds."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi) + 1)) if hi else [int(lo)]
    return out


# -- main ---------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, evaluate before and after, print and return the figures (and write ``--out``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3000, help="training episodes")
    parser.add_argument("--seed", type=int, default=0, help="seeds the policy, the task walk and sampling")
    parser.add_argument("--train-seeds", default="1-10", help="generation seeds of the training tasks")
    parser.add_argument("--batch", type=int, default=16, help="episodes per update")
    parser.add_argument("--lr", type=float, default=4.0, help="policy step size")
    parser.add_argument("--lr-value", type=float, default=0.2, help="baseline step size")
    parser.add_argument("--entropy", type=float, default=0.05, help="entropy bonus coefficient")
    parser.add_argument("--gamma", type=float, default=0.9, help="discount of the training returns")
    parser.add_argument("--eval-rollouts", type=int, default=5, help="sampled episodes per frozen task")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    say = (lambda *a: None) if args.quiet else print
    start = time.perf_counter()

    test_tasks = frozen_tasks()
    train_seeds = _seeds(args.train_seeds)
    training = generated_tasks(train_seeds, exclude=test_tasks)
    train_tasks, failed = training.tasks, training.failed_seeds
    for seed, error in failed.items():
        print(f"warning: generation seed {seed} skipped: {error}", file=sys.stderr)
    if not train_tasks:
        raise SystemExit("no generated T1 tasks to train on")
    train_env = ActionMenu(acworld_env.make(SUITE, split="generated", tasks=train_tasks, hints=HINTS))
    test_env = ActionMenu(acworld_env.make(SUITE, tasks=test_tasks, hints=HINTS))
    plain_env = ActionMenu(acworld_env.make(SUITE, tasks=test_tasks))
    say(f"train: {len(train_tasks)} generated T1 tasks (seeds {args.train_seeds}); "
        f"test: {len(test_tasks)} frozen T1 tasks; {len(CHOICES)} actions, {len(FEATURES)} features")

    rng = np.random.default_rng(args.seed)
    policy = LinearSoftmaxPolicy(len(FEATURES), len(CHOICES), rng)
    before = evaluate(test_env, test_tasks, policy, args.seed, args.eval_rollouts)
    say(f"before training: frozen T1 mean score {np.mean(list(before.values())):.3f}")

    played: set[str] = set()
    curve: list[float] = []
    batch: list[list[tuple[np.ndarray, np.ndarray, int, float]]] = []
    window: list[float] = []
    order = rng.permutation(len(train_tasks))
    for ep in range(args.episodes):
        task = train_tasks[int(order[ep % len(order)])]
        if ep % len(order) == len(order) - 1:
            order = rng.permutation(len(train_tasks))
        score, steps = run_episode(train_env, task.task_id, policy, rng, seed=ep)
        played.add(train_env.unwrapped.task.task_id)
        batch.append(steps)
        window.append(score)
        if len(batch) == args.batch:
            policy.update(batch, args.lr, args.lr_value, args.entropy, args.gamma)
            batch = []
        if len(window) == 200 or ep == args.episodes - 1:
            curve.append(round(float(np.mean(window)), 4))
            say(f"  episodes {ep + 1:>5}: mean training score {curve[-1]:.3f}")
            window = []
    if batch:
        policy.update(batch, args.lr, args.lr_value, args.entropy, args.gamma)

    after = evaluate(test_env, test_tasks, policy, args.seed, args.eval_rollouts)
    after_greedy = evaluate(test_env, test_tasks, policy, args.seed, 1, greedy=True)
    after_plain = evaluate(plain_env, test_tasks, policy, args.seed, args.eval_rollouts)
    wall = time.perf_counter() - start
    figures: dict[str, Any] = {
        "command": " ".join(["python", "examples/train_discovery.py", *map(shlex.quote, argv or sys.argv[1:])]),
        "seed": args.seed, "episodes": args.episodes, "batch": args.batch, "lr": args.lr,
        "lr_value": args.lr_value, "entropy": args.entropy, "gamma": args.gamma, "eval_rollouts": args.eval_rollouts,
        "catalog_hash": test_tasks[0].initial_state.get("meta", {}).get("catalog_hash"),
        "train_seeds": [x for x in train_seeds if x not in failed], "skipped_train_seeds": sorted(failed),
        "train_tasks": len(train_tasks), "train_tasks_dropped_as_frozen": training.dropped,
        "train_task_ids_played": sorted(played), "eval_task_ids": [t.task_id for t in test_tasks],
        "hints": HINTS, "actions": list(CHOICES), "features": list(FEATURES),
        "before": _summary(before, test_tasks), "after": _summary(after, test_tasks),
        "after_greedy": _summary(after_greedy, test_tasks),
        "after_without_hints": _summary(after_plain, test_tasks),
        "after_per_task": {k: round(v, 4) for k, v in after.items()},
        "training_curve": curve, "wall_seconds": round(wall, 1),
    }
    say(f"after training:  frozen T1 mean score {figures['after']['mean']:.3f} "
        f"(greedy {figures['after_greedy']['mean']:.3f}); before {figures['before']['mean']:.3f}")
    for cap, value in figures["after"]["per_capability"].items():
        say(f"  {cap:<28} before {figures['before']['per_capability'][cap]:.3f}  after {value:.3f}")
    say(f"with hints off (as models are evaluated): {figures['after_without_hints']['mean']:.3f}")
    say(f"wall time {wall:.1f} s")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(figures, indent=2) + "\n")
    for env in (train_env, test_env, plain_env):
        env.close()
    return figures


if __name__ == "__main__":
    main()
