"""What one training step of the slot-scoring learner costs, and what a from-scratch study then takes.

Workload: the single-agent menu view of ``capability-v1``'s 200 frozen tasks, a random open slot each
step, auto-reset, one process (as a study's worker runs it, torch on one thread). Timed loops, each
``--steps`` env steps after ``--warmup`` untimed ones, best of ``--repeat``:

* ``menu``: ``GymActionMenu(..., featuriser="bow")``, the observation encoding and the mask;
* ``menu + slot features``: the same with ``slot_features=True`` (every open slot's feature row);
* ``scorer forward``: :mod:`examples.slot_learner`'s actor and critic on one step's observation and
  open slots (what PPO's rollout does per step, without the env);
* ``PPO``: :func:`examples.slot_learner.ppo` from an untrained learner (rollouts, advantages and the
  clipped updates), per env step; one rollout of ``--steps`` (no warm-up: the env is reset once
  before the clock starts).

Printed: microseconds per env step and steps per second for each loop, the share of a PPO step the
slot features take, and the hours a study of ``--runs`` runs of ``--budget`` env steps needs on
``--workers`` cores at the measured PPO rate (held-out evaluations not included).

    python benchmarks/bench_slot_learner.py [--steps 1024] [--warmup 64] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import acworld_env  # noqa: F401  (registers the Gymnasium ids)
from acworld_env.wrappers.menu import GymActionMenu

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
ENV_ID = "acworld/capability-v1"


def menu_env(slot_features: bool) -> GymActionMenu:
    """The menu view over the frozen suite, with or without the slot features."""
    inner = gymnasium.make(ENV_ID, hints="structured", reward="potential", disable_env_checker=True)
    return GymActionMenu(inner, featuriser="bow", slot_features=slot_features)


def time_env(slot_features: bool, steps: int, warmup: int, seed: int) -> float:
    """Seconds for ``steps`` random-slot env steps (after ``warmup`` untimed ones)."""
    env, rng = menu_env(slot_features), np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    start, episode = 0.0, 0
    for i in range(warmup + steps):
        if i == warmup:
            start = time.perf_counter()
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if term or trunc:
            episode += 1
            obs, _ = env.reset(seed=seed + episode)
    elapsed = time.perf_counter() - start
    env.close()
    return elapsed


def _untrained(seed: int) -> Any:
    """An untrained slot-scorer learner (actor and critic), torch on one thread, seeded."""
    import slot_learner as sl
    import torch

    from acworld_env.wrappers.menu import n_features

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    actor, critic = sl._modules(n_features("bow"))
    return sl.Learner(actor=actor, critic=critic, hints="structured")


def time_forward(steps: int, seed: int) -> float:
    """Seconds for ``steps`` actor+critic forwards on recorded steps (no env in the loop)."""
    import slot_learner as sl

    learner = _untrained(seed)
    env, rng = menu_env(True), np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    recorded: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for _ in range(min(steps, 256)):
        slots = np.flatnonzero(obs["action_mask"])
        recorded.append((obs["observation"], obs["slot_features"][slots], slots))
        obs, _, term, trunc, _ = env.step(int(rng.choice(slots)))
        if term or trunc:
            obs, _ = env.reset(seed=seed + len(recorded))
    env.close()
    start = time.perf_counter()
    for i in range(steps):
        x, rows, slots = recorded[i % len(recorded)]
        sl._act(learner, x, rows, slots, rng)
    return time.perf_counter() - start


def time_ppo(steps: int, seed: int) -> float:
    """Seconds per ``steps`` env steps of the learner's PPO from scratch (one rollout of ``steps``)."""
    import slot_learner as sl

    learner = _untrained(seed)
    env = menu_env(True)
    env.reset(seed=seed)  # the tasks built and the imports done before the clock starts
    settings: dict[str, Any] = {**sl.PPO_SCRATCH, "n_steps": steps}
    start = time.perf_counter()
    sl.ppo(learner, env, steps=steps, seed=seed, settings=settings)
    elapsed = time.perf_counter() - start
    env.close()
    return elapsed


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run every loop; print the table and the study projection; return microseconds per step by loop."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=1024)
    ap.add_argument("--warmup", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--runs", type=int, default=15, help="Runs of the projected study (3 modes x 5 seeds).")
    ap.add_argument("--budget", type=int, default=204_800, help="Env steps per projected run.")
    ap.add_argument("--workers", type=int, default=2, help="Parallel runs of the projected study.")
    args = ap.parse_args(argv)
    if min(args.steps, args.repeat, args.runs, args.budget, args.workers) <= 0 or args.warmup < 0:
        ap.error("--steps, --repeat, --runs, --budget and --workers must be positive")
    loops = {
        "menu": lambda r: time_env(False, args.steps, args.warmup, r),
        "menu + slot features": lambda r: time_env(True, args.steps, args.warmup, r),
        "scorer forward": lambda r: time_forward(args.steps, r),
        "PPO (rollout and updates)": lambda r: time_ppo(args.steps, r),
    }
    us: dict[str, float] = {}
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; {args.steps} steps per loop, "
          f"best of {args.repeat}")
    print(f"{'loop':<28} {'us/step':>10} {'steps/s':>10}")
    for name, loop in loops.items():
        best = min(loop(r) for r in range(args.repeat))
        us[name] = best / args.steps * 1e6
        print(f"{name:<28} {us[name]:>10.0f} {1e6 / us[name]:>10.1f}", flush=True)
    features = us["menu + slot features"] - us["menu"]
    print(f"slot features: {features:.0f} us per step, {features / us['PPO (rollout and updates)']:.0%} of a PPO step")
    hours = args.runs * args.budget * us["PPO (rollout and updates)"] / 1e6 / args.workers / 3600
    print(f"a study of {args.runs} runs x {args.budget:,} steps on {args.workers} workers: {hours:.1f} h of PPO "
          f"at this rate (held-out evaluations not included); load average now {os.getloadavg()[0]:.2f}")
    return us


if __name__ == "__main__":
    main()
