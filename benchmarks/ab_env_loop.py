"""A/B of two source trees of ``acworld_env`` on the training loop, in one process (for speed work on a busy box).

Each tree is imported in turn (its modules kept aside, swapped back into ``sys.modules`` before each of its
episodes, so lazy imports resolve to the same tree), warmed up by one pass, then both run the loop of
``bench_env.py`` (``reset(seed=0, options={"task_id": ...})``, the task's reference policy,
``decode_observation`` every step) task by task, alternating trees on every task and their order on every
pass. Load from other processes hits both sides alike, so the ratio of their best passes is steadier than
two separate runs' ratios against the no-op env. Prints per-step CPU time of each side and ``new/base``.

Run::

    git archive <old-commit> | tar -x -C /tmp/old
    python benchmarks/ab_env_loop.py /tmp/old . [--passes 7] [--split frozen|generated]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from env_loop import reference_episode  # this folder's loop (on the path)

PACKAGE = "acworld_env"


def _purge() -> None:
    """Forget every imported module of the package (the next import reads the tree first on the path)."""
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def episode(side: dict[str, Any], task_id: str) -> int:
    """One episode of the loop on ``side``'s env: its agent steps."""
    return reference_episode(side["env"], task_id, side["make_policy"], side["decode"])


def load(path: str, split: str) -> tuple[dict[str, Any], list[str]]:
    """Import the tree at ``path``, make its env, warm it up; its modules are kept in the returned side."""
    _purge()
    sys.path.insert(0, path)
    try:
        import acworld_env
        from acworld_env.envs import decode_observation
        from acworld_env.policies.make import make_policy

        env = (acworld_env.make("capability-v1") if split == "frozen"
               else acworld_env.make("capability-v1", split="generated", seed=1))
        side: dict[str, Any] = {"env": env, "make_policy": make_policy, "decode": decode_observation,
                                "file": acworld_env.__file__}
        ids = [t.task_id for t in env.unwrapped.tasks]
        for task_id in ids:  # every lazy import happens now, from this tree
            episode(side, task_id)
    finally:
        sys.path.remove(path)
    side["modules"] = {n: m for n, m in sys.modules.items() if n == PACKAGE or n.startswith(PACKAGE + ".")}
    return side, ids


def main(argv: list[str] | None = None) -> float:
    """Run the A/B; return new/base per-step CPU time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="source tree of the old code (a directory holding acworld_env/)")
    parser.add_argument("new", help="source tree of the new code")
    parser.add_argument("--passes", type=int, default=7, help="passes per side (best of)")
    parser.add_argument("--split", choices=("frozen", "generated"), default="frozen")
    args = parser.parse_args(argv)
    before = {n: m for n, m in sys.modules.items() if n == PACKAGE or n.startswith(PACKAGE + ".")}
    try:
        return _compare(args)
    finally:  # the caller's own modules back, if it had any
        _purge()
        sys.modules.update(before)


def _compare(args: argparse.Namespace) -> float:
    """Load both trees, run the interleaved passes, print the figures; return new/base per-step CPU time."""
    base, ids = load(args.base, args.split)
    new, new_ids = load(args.new, args.split)
    if ids != new_ids:
        raise SystemExit("the two trees have different task lists; compare trees of the same suite")
    sides = (base, new)
    best_cpu, best_wall, steps = [float("inf")] * 2, [float("inf")] * 2, [0, 0]
    for n in range(args.passes):
        cpu, wall, steps = [0.0, 0.0], [0.0, 0.0], [0, 0]
        order = (0, 1) if n % 2 == 0 else (1, 0)
        for task_id in ids:
            for s in order:
                sys.modules.update(sides[s]["modules"])
                w, c = time.perf_counter(), time.process_time()
                steps[s] += episode(sides[s], task_id)
                cpu[s] += time.process_time() - c
                wall[s] += time.perf_counter() - w
        best_cpu = [min(a, b) for a, b in zip(best_cpu, cpu, strict=True)]
        best_wall = [min(a, b) for a, b in zip(best_wall, wall, strict=True)]
    if steps[0] != steps[1]:
        raise SystemExit(f"the two trees played different episodes ({steps[0]} and {steps[1]} steps)")
    ratio = best_cpu[1] / best_cpu[0]
    print(f"{args.split}: base {best_cpu[0] / steps[0] * 1e6:.1f} us/step ({base['file']}), new "
          f"{best_cpu[1] / steps[1] * 1e6:.1f} us/step ({new['file']}); CPU, best of {args.passes} passes")
    print(f"new/base: CPU {ratio:.4f}, wall {best_wall[1] / best_wall[0]:.4f}")
    return ratio


if __name__ == "__main__":
    main()
