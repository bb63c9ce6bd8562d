"""Vectorised training throughput: Gymnasium vector envs of the masked action menu (issue 32, item 3).

Workload: ``n`` copies of the single-agent Gymnasium view behind the discrete action menu, built as
a training script builds it (``GymActionMenu(gymnasium.make("acworld/capability-v1"))``,
:mod:`acworld_env.wrappers.menu`), each walking the 200 frozen tasks in its own seeded order and
resetting itself when an episode ends (Gymnasium's auto-reset). Every vector step sends each env a
slot drawn uniformly from the available ones (the mask of its last observation), so the figure is
the env's, with a policy that costs next to nothing. Configurations:

* one env, no vector wrapper (the reference every other row is compared with);
* ``SyncVectorEnv`` of 2 and 4 envs (one process, envs stepped in turn);
* ``AsyncVectorEnv`` of 2 and 4 envs (one worker process per env, observations in shared memory).

Each configuration runs ``--warmup`` vector steps untimed (worker start-up, first resets), then
``--steps`` vector steps timed; the best of ``--repeat`` runs is kept. Printed: env steps per
second summed over the envs (``steps/s``), the wall microseconds per env step and the speed-up over
the single env. Worker processes only help up to the machine's free cores: the core count and the
load average are printed with the figures.

    python benchmarks/bench_vector.py [--steps 400] [--warmup 40] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

import acworld_env  # noqa: F401  (registers the Gymnasium ids)
from acworld_env.wrappers.menu import GymActionMenu

ENV_ID = "acworld/capability-v1"


def menu_env() -> gymnasium.Env:
    """One menu env over the frozen suite (what a vector env's workers build)."""
    return GymActionMenu(gymnasium.make(ENV_ID, disable_env_checker=True))


def random_slots(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One available slot per row of ``masks``, uniformly."""
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])


def run_single(steps: int, warmup: int, seed: int) -> float:
    """Seconds for ``steps`` steps of one env (no vector wrapper), resetting when an episode ends."""
    env, rng = menu_env(), np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    start = 0.0
    for i in range(warmup + steps):
        if i == warmup:
            start = time.perf_counter()
        obs, _, terminated, truncated, _ = env.step(random_slots(obs["action_mask"][None], rng)[0])
        if terminated or truncated:
            obs, _ = env.reset()
    elapsed = time.perf_counter() - start
    env.close()
    return elapsed


def run_vector(make_vec: Callable[[list[Callable[[], gymnasium.Env]]], Any], n: int, steps: int, warmup: int,
               seed: int) -> float:
    """Seconds for ``steps`` vector steps of ``n`` envs (auto-reset), after ``warmup`` untimed ones."""
    vec = make_vec([menu_env] * n)
    try:
        rng = np.random.default_rng(seed)
        obs, _ = vec.reset(seed=seed)
        start = 0.0
        for i in range(warmup + steps):
            if i == warmup:
                start = time.perf_counter()
            obs, *_ = vec.step(random_slots(obs["action_mask"], rng))
        return time.perf_counter() - start
    finally:
        vec.close()


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run every configuration; print and return env steps per second by label."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=400, help="timed vector steps per run")
    ap.add_argument("--warmup", type=int, default=40, help="untimed vector steps first")
    ap.add_argument("--repeat", type=int, default=3, help="runs per configuration; the best is kept")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(f"workload: GymActionMenu({ENV_ID}) envs, a random available slot per env step, auto-reset; "
          f"{args.steps} timed vector steps after {args.warmup} untimed, best of {args.repeat}; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    configs: list[tuple[str, int, Callable[[], float]]] = [
        ("single env (no vector wrapper)", 1, lambda: run_single(args.steps, args.warmup, args.seed)),
    ]
    for cls in (SyncVectorEnv, AsyncVectorEnv):
        for n in (2, 4):
            configs.append((f"{cls.__name__} x{n}", n, lambda cls=cls, n=n: run_vector(
                cls, n, args.steps, args.warmup, args.seed)))
    rates: dict[str, float] = {}
    for label, n, run in configs:
        best = min(run() for _ in range(args.repeat))
        rates[label] = n * args.steps / best
        base = rates[configs[0][0]]
        print(f"{label:32s} {rates[label]:8,.0f} steps/s  ({1e6 / rates[label]:6.1f} us/env step, "
              f"x{rates[label] / base:.2f} the single env)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return rates


if __name__ == "__main__":
    main()
