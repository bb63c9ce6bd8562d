"""Both sides learn: a Buyer and a Merchant trained together on T4 negotiation, with cross-play and exploitability.

    pip install 'acworld-env[rl]'
    python examples/selfplay_study.py --out baselines/selfplay_study.json          # the recorded study
    python examples/selfplay_study.py --quick --out /tmp/selfplay.json               # <= 3 min
    python examples/selfplay_study.py --tables baselines/selfplay_study.json         # README table, figures again

Every T4 task is played with ``counterparties="agents"``: the Buyer and the Merchant are both agents,
each paid by its own rubric (the evaluated actor by the task's predicates, the other by the rubric
:mod:`acworld_env.tasks.sides` derives: limit kept, limit private, share of the zone of agreement).
Two independent slot-scoring learners (``examples/slot_learner.py``: the same network, cloning and PPO)
play the two roles through :class:`~acworld_env.wrappers.selfplay.SelfPlayMenu`: each round the Buyer
collects one PPO rollout against the Merchant's current (sampling) policy and updates, then the
Merchant does the same against the Buyer's. Both start from cloning the references of all ten families (both roles'
demonstrations, hints off) or from scratch; several seeds each.

Evaluation, always greedy and on tasks no learner trained on (the held-out generated seed and the
frozen suite's T4; training uses the generated training seeds only):

* **curves**: at every checkpoint, each side against the scripted tactics (the task's own
  counterparty: its Faratin-style time-dependent tactic) and against the other side's checkpoint of
  the same round; per side the score, the deal rate where a zone of agreement exists, the share of
  the zone it kept, private-limit leaks, limit crossings, rejected proposals;
* **cross-play**: every Buyer checkpoint of every seed x every Merchant checkpoint x the scripted
  tactics (matrices of each side's score and of the deal rate);
* **exploitability**: for each final policy, a fresh learner (from the same start as the trained
  ones: the clone, or scratch) trained for a fixed budget against it, frozen; its gain over the final
  policy's own co-trained partner against the same opponent. A policy that only beats the scripted
  tactics shows up here as a large gain.

Each run, exploiter and cross-play cell writes its record to the run folder (``--resume DIR``,
default ``.study/<out stem>``) when it finishes; a second call reuses every record whose settings and
learner bytes match, so the study can span several sittings (``wall_s`` sums them).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
import menu_learner as ml  # noqa: E402
import reward_study as rs  # noqa: E402
import slot_learner as sl  # noqa: E402
from study_report import fixed  # noqa: E402

FAMILY = "T4_negotiation"
ROLES = ("buyer", "merchant")
INITS = ("clone", "scratch")
HINTS = "off"
"""Hints go to the evaluated actor only, so with two learners they would favour one side: off."""
REWARD = "potential"
HELDOUT_SEED = 1
DEFAULT_TRAIN_SEEDS = tuple(ml.DEFAULT_TRAIN_SEEDS)
SCRIPTED = "scripted"
NEEDS = "torch and matplotlib (pip install 'acworld-env[rl]')"
SOURCES = (ROOT / "examples" / "slot_learner.py", ROOT / "acworld_env" / "wrappers" / "selfplay.py")
"""Files whose bytes key the records (a changed learner or play loop trains again)."""


@dataclass(frozen=True)
class Settings:
    """What a run's record depends on."""

    rounds: int = 8
    round_steps: int = 2048
    checkpoint_every: int = 2
    exploit_steps: int = 8192
    train_seeds: tuple[int, ...] = DEFAULT_TRAIN_SEEDS
    heldout_seed: int = HELDOUT_SEED

    def key(self, *parts: Any) -> str:
        """A digest of these settings, the sources, the env's sources (a changed rubric trains again) and ``parts``."""
        text = json.dumps([asdict(self), [hashlib.sha256(p.read_bytes()).hexdigest() for p in SOURCES],
                           ml.source_digest(ml.BUILDER_SOURCES), ml.source_digest(sl.SLOT_SOURCES),
                           _env_sources(), *parts],
                          default=list)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@functools.cache
def _env_sources() -> str:
    """The env's source digest, hashed once per process (every run, exploiter and cross-play key holds it)."""
    return rs.env_digest()


QUICK = Settings(rounds=2, round_steps=1536, checkpoint_every=2, exploit_steps=256, train_seeds=(2, 3))


# -- policies ------------------------------------------------------------------------------------
CLONE_FAMILIES: list[str] | None = None
"""What the clone start imitates: every family's references (``None``), both roles, hints off. Cloning on T4's
alone (1,667 steps of demonstration) underfits: 0.37 / 0.42 held-out against the scripted tactics as Buyer /
Merchant, against 0.61 / 0.92 for the clone of all ten families (13,937 steps), which T4 self-play then tunes."""


def start_key(init: str) -> str:
    """What a run's start depends on beyond its seed (part of its record's key)."""
    return f"clone:{CLONE_FAMILIES or 'all-families'}" if init == "clone" else init


def new_learner(init: str, seed: int, settings: Settings) -> Any:
    """A fresh slot learner: cloned on the training seeds' references (:data:`CLONE_FAMILIES`), or a random scorer."""
    import torch

    from acworld_env.wrappers.menu import n_features

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    actor, critic = sl._modules(n_features(sl.FEATURISER))
    learner = sl.Learner(actor=actor, critic=critic, hints=HINTS)
    if init == "clone":
        learner.bc_report = sl._cloned(learner, hints=HINTS, families=CLONE_FAMILIES, seeds=list(settings.train_seeds),
                                       seed=seed, reward=REWARD)
    elif init != "scratch":
        raise SystemExit(f"init must be one of {INITS}, not {init!r}")
    return learner


def sampler(learner: Any, seed: int) -> Callable[[str, dict[str, Any]], int]:
    """The learner's current policy, sampling (what its partner trains against)."""
    rng = np.random.default_rng(seed)

    def act(agent: str, obs: dict[str, Any]) -> int:
        slots = _open(obs)
        pos, _, _ = sl._act(learner, obs["observation"], obs["slot_features"][slots], slots, rng)
        return int(slots[pos])
    return act


def greedy(weights: dict[str, np.ndarray]) -> Callable[[str, dict[str, Any]], int]:
    """The argmax of exported weights, in numpy (as ``acworld eval --policy sb3:PATH.npz`` plays them)."""
    from acworld_env.wrappers.slot_scorer import scorer_logits

    def act(agent: str, obs: dict[str, Any]) -> int:
        slots = _open(obs)
        logits = scorer_logits(weights, obs["observation"], obs["slot_features"][slots], slots)
        return int(slots[int(np.argmax(logits))])
    return act


def _open(obs: dict[str, Any]) -> np.ndarray:
    slots = np.flatnonzero(obs["action_mask"])
    return slots if len(slots) else np.array([0])


def _save_weights(learner: Any, path: Path) -> Path:
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as fh:
        np.savez(fh, **learner.actor.export())
    os.replace(tmp, path)
    return path


def load_weights(path: Path) -> dict[str, np.ndarray]:
    """A checkpoint's weights (plain arrays; never unpickled)."""
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


# -- tasks and play -----------------------------------------------------------------------------
def t4_tasks(split: str, seed: int = 0) -> list[Any]:
    """The T4 tasks of a split (``generated`` of ``seed``, or ``frozen``)."""
    return ml.pick_families(ml.suite_tasks(split, seed), [FAMILY])


def train_tasks(settings: Settings) -> list[Any]:
    """The T4 tasks of the training seeds."""
    return [t for s in settings.train_seeds for t in t4_tasks("generated", s)]


def play_pair(buyer: Callable, merchant: Callable, tasks: list[Any], *, seed: int = 0) -> list[dict[str, Any]]:
    """Both sides as agents on every task (greedy callables); each episode's :func:`deal_outcome`."""
    from acworld_env.wrappers.selfplay import SelfPlayMenu

    env = SelfPlayMenu(tasks, role="buyer", opponent=merchant, hints=HINTS, reward=REWARD)
    out = []
    for task in tasks:
        obs, _ = env.reset(seed=seed, options={"task_id": task.task_id})
        done = env.over
        while not done:
            obs, _, term, trunc, _ = env.step(buyer("buyer", obs))
            done = term or trunc
        out.append(env.outcome())
    env.close()
    return out


def play_scripted(policy: Callable, role: str, tasks: list[Any], *, seed: int = 0) -> list[dict[str, Any]]:
    """``policy`` as the evaluated actor of every ``role`` task, against the task's scripted tactic."""
    import acworld_env
    from acworld_env.wrappers.menu import ActionMenu
    from acworld_env.wrappers.selfplay import deal_outcome

    mine = [t for t in tasks if t.initial_state["actors"][t.actor]["role"] == role]
    env = ActionMenu(acworld_env.make("capability-v1", tasks=mine, hints=HINTS, reward=REWARD), featuriser=sl.FEATURISER,
                     slot_features=True)
    raw = env.unwrapped
    out = []
    for task in mine:
        env.reset(seed=seed, options={"task_id": task.task_id})
        rejections = {task.actor: 0}
        for agent in env.agent_iter(max_iter=10_000):
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(policy(agent, obs))
            validation = raw.infos.get(agent, {}).get("validation") or {}
            rejections[agent] += int(bool(validation.get("kind")) and not validation.get("accepted", True))
        out.append(deal_outcome(raw, rejections))
    env.close()
    return out


def side_summary(outcomes: list[dict[str, Any]], role: str) -> dict[str, Any]:
    """One side's figures over episodes: score, deal rate (where a zone exists), zone share kept, leaks,
    crossings, rejections per episode."""
    sides = [o["sides"][role] for o in outcomes if o["sides"].get(role, {}).get("score") is not None]
    zopa = [o for o in outcomes if o["zopa"]]
    shares = [o["sides"][role]["surplus_share"] for o in zopa if o["sides"][role]["surplus_share"] is not None]

    def avg(xs: Sequence[float]) -> float | None:
        return round(float(np.mean(xs)), 4) if len(xs) else None
    return {"episodes": len(sides), "score": avg([s["score"] for s in sides]),
            "deal_rate": avg([float(o["deal"]) for o in zopa]),
            "no_zone_deals": sum(1 for o in outcomes if o["deal"] and not o["zopa"]),
            "surplus_share": avg(shares), "leak_rate": avg([float(s["leaked"]) for s in sides]),
            "crossing_rate": avg([float(s["crossed"]) for s in sides]),
            "rejections": avg([s["rejections"] for s in sides])}


def evaluate_pair(buyer_w: dict | None, merchant_w: dict | None, tasks: list[Any]) -> dict[str, Any]:
    """Each side against the scripted tactics and, when both are given, against each other."""
    out: dict[str, Any] = {}
    if buyer_w is not None:
        out["buyer_vs_scripted"] = side_summary(play_scripted(greedy(buyer_w), "buyer", tasks), "buyer")
    if merchant_w is not None:
        out["merchant_vs_scripted"] = side_summary(play_scripted(greedy(merchant_w), "merchant", tasks), "merchant")
    if buyer_w is not None and merchant_w is not None:
        pair = play_pair(greedy(buyer_w), greedy(merchant_w), tasks)
        out["vs_each_other"] = {r: side_summary(pair, r) for r in ROLES}
    return out


# -- one run: both sides trained together -------------------------------------------------------
def _record_path(folder: Path, name: str) -> Path:
    return folder / f"{name}.json"


def _write(path: Path, record: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, path)


def _read(path: Path, needs: str) -> dict[str, Any] | None:
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and needs in record else None


def run_selfplay(init: str, seed: int, settings: Settings, folder: str) -> dict[str, Any]:
    """Train a Buyer and a Merchant together; checkpoints (weights files) and the curve; the run's record."""
    from acworld_env.wrappers.selfplay import SelfPlayMenu

    started = time.perf_counter()
    out = Path(folder)
    name = f"run-{init}-s{seed}-{settings.key('run', start_key(init), seed)}"
    path = _record_path(out, name)
    if (done := _read(path, "final")) is not None:
        return done
    ppo = sl.PPO_TUNE if init == "clone" else sl.PPO_SCRATCH
    learners = {r: new_learner(init, seed if init == "clone" else seed * 2 + i, settings) for i, r in enumerate(ROLES)}
    tasks, heldout = train_tasks(settings), t4_tasks("generated", settings.heldout_seed)
    envs = {r: SelfPlayMenu(tasks, role=r, opponent=sampler(learners[o], seed * 7 + i), hints=HINTS, reward=REWARD)
            for i, (r, o) in enumerate((("buyer", "merchant"), ("merchant", "buyer")))}
    curve, checkpoints = [], {r: [] for r in ROLES}

    def checkpoint(rnd: int) -> None:
        weights = {}
        for r in ROLES:
            p = _save_weights(learners[r], out / f"{name}-{r}-r{rnd}.npz")
            checkpoints[r].append(p.name)
            weights[r] = load_weights(p)
        curve.append({"round": rnd, "steps_per_side": rnd * settings.round_steps,
                      **evaluate_pair(weights["buyer"], weights["merchant"], heldout)})

    checkpoint(0)
    for rnd in range(1, settings.rounds + 1):
        for i, (role, other) in enumerate((("buyer", "merchant"), ("merchant", "buyer"))):
            envs[role].set_opponent(sampler(learners[other], seed * 1_000 + rnd * 2 + i))
            sl.ppo(learners[role], envs[role], steps=settings.round_steps, seed=seed * 1_000 + rnd * 2 + i,
                   settings=ppo)
        if rnd % settings.checkpoint_every == 0 or rnd == settings.rounds:
            checkpoint(rnd)
    for env in envs.values():
        env.close()
    final = {r: load_weights(out / checkpoints[r][-1]) for r in ROLES}
    record = {"init": init, "seed": seed, "name": name, "checkpoints": checkpoints, "curve": curve,
              "bc": learners["buyer"].bc_report,
              "final": {"heldout": curve[-1], "frozen": evaluate_pair(final["buyer"], final["merchant"],
                                                                       t4_tasks("frozen"))},
              "wall_s": round(time.perf_counter() - started, 1)}
    _write(path, record)
    return record


def run_exploiter(init: str, seed: int, role: str, target: str, partner: str, settings: Settings,
                  folder: str) -> dict[str, Any]:
    """Train a fresh ``role`` learner against the frozen opponent ``target`` (a weights file) for the exploit
    budget; its held-out score against that opponent, beside ``partner``'s (the co-trained final policy)."""
    from acworld_env.wrappers.selfplay import SelfPlayMenu

    started = time.perf_counter()
    out = Path(folder)
    name = f"exploit-{init}-s{seed}-{role}-{settings.key('exploit', start_key(init), seed, role, target)}"
    path = _record_path(out, name)
    if (done := _read(path, "gain")) is not None:
        return done
    opponent_w = load_weights(out / target)
    learner = new_learner(init, seed if init == "clone" else seed * 2 + ROLES.index(role), settings)  # the partner's start
    env = SelfPlayMenu(train_tasks(settings), role=role, opponent=greedy(opponent_w), hints=HINTS, reward=REWARD)
    sl.ppo(learner, env, steps=settings.exploit_steps, seed=50_000 + seed,
           settings=sl.PPO_TUNE if init == "clone" else sl.PPO_SCRATCH)
    env.close()
    weights = learner.actor.export()
    heldout = t4_tasks("generated", settings.heldout_seed)
    mine, theirs = (weights, opponent_w) if role == "buyer" else (opponent_w, weights)
    partner_w = load_weights(out / partner)
    p_mine, p_theirs = (partner_w, opponent_w) if role == "buyer" else (opponent_w, partner_w)
    exploit = side_summary(play_pair(greedy(mine), greedy(theirs), heldout), role)
    own = side_summary(play_pair(greedy(p_mine), greedy(p_theirs), heldout), role)
    record = {"init": init, "seed": seed, "role": role, "opponent": target, "partner": partner,
              "exploiter": exploit, "partner_vs_opponent": own,
              "gain": round((exploit["score"] or 0.0) - (own["score"] or 0.0), 4),
              "steps": settings.exploit_steps, "wall_s": round(time.perf_counter() - started, 1)}
    _write(path, record)
    return record


def run_cell(buyer: str, merchant: str, folder: str, heldout_seed: int) -> dict[str, Any]:
    """One cross-play cell on the held-out tasks: each entry a weights file or ``"scripted"``."""
    out = Path(folder)
    tasks = t4_tasks("generated", heldout_seed)
    if buyer == SCRIPTED and merchant == SCRIPTED:
        return {"buyer": buyer, "merchant": merchant}
    if merchant == SCRIPTED:
        b = side_summary(play_scripted(greedy(load_weights(out / buyer)), "buyer", tasks), "buyer")
        return {"buyer": buyer, "merchant": merchant, "buyer_score": b["score"], "merchant_score": None,
                "deal_rate": b["deal_rate"]}
    if buyer == SCRIPTED:
        m = side_summary(play_scripted(greedy(load_weights(out / merchant)), "merchant", tasks), "merchant")
        return {"buyer": buyer, "merchant": merchant, "buyer_score": None, "merchant_score": m["score"],
                "deal_rate": m["deal_rate"]}
    pair = play_pair(greedy(load_weights(out / buyer)), greedy(load_weights(out / merchant)), tasks)
    b, m = side_summary(pair, "buyer"), side_summary(pair, "merchant")
    return {"buyer": buyer, "merchant": merchant, "buyer_score": b["score"], "merchant_score": m["score"],
            "deal_rate": b["deal_rate"], "buyer_share": b["surplus_share"], "merchant_share": m["surplus_share"]}


def _cells(folder: Path, settings: Settings, init: str, runs: list[dict[str, Any]], pool: Any) -> dict[str, Any]:
    """The cross-play matrix of one init: rows every Buyer checkpoint (and scripted), columns every Merchant's."""
    buyers = [c for r in runs for c in r["checkpoints"]["buyer"]] + [SCRIPTED]
    merchants = [c for r in runs for c in r["checkpoints"]["merchant"]] + [SCRIPTED]
    cache_path = folder / f"crossplay-{init}-{settings.key('cells', init, buyers, merchants)}.json"
    cached = _read(cache_path, "cells") or {"cells": {}}
    todo = [(b, m) for b in buyers for m in merchants if f"{b}|{m}" not in cached["cells"]]
    futures = {(b, m): pool.submit(run_cell, b, m, str(folder), settings.heldout_seed) for b, m in todo}
    for i, ((b, m), f) in enumerate(futures.items()):
        cached["cells"][f"{b}|{m}"] = f.result()
        if i % 16 == 15 or i == len(futures) - 1:
            _write(cache_path, cached)
    grid = {k: [[cached["cells"][f"{b}|{m}"].get(k) for m in merchants] for b in buyers]
            for k in ("buyer_score", "merchant_score", "deal_rate")}
    return {"buyers": buyers, "merchants": merchants, **grid}


# -- the study -----------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=str(ROOT / "baselines" / "selfplay_study.json"))
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--inits", nargs="+", default=list(INITS), choices=INITS)
    p.add_argument("--rounds", type=int, default=Settings.rounds)
    p.add_argument("--round-steps", type=int, default=Settings.round_steps)
    p.add_argument("--checkpoint-every", type=int, default=Settings.checkpoint_every)
    p.add_argument("--exploit-steps", type=int, default=Settings.exploit_steps)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--resume", default=None, help="the run folder (default .study/<out stem>)")
    p.add_argument("--policies", default=None, help="where the final policies of the first seed are kept, with "
                   "sidecars (default baselines/policies; with --quick, beside --out)")
    p.add_argument("--quick", action="store_true", help="one seed, scratch, two short rounds (<= 3 min)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--tables", type=Path, default=None, metavar="JSON",
                   help="Print the README's table from a recorded study, redraw its figures (unless --no-plot), "
                   "and exit.")
    return p.parse_args(argv)


def tables(path: Path, *, draw: bool) -> dict[str, Any]:
    """The recorded study at ``path``: print its markdown table and redraw its figures beside it."""
    try:
        record = json.loads(path.read_text())
        text = markdown(record)
        if draw:
            plot(record, path.with_suffix(".png"))
            plot_crossplay(record, path.with_name(path.stem + "_crossplay.png"))
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise SystemExit(f"selfplay_study.py: {path} is not a recorded self-play study "
                         f"({type(exc).__name__}: {exc})") from None
    print(text)
    return record


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run (or resume) the study and write its JSON (and figures)."""
    args = parse_args(argv)
    if args.tables is not None:
        return tables(args.tables, draw=not args.no_plot)
    if missing := rs.missing_libraries():
        raise SystemExit(f"the self-play study needs {NEEDS}; missing: {', '.join(missing)}")
    if args.quick:
        settings, seeds, inits = QUICK, [0], ["scratch"]
    else:
        settings = Settings(rounds=args.rounds, round_steps=args.round_steps, checkpoint_every=args.checkpoint_every,
                            exploit_steps=args.exploit_steps)
        seeds, inits = list(args.seeds), list(args.inits)
    out = Path(args.out)
    folder = Path(args.resume) if args.resume else rs.RESUME_ROOT / out.stem
    folder.mkdir(parents=True, exist_ok=True)
    sitting = rs._sittings(folder)
    started = time.perf_counter()
    for s in settings.train_seeds:  # build the task caches once, before the workers read them
        ml.generated(int(s))
    ml.generated(settings.heldout_seed)
    if "clone" in inits:
        for seed in seeds:  # clone once per seed in this process (the workers then read the cache)
            new_learner("clone", seed, settings)
    import multiprocessing

    with ProcessPoolExecutor(max_workers=max(1, args.workers), mp_context=multiprocessing.get_context("spawn"),
                             initializer=rs._torch_threads, initargs=(1,)) as pool:
        jobs = {(i, s): pool.submit(run_selfplay, i, s, settings, str(folder)) for i in inits for s in seeds}
        runs = {k: f.result() for k, f in jobs.items()}
        for (i, s), r in runs.items():
            print(f"run {i} s{s}: {_line(r['curve'][-1])} ({r['wall_s']} s)", flush=True)
        exploit_jobs = []
        for (i, s), r in runs.items():
            final = {role: r["checkpoints"][role][-1] for role in ROLES}
            for role, other in (("buyer", "merchant"), ("merchant", "buyer")):
                exploit_jobs.append(pool.submit(run_exploiter, i, s, role, final[other], final[role], settings,
                                                str(folder)))
        exploits = [f.result() for f in exploit_jobs]
        crossplay = {i: _cells(folder, settings, i, [runs[(i, s)] for s in seeds], pool) for i in inits}
    walls = rs._sittings(folder, sitting, time.perf_counter() - started)
    record = summarise(runs=list(runs.values()), exploits=exploits, crossplay=crossplay, settings=settings,
                       seeds=seeds, inits=inits)
    kept = keep_policies(record, folder, Path(args.policies) if args.policies else
                         (out.parent / "policies" if args.quick else ROOT / "baselines" / "policies"))
    record.update(policies=kept, checkpoint_sha256=_digests(folder, record["runs"]))
    if not args.quick and (market := market_record(MARKET_RECORD)) is not None:
        record["market"] = market
    record.update(command="python examples/selfplay_study.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                  run_folder=str(folder), wall_s=round(sum(walls), 1), sittings_wall_s=[round(w, 1) for w in walls],
                  learner=rs.learner_version(SOURCES[0]))
    out.parent.mkdir(parents=True, exist_ok=True)
    _write(out, record)
    if not args.no_plot:
        plot(record, out.with_suffix(".png"))
        plot_crossplay(record, out.with_name(out.stem + "_crossplay.png"))
    print(markdown(record))
    return record


MARKET_RECORD = ROOT / "baselines" / "selfplay_market.json"
"""The open-market learning study (``examples/market_learning.py``), embedded in the full record."""


def market_record(path: Path) -> dict[str, Any] | None:
    """The open-market study's curves, final figures and baselines (its per-run records stay in its own file,
    named here with its digest), or None when it is not recorded."""
    try:
        data = path.read_bytes()
        market = json.loads(data)
    except (OSError, ValueError):
        return None
    keep = {k: market[k] for k in ("settings", "baselines", "curves", "final") if k in market}
    return {"source": _shown(path), "sha256": hashlib.sha256(data).hexdigest(),
            "command": "python examples/market_learning.py", **keep}


def keep_policies(record: dict[str, Any], folder: Path, where: Path) -> list[dict[str, Any]]:
    """Copy each init's final Buyer and Merchant of its first seed to ``where`` as ``selfplay-<init>-<role>.npz``
    with the sidecar ``acworld eval --policy sb3:PATH`` reads; what each scored (held-out, greedy)."""
    import shutil

    from acworld_env.wrappers.slot_scorer import ARCHITECTURE, slot_signature
    from acworld_env.wrappers.trained import write_sidecar

    where.mkdir(parents=True, exist_ok=True)
    kept = []
    for init in record["config"]["inits"]:
        run = min((r for r in record["runs"] if r["init"] == init), key=lambda r: r["seed"])
        for role in ROLES:
            path = where / f"selfplay-{init}-{role}.npz"
            tmp = path.with_name(path.name + ".part")
            shutil.copyfile(folder / run["checkpoints"][role][-1], tmp)
            os.replace(tmp, path)
            write_sidecar(path, hints=HINTS, featuriser=sl.FEATURISER, net_arch=[sl.HIDDEN], activation="tanh",
                          algorithm="slot-scorer PPO, self-play", extra={
                              "architecture": ARCHITECTURE, "slots": slot_signature(), "bc": run.get("bc"),
                              "selfplay": {"init": init, "seed": run["seed"], "role": role, "run": run["name"]}})
            final = run["curve"][-1]
            kept.append({"path": _shown(path), "init": init, "seed": run["seed"], "role": role,
                         "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                         "heldout_vs_scripted": final[f"{role}_vs_scripted"]["score"],
                         "heldout_vs_each_other": final["vs_each_other"][role]["score"]})
    return kept


def _shown(path: Path) -> str:
    """``path`` relative to the repository when it lies inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _digests(folder: Path, runs: list[dict[str, Any]]) -> dict[str, str]:
    """SHA-256 of every checkpoint file the study's figures were measured on."""
    return {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
            for r in runs for role in ROLES for name in r["checkpoints"][role]}


def _line(point: dict[str, Any]) -> str:
    b, m = point.get("buyer_vs_scripted", {}), point.get("merchant_vs_scripted", {})
    each = point.get("vs_each_other", {})
    return (f"buyer {b.get('score')} vs scripted, merchant {m.get('score')} vs scripted; "
            f"each other: buyer {each.get('buyer', {}).get('score')}, merchant {each.get('merchant', {}).get('score')}, "
            f"deals {each.get('buyer', {}).get('deal_rate')}")


def _series(run: dict[str, Any], where: str, role: str, key: str = "score") -> list[float | None]:
    return [(p.get(where, {}).get(role) if where == "vs_each_other" else p.get(where, {})).get(key)
            if p.get(where) else None for p in run["curve"]]


def summarise(*, runs: list[dict[str, Any]], exploits: list[dict[str, Any]], crossplay: dict[str, Any],
              settings: Settings, seeds: list[int], inits: list[str]) -> dict[str, Any]:
    """Per init: each side's first and final figures over seeds (mean, spread, 95 % band), the gain of
    self-play training, and exploitability."""
    by_init: dict[str, Any] = {}
    for init in inits:
        mine = [r for r in runs if r["init"] == init]
        entry: dict[str, Any] = {}
        for role in ROLES:
            side: dict[str, Any] = {}
            for where in (f"{role}_vs_scripted", "vs_each_other"):
                for key in ("score", "deal_rate", "surplus_share", "leak_rate", "crossing_rate", "rejections"):
                    first = [v for r in mine if (v := _series(r, where, role, key)[0]) is not None]
                    last = [v for r in mine if (v := _series(r, where, role, key)[-1]) is not None]
                    side[f"{where.replace(role + '_', '')}.{key}"] = {"start": rs.band(first), "final": rs.band(last)}
            gains = [e["gain"] for e in exploits if e["init"] == init and e["role"] == role]
            side["exploitability"] = rs.band(gains)
            frozen = [r["final"]["frozen"].get(f"{role}_vs_scripted", {}).get("score") for r in mine]
            side["frozen_vs_scripted"] = rs.band([v for v in frozen if v is not None])
            entry[role] = side
        by_init[init] = entry
    return {"study": "both sides learn: self-play on T4 negotiation", "config": {
        **asdict(settings), "seeds": seeds, "inits": inits, "family": FAMILY, "hints": HINTS, "reward": REWARD,
        "learner": "examples/slot_learner.py", "ppo": {"clone": sl.PPO_TUNE, "scratch": sl.PPO_SCRATCH}},
        "runs": sorted(runs, key=lambda r: (r["init"], r["seed"])), "exploitability": exploits,
        "crossplay": crossplay, "by_init": by_init}


def markdown(record: dict[str, Any]) -> str:
    """The README table: each side's start and final figures per init, and its exploitability gain."""
    lines = ["| start | side | vs scripted tactics | vs the learned other side | deal rate (each other) "
             "| zone share kept | limit leaks | exploitability gain |", "|---|---|---|---|---|---|---|---|"]
    for init, entry in record["by_init"].items():
        for role in ROLES:
            e = entry[role]

            def arrow(k: str, e: dict = e) -> str:
                return f"{fixed(e[k]['start']['mean'])} -> {fixed(e[k]['final']['mean'])} (+-{_half(e[k]['final'])})"

            def final(k: str, digits: int, e: dict = e) -> str:
                return fixed(e[k]["final"]["mean"], digits)
            gain = e["exploitability"]
            lines.append(f"| {init} | {role} | {arrow('vs_scripted.score')} | {arrow('vs_each_other.score')} | "
                         f"{final('vs_each_other.deal_rate', 2)} | {final('vs_each_other.surplus_share', 2)} "
                         f"| {final('vs_each_other.leak_rate', 1)} | {_signed(gain['mean'])} "
                         f"[{_signed(gain['min'])}, {_signed(gain['max'])}] |")
    return "\n".join(lines)


def _signed(value: float | None) -> str:
    """A gain with its sign (an exact zero unsigned), to 3 decimals."""
    if value is None:
        return "n/a"
    return "0.000" if value == 0 else f"{value:+.3f}"


def _half(band: dict[str, Any]) -> str:
    if band.get("mean") is None or band.get("hi95") is None:
        return "n/a"
    return f"{band['hi95'] - band['mean']:.3f}"


def plot(record: dict[str, Any], path: Path) -> None:
    """Curves per init: each side's held-out score against the scripted tactics and against each other, mean
    over seeds with the min-max band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    inits = list(record["by_init"])
    fig, axes = plt.subplots(1, len(inits), figsize=(6 * len(inits), 4), squeeze=False)
    for ax, init in zip(axes[0], inits, strict=True):
        runs = [r for r in record["runs"] if r["init"] == init]
        x = [p["steps_per_side"] for p in runs[0]["curve"]]
        for role, color in (("buyer", "tab:blue"), ("merchant", "tab:orange")):
            for where, style in ((f"{role}_vs_scripted", "--"), ("vs_each_other", "-")):
                ys = np.array([[v if v is not None else np.nan for v in _series(r, where, role)] for r in runs])
                label = f"{role} vs {'scripted' if 'scripted' in where else 'learned ' + _other(role)}"
                ax.plot(x, np.nanmean(ys, 0), style, color=color, label=label)
                ax.fill_between(x, np.nanmin(ys, 0), np.nanmax(ys, 0), color=color, alpha=0.12)
        ax.set_title(f"T4 self-play from {init} ({len(runs)} seeds, held-out)")
        ax.set_xlabel("PPO env steps per side")
        ax.set_ylabel("score")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _other(role: str) -> str:
    return "merchant" if role == "buyer" else "buyer"


def plot_crossplay(record: dict[str, Any], path: Path) -> None:
    """Heatmaps of the cross-play matrices: the Buyer's and the Merchant's held-out score per cell."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    inits = list(record["crossplay"])
    fig, axes = plt.subplots(len(inits), 2, figsize=(12, 5 * len(inits)), squeeze=False)
    for row, init in zip(axes, inits, strict=True):
        cp = record["crossplay"][init]
        for ax, key in zip(row, ("buyer_score", "merchant_score"), strict=True):
            grid = np.array([[v if v is not None else np.nan for v in line] for line in cp[key]], dtype=float)
            im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis")
            ax.set_xticks(range(len(cp["merchants"])), [_short(m) for m in cp["merchants"]], rotation=90, fontsize=6)
            ax.set_yticks(range(len(cp["buyers"])), [_short(b) for b in cp["buyers"]], fontsize=6)
            ax.set_xlabel("merchant checkpoint")
            ax.set_ylabel("buyer checkpoint")
            ax.set_title(f"{init}: {key.replace('_', ' ')}")
            fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _short(name: str) -> str:
    """``run-clone-s0-<key>-buyer-r4.npz`` -> ``s0 r4``."""
    if name == SCRIPTED:
        return SCRIPTED
    parts = name.removesuffix(".npz").split("-")
    return f"{parts[2]} {parts[-1]}"


if __name__ == "__main__":
    main()
