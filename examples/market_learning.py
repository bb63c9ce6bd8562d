"""Learning in the open market: every Buyer and every Merchant of ``market-v1`` learns at once (issue 42, item 3).

    nice -n 10 python examples/market_learning.py          # the recorded study: 5x5 and 20x20, 3 seeds each
    python examples/market_learning.py --quick --out /tmp/market_quick.json     # 5x5, 2 seeds (seconds)
    python examples/market_learning.py --table baselines/selfplay_market.json   # its results table again

**The game.** An episode of ``market-v1`` (``parallel=True``: one phase per step) has four phases:
Merchants quote (``update_listing``), Buyers rank their ``k = 2`` exposed candidates, the platform
clears and places orders, Buyers pay, Merchants fulfil. Each agent's reward is the env's own: the
change of its rubric score (utility, limits, privacy, obligations), so an agent's episode return is
its final rubric score. Pay and fulfil are played by the scripted truthful agent (they are
obligations, not strategy); the two strategic decisions are learned:

* **Merchant** (one learner per Merchant): a price as a markup over its own cost, from the grid
  :data:`GRID_BP` (-10 % to +100 % in 5-point steps), acted as ``update_listing``. Policy: softmax
  over the grid with logits ``W @ phi``, where ``phi`` holds only the Merchant's own observation
  (a bias, its mandated margin, its cost).
* **Buyer** (one learner per Buyer): a ranking of its candidates. Policy: Plackett-Luce over the
  candidates plus a *stop* item (sample a candidate or stop, without replacement; the ranking is the
  candidates drawn before stop). A candidate's score is ``theta . x`` with ``x`` from the Buyer's own
  view only: its surplus at the posted price (its own value minus the price), the price, the public
  relevance; stop scores ``theta_stop``.

**The learner.** Independent REINFORCE with a leave-one-out baseline (RLOO): each iteration plays
``batch`` episodes on fresh training markets (market seeds ``1_000_000 * (seed + 1) + episode``,
never an evaluation seed); for each agent ``A_i = R_i - mean_{j != i} R_j`` over the batch and the
gradient ``mean_i A_i grad log pi(a_i | obs_i)`` (exact for both policies) feeds Adam. Parameters
start at zero: uniform prices over the grid, uniformly random rankings. Every draw comes from
generators seeded by (size, seed, agent), so the same seed gives the same curves.

**Evaluation** (host side: welfare sums everyone's private numbers, which no agent sees): at every
checkpoint the current (sampling) policies play held-out markets (market seeds ``0..n-1``, with
common random numbers across checkpoints) in three pairings: all learned, learned Merchants vs
truthful Buyers, truthful Merchants vs learned Buyers; and once, the truthful baseline (every agent
scripted truthful) and the env's random agents. Recorded per pairing: realised welfare / global
optimum (:mod:`acworld_env.open_market.welfare`, via ``env.welfare_report()``), mean price-over-cost
markup of traded and of listed items, each side's mean reward, trade rate (completed trades per
Buyer); the last checkpoint also greedily (each policy's mode). Across seeds: mean, min and max.

**Resumable.** Each (size, seed) run writes ``<folder>/<size>x<size>_seed<seed>.json`` (tmp file, then
``os.replace``) when it finishes; a rerun reuses every run whose settings key (all settings and
:data:`VERSION`) matches. Another script embeds the study with :func:`study` and :func:`markdown`.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import acworld_env
from acworld_env.open_market.agents import random_agent, truthful

VERSION = "market-learning-1"
"""Part of every run's settings key: change it when the learner or the metrics change."""
K = 2
GRID_BP = tuple(range(-1_000, 10_001, 500))
"""The Merchant's actions: markups over its own cost, in basis points."""
PAIRINGS = ("learned", "learned_merchants", "learned_buyers")
"""Evaluation pairings: both sides learned; learned Merchants vs truthful Buyers; the converse."""
METRICS = ("welfare_ratio", "markup_traded", "markup_listed", "buyer_reward", "merchant_reward", "trade_rate")
DEFAULT_OUT = Path("baselines/selfplay_market.json")


@dataclasses.dataclass(frozen=True)
class Settings:
    """One (size, seed) run's settings; their digest is the run's key in the run folder."""

    size: int
    seed: int
    iterations: int
    batch: int
    checkpoint_every: int
    eval_markets: int
    lr: float = 0.05

    def key(self) -> str:
        """Digest of the settings and the learner's version."""
        text = json.dumps({**dataclasses.asdict(self), "version": VERSION, "grid": GRID_BP, "k": K}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


QUICK: dict[str, Any] = {"sizes": {5: (0, 1)}, "iterations": 150, "batch": 8, "checkpoint_every": 25,
                         "eval_buyers": 30}
"""``--quick``: 5x5, seeds 0 and 1, 1,200 training episodes each, held-out markets 0..5 (about 10 s)."""
FULL: dict[str, Any] = {"sizes": {5: (0, 1, 2, 3, 4), 20: (0, 1, 2)}, "iterations": 400, "batch": 16,
                        "checkpoint_every": 25, "eval_buyers": 80}
"""The recorded study: 5x5 (5 seeds) and 20x20 (3 seeds), 6,400 training episodes each; held-out markets
``0..ceil(eval_buyers / size) - 1`` (16 of 5x5, 4 of 20x20: 80 Buyers either way)."""


def _rng(*key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(list(key)))


class Adam:
    """Adam for gradient ascent on one parameter array."""

    def __init__(self, shape: tuple[int, ...], lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m, self.v = np.zeros(shape), np.zeros(shape)

    def step(self, params: np.ndarray, grad: np.ndarray) -> None:
        """Move ``params`` up ``grad`` in place."""
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * grad
        self.v = 0.999 * self.v + 0.001 * grad * grad
        m_hat, v_hat = self.m / (1 - 0.9 ** self.t), self.v / (1 - 0.999 ** self.t)
        params += self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return e / e.sum()


def _draw(p: np.ndarray, rng: np.random.Generator) -> int:
    return min(int(np.searchsorted(np.cumsum(p), rng.random() * p.sum(), side="right")), len(p) - 1)


class MerchantLearner:
    """A Merchant's price policy: softmax over :data:`GRID_BP` with logits ``W @ phi(own mandate)``."""

    def __init__(self, lr: float) -> None:
        self.w = np.zeros((len(GRID_BP), 3))
        self.opt = Adam(self.w.shape, lr)

    @staticmethod
    def features(obs: dict[str, Any]) -> np.ndarray:
        """A bias, the mandated margin and the cost (the Merchant's own mandate only)."""
        m = obs["mandate"]
        return np.array([1.0, m["margin_bp"] / 2_500, (m["cost"] - 2_500) / 1_000])

    def act(self, obs: dict[str, Any], rng: np.random.Generator | None) -> tuple[Any, np.ndarray]:
        """The ``update_listing`` action and ``grad log pi`` (``rng`` None: the mode)."""
        phi = self.features(obs)
        p = _softmax(self.w @ phi)
        a = int(np.argmax(p)) if rng is None else _draw(p, rng)
        cost = obs["mandate"]["cost"]
        grad = np.outer(np.eye(len(GRID_BP))[a] - p, phi)
        price = cost + cost * GRID_BP[a] // 10_000
        return {"kind": "update_listing", "listing_id": obs["listing"]["listing_id"], "price": price}, grad

    def update(self, grad: np.ndarray) -> None:
        """One ascent step."""
        self.opt.step(self.w, grad)


class BuyerLearner:
    """A Buyer's ranking policy: Plackett-Luce over its candidates and a stop item, scores ``theta . x``."""

    def __init__(self, lr: float) -> None:
        self.theta = np.zeros(4)
        self.opt = Adam(self.theta.shape, lr)

    @staticmethod
    def features(obs: dict[str, Any]) -> tuple[np.ndarray, list[str]]:
        """Rows: each candidate (own surplus at the posted price, price, relevance, 0), then stop (0, 0, 0, 1)."""
        values = obs["mandate"]["values"]
        rows = [[(values[c["merchant"]] - c["price"]) / 1_000, (c["price"] - 4_000) / 1_000,
                 (c["relevance"] - 50) / 50, 0.0] for c in obs["candidates"]]
        return np.array([*rows, [0.0, 0.0, 0.0, 1.0]]), [c["listing_id"] for c in obs["candidates"]]

    def act(self, obs: dict[str, Any], rng: np.random.Generator | None) -> tuple[Any, np.ndarray]:
        """The ranking and ``grad log pi`` (``rng`` None: candidates scoring above stop, best first)."""
        x, ids = self.features(obs)
        scores = x @ self.theta
        stop = len(ids)
        grad = np.zeros_like(self.theta)
        if rng is None:
            order = sorted(range(stop), key=lambda i: (-scores[i], i))
            return {"rank": [ids[i] for i in order if scores[i] > scores[stop]]}, grad
        left, rank = list(range(stop + 1)), []
        while len(left) > 1:
            p = _softmax(scores[left])
            pick = _draw(p, rng)
            grad += x[left[pick]] - p @ x[left]
            chosen = left.pop(pick)
            if chosen == stop:
                break
            rank.append(ids[chosen])
        return {"rank": rank}, grad

    def update(self, grad: np.ndarray) -> None:
        """One ascent step."""
        self.opt.step(self.theta, grad)


Learners = dict[str, MerchantLearner | BuyerLearner]


def play(size: int, market: int, learners: Learners, rngs: dict[str, np.random.Generator | None] | None,
         baseline: str | None = None) -> dict[str, Any]:
    """One episode of the ``size`` x ``size`` market ``market``.

    Agents in ``learners`` take their strategic decision (quote or rank) from it, sampling with
    ``rngs[agent]`` (None: the mode); every other decision is the truthful agent's, or with
    ``baseline="random"`` the env's random agent's. Returns each agent's return, each learner's
    ``grad log pi`` and the host's outcome (welfare report, markups).
    """
    env = acworld_env.make("market-v1", buyers=size, merchants=size, seed=market, k=K, parallel=True)
    obs, _ = env.reset()
    scripted: dict[str, Callable[[dict[str, Any]], Any]] = (
        {a: random_agent(a, market) for a in env.possible_agents} if baseline == "random"
        else dict.fromkeys(env.possible_agents, truthful))
    returns = dict.fromkeys(env.possible_agents, 0.0)
    grads: dict[str, np.ndarray] = {}
    while env.agents:
        actions: dict[str, Any] = {}
        for agent, o in obs.items():
            if not o["my_turn"]:
                continue
            strategic = (o["phase"], o["role"]) in {("quote", "merchant"), ("rank", "buyer")}
            if strategic and agent in learners:
                actions[agent], grads[agent] = learners[agent].act(o, None if rngs is None else rngs[agent])
            else:
                actions[agent] = scripted[agent](o)
        obs, rewards, *_ = env.step(actions)
        for agent, r in rewards.items():
            returns[agent] += r
    return {"returns": returns, "grads": grads, **_outcome(env)}


def _outcome(env: Any) -> dict[str, Any]:
    """Host-side figures of a finished episode (welfare and markups use private costs)."""
    s = env.market
    cost = {mm.listing_id: mm.cost for mm in s.mandates.merchants}
    traded = [s.quotes[lid] / cost[lid] - 1 for _, lid in s.completed_trades()]
    listed = [s.quotes[lid] / cost[lid] - 1 for lid in cost]
    w = env.welfare_report()["welfare"]  # its ratio_global is rounded: take the exact one from its integers
    ratio = w["realised"] / w["global_optimum"] if w["global_optimum"] else 1.0
    return {"welfare": w, "ratio": ratio, "traded": traded, "listed": listed}


def _summarise(episodes: list[dict[str, Any]], size: int) -> dict[str, Any]:
    """Mean figures over episodes (markups pooled over items)."""
    def side(prefix: str) -> float:
        return float(np.mean([r for e in episodes for a, r in e["returns"].items() if a.startswith(prefix)]))
    traded = [m for e in episodes for m in e["traded"]]
    return {"welfare_ratio": _r(np.mean([e["ratio"] for e in episodes])),
            "markup_traded": _r(np.mean(traded)) if traded else None,
            "markup_listed": _r(np.mean([m for e in episodes for m in e["listed"]])),
            "buyer_reward": _r(side("buyer_")), "merchant_reward": _r(side("merchant_")),
            "trade_rate": _r(np.mean([e["welfare"]["trades"] for e in episodes]) / size)}


def _r(x: float) -> float:
    return round(float(x), 6)


def _agents(size: int) -> tuple[list[str], list[str]]:
    return [f"buyer_{i:04d}" for i in range(size)], [f"merchant_{j:04d}" for j in range(size)]


def evaluate(size: int, seed: int, markets: int, learners: Learners, pairing: str, greedy: bool = False
             ) -> dict[str, Any]:
    """The ``pairing``'s figures over held-out markets ``0..markets-1`` (common random numbers per market)."""
    buyers, merchants = _agents(size)
    side = {"learned": buyers + merchants, "learned_merchants": merchants, "learned_buyers": buyers}[pairing]
    playing = {a: learners[a] for a in side}
    episodes = []
    for market in range(markets):
        rngs = None if greedy else {a: _rng(size, seed, market, i, 7) for i, a in enumerate(buyers + merchants)}
        episodes.append(play(size, market, playing, rngs))
    return _summarise(episodes, size)


def baselines(size: int, markets: int) -> dict[str, Any]:
    """Truthful and random agents on the held-out markets; the truthful per-market welfare ratios too."""
    out: dict[str, Any] = {}
    for kind in ("truthful", "random"):
        episodes = [play(size, market, {}, None, baseline=kind) for market in range(markets)]
        out[kind] = _summarise(episodes, size)
        out[kind]["per_market_welfare_ratio"] = [_r(e["ratio"]) for e in episodes]
    return out


def train(s: Settings) -> dict[str, Any]:
    """One run: every agent of the ``s.size`` x ``s.size`` market learns; the curves at every checkpoint."""
    buyers, merchants = _agents(s.size)
    learners: Learners = {a: BuyerLearner(s.lr) for a in buyers}
    learners.update({a: MerchantLearner(s.lr) for a in merchants})
    rngs: dict[str, np.random.Generator | None] = {a: _rng(s.size, s.seed, i) for i, a in enumerate(learners)}
    checkpoints, window = [], []

    def checkpoint(iteration: int) -> None:
        point = {"iteration": iteration, "episodes": iteration * s.batch,
                 "train": ({k: _r(np.mean([w[k] for w in window])) for k in window[0]} if window else None),
                 "eval": {p: evaluate(s.size, s.seed, s.eval_markets, learners, p) for p in PAIRINGS}}
        checkpoints.append(point)
        window.clear()

    checkpoint(0)
    for it in range(s.iterations):
        batch = [play(s.size, 1_000_000 * (s.seed + 1) + it * s.batch + b, learners, rngs) for b in range(s.batch)]
        for agent, learner in learners.items():
            r = np.array([e["returns"][agent] for e in batch])
            adv = r - (r.sum() - r) / (len(r) - 1)
            learner.update(sum(a * e["grads"][agent] for a, e in zip(adv, batch, strict=True)) / len(batch))
        window.append({"buyer_reward": np.mean([e["returns"][a] for e in batch for a in buyers]),
                       "merchant_reward": np.mean([e["returns"][a] for e in batch for a in merchants]),
                       "welfare_ratio": np.mean([e["ratio"] for e in batch])})
        if (it + 1) % s.checkpoint_every == 0 or it + 1 == s.iterations:
            checkpoint(it + 1)
    final_greedy = {p: evaluate(s.size, s.seed, s.eval_markets, learners, p, greedy=True) for p in PAIRINGS}
    grid = np.array(GRID_BP) / 10_000
    policy = {"merchant_mean_markup_at_mean_mandate": _r(np.mean(
        [_softmax(learners[a].w @ np.array([1.0, 0.6, 0.0])) @ grid for a in merchants])),  # type: ignore[union-attr]
        "buyer_theta_mean": [_r(x) for x in np.mean([learners[a].theta for a in buyers], axis=0)]}  # type: ignore[union-attr]
    return {"settings": dataclasses.asdict(s), "key": s.key(), "checkpoints": checkpoints,
            "final_greedy": final_greedy, "policy": policy}


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def run(s: Settings, folder: Path) -> dict[str, Any]:
    """The run's record from ``folder`` when its key matches, else trained and written there."""
    path = folder / f"{s.size}x{s.size}_seed{s.seed}.json"
    if path.exists():
        old = json.loads(path.read_text())
        if old.get("key") == s.key():
            return old
    record = train(s)
    _write(path, record)
    return record


def _band(runs: list[dict[str, Any]], get: Callable[[dict[str, Any]], float | None]) -> dict[str, list]:
    """Mean, min and max over seeds of one figure at every checkpoint."""
    rows = [[get(c) for c in r["checkpoints"]] for r in runs]
    out: dict[str, list] = {"mean": [], "min": [], "max": []}
    for col in zip(*rows, strict=True):
        vals = [v for v in col if v is not None]
        out["mean"].append(_r(np.mean(vals)) if vals else None)
        out["min"].append(_r(min(vals)) if vals else None)
        out["max"].append(_r(max(vals)) if vals else None)
    return out


def study(quick: bool, out: Path = DEFAULT_OUT, folder: Path | None = None, *, sizes: tuple[int, ...] | None = None,
          seeds: tuple[int, ...] | None = None) -> dict[str, Any]:
    """Run (or reuse) every (size, seed) run, write ``out`` (JSON) and ``out`` with ``.png``; return the record.

    ``quick``: :data:`QUICK` settings, else :data:`FULL`; ``sizes`` picks the sizes (a size the mode
    lacks gets seeds 0..2) and ``seeds`` replaces every size's seeds. ``folder`` holds the per-run
    records (default ``.study/<out stem>``); a run whose key matches is reused, not trained.

    The record (no timings, so the same settings give the same bytes): ``settings``; ``runs`` (per
    size, one per seed: its checkpoints with the training window's means under ``train`` and every
    pairing's held-out figures under ``eval``, ``final_greedy``, a ``policy`` summary); ``baselines``
    (per size: ``truthful`` and ``random`` agents, with the truthful per-market welfare ratios);
    ``curves`` (per size, pairing and metric: ``mean``/``min``/``max`` over seeds at every
    checkpoint ``iteration``, plus ``train``); ``final`` (per size and pairing, and pairing
    ``+ "_greedy"``: each metric's mean/min/max at the end).
    """
    conf = dict(QUICK if quick else FULL)
    plan = {n: tuple(seeds or conf["sizes"].get(n, (0, 1, 2))) for n in (sizes or conf["sizes"])}
    folder = folder or Path(".study") / Path(out).stem
    settings = {**{k: v for k, v in conf.items() if k != "sizes"}, "quick": quick, "version": VERSION,
                "grid_bp": list(GRID_BP), "k": K, "pairings": list(PAIRINGS),
                "seeds": {f"{n}x{n}": list(s) for n, s in plan.items()},
                "eval_markets": {f"{n}x{n}": -(-conf["eval_buyers"] // n) for n in plan}}
    record: dict[str, Any] = {"settings": settings, "runs": {}, "baselines": {}, "curves": {}, "final": {}}
    for size, size_seeds in plan.items():
        name = f"{size}x{size}"
        markets = settings["eval_markets"][name]
        runs = [run(Settings(size, seed, conf["iterations"], conf["batch"], conf["checkpoint_every"], markets),
                     folder) for seed in size_seeds]
        record["runs"][name] = runs
        record["baselines"][name] = baselines(size, markets)
        curves: dict[str, Any] = {"iteration": [c["iteration"] for c in runs[0]["checkpoints"]]}
        for p in PAIRINGS:
            curves[p] = {m: _band(runs, lambda c, p=p, m=m: c["eval"][p][m]) for m in METRICS}
        curves["train"] = {m: _band(runs, lambda c, m=m: (c["train"] or {}).get(m))
                           for m in ("buyer_reward", "merchant_reward", "welfare_ratio")}
        record["curves"][name] = curves
        final: dict[str, Any] = {}
        for p in PAIRINGS:
            final[p] = {m: {k: v[-1] for k, v in curves[p][m].items()} for m in METRICS}
            final[p + "_greedy"] = {m: _band([{"checkpoints": [r["final_greedy"]]} for r in runs],
                                             lambda c, p=p, m=m: c[p][m]) for m in METRICS}
            final[p + "_greedy"] = {m: {k: v[0] for k, v in b.items()} for m, b in final[p + "_greedy"].items()}
        record["final"][name] = final
    _write(Path(out), record)
    figure(record, Path(out).with_suffix(".png"))
    return record


def figure(record: dict[str, Any], path: Path) -> None:
    """Welfare / optimum, markup of traded items and each side's reward over training, per size, with bands."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = list(record["curves"])
    rows = (("welfare_ratio", "welfare / global optimum"), ("markup_traded", "markup over cost (traded)"),
            ("merchant_reward", "Merchant reward"), ("buyer_reward", "Buyer reward"))
    fig, axes = plt.subplots(len(rows), len(sizes), figsize=(5.2 * len(sizes), 2.6 * len(rows)), squeeze=False)
    colours = {"learned": "C0", "learned_merchants": "C1", "learned_buyers": "C2"}
    labels = {"learned": "both learned", "learned_merchants": "learned Merchants, truthful Buyers",
              "learned_buyers": "truthful Merchants, learned Buyers"}
    for col, size in enumerate(sizes):
        curves, base = record["curves"][size], record["baselines"][size]
        x = np.array(curves["iteration"]) * record["settings"]["batch"]
        for row, (metric, title) in enumerate(rows):
            ax = axes[row][col]
            for p in PAIRINGS:
                band = curves[p][metric]
                mean = np.array([np.nan if v is None else v for v in band["mean"]], dtype=float)
                lo = np.array([np.nan if v is None else v for v in band["min"]], dtype=float)
                hi = np.array([np.nan if v is None else v for v in band["max"]], dtype=float)
                ax.plot(x, mean, color=colours[p], label=labels[p])
                ax.fill_between(x, lo, hi, color=colours[p], alpha=0.2)
            for kind, style in (("truthful", "--"), ("random", ":")):
                if base[kind][metric] is not None:
                    ax.axhline(base[kind][metric], color="k", ls=style, lw=1, label=f"{kind} agents")
            ax.set_title(f"{size}: {title}", fontsize=9)
            ax.set_xlabel("training episodes", fontsize=8)
            ax.tick_params(labelsize=7)
    axes[0][0].legend(fontsize=6, loc="lower right")
    seeds = ", ".join(f"{n}: {len(s)} seeds" for n, s in record["settings"]["seeds"].items())
    fig.suptitle(f"market-v1, independent learners on held-out markets\n(mean and min-max band; {seeds})",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def markdown(record: dict[str, Any]) -> str:
    """A results table: per size and pairing, the start and end of training (mean [min, max] over seeds)."""
    def cell(band: dict[str, float | None], pct: bool = False) -> str:
        if band["mean"] is None:
            return "-"
        f = (lambda v: f"{100 * v:.1f} %") if pct else (lambda v: f"{v:.3f}")
        return f"{f(band['mean'])} [{f(band['min'])}, {f(band['max'])}]"

    def flat(v: float | None, pct: bool = False) -> str:
        return "-" if v is None else (f"{100 * v:.1f} %" if pct else f"{v:.3f}")

    head = ("| size | agents | when | welfare / optimum | markup (traded) | markup (listed) | Merchant reward "
            "| Buyer reward | trade rate |\n|---|---|---|---|---|---|---|---|---|")
    lines = [head]
    names = {"learned": "both learned", "learned_merchants": "learned M vs truthful B",
             "learned_buyers": "truthful M vs learned B"}
    for size, curves in record["curves"].items():
        base = record["baselines"][size]
        for kind in ("truthful", "random"):
            b = base[kind]
            lines.append(f"| {size} | {kind} | - | {flat(b['welfare_ratio'], True)} | "
                         f"{flat(b['markup_traded'], True)} | {flat(b['markup_listed'], True)} | {flat(b['merchant_reward'])} | "
                         f"{flat(b['buyer_reward'])} | {flat(b['trade_rate'], True)} |")
        for p in PAIRINGS:
            for when, pick in (("start", lambda band: {k: v[0] for k, v in band.items()}),
                               ("end", lambda band: {k: v[-1] for k, v in band.items()})):
                c = {m: pick(curves[p][m]) for m in METRICS}
                lines.append(f"| {size} | {names[p]} | {when} | {cell(c['welfare_ratio'], True)} | "
                             f"{cell(c['markup_traded'], True)} | {cell(c['markup_listed'], True)} | {cell(c['merchant_reward'])} | "
                             f"{cell(c['buyer_reward'])} | {cell(c['trade_rate'], True)} |")
            g = record["final"][size][p + "_greedy"]
            lines.append(f"| {size} | {names[p]} | end, greedy | {cell(g['welfare_ratio'], True)} | "
                         f"{cell(g['markup_traded'], True)} | {cell(g['markup_listed'], True)} | {cell(g['merchant_reward'])} | "
                         f"{cell(g['buyer_reward'])} | {cell(g['trade_rate'], True)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: run the study (or print a recorded one's table)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="5x5, seeds 0 and 1, 150 iterations of 8 episodes")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the JSON record (the figure goes beside it)")
    ap.add_argument("--folder", type=Path, default=None, help="per-run records (default .study/<out stem>)")
    ap.add_argument("--seeds", type=int, nargs="+", default=None, help="override the mode's seeds")
    ap.add_argument("--sizes", type=int, nargs="+", default=None, help="override the mode's sizes (n x n)")
    ap.add_argument("--table", type=Path, default=None, help="print the table of a recorded study and exit")
    args = ap.parse_args(argv)
    if args.table is not None:
        print(markdown(json.loads(args.table.read_text())))
        return 0
    start = time.monotonic()
    record = study(args.quick, args.out, args.folder, sizes=tuple(args.sizes or ()) or None,
                   seeds=tuple(args.seeds or ()) or None)
    print(markdown(record))
    print(f"\nwrote {args.out} and {Path(args.out).with_suffix('.png')} in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
