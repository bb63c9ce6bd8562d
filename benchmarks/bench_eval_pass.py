"""The evaluation pass against the bare env loop: per-task cost, their ratio, and how steady it is.

Workload: every task of the suite (``capability-v1``: 200 frozen tasks) played once by its
reference policy, seed 0, three ways per repetition, one after the other (so all three see the
same machine load): the env loop runs before and after every evaluation pass, and each pass's
ratio divides by the mean of the two env loops around it. On a shared virtual machine the speed of
the same work drifts by a third within seconds (a fixed Python loop here: 0.14 to 0.19 s of CPU
time over twenty runs in a row), so a single neighbour made the ratio swing with the drift rather
than with the code:

1. **bare env loop**, in this process: ``acworld_env.make(env_id)``, ``reset(seed=0,
   options={"task_id": ...})`` per task, then the standard ``agent_iter`` loop (``env.last()``,
   ``decode_observation``, ``policy.act``, ``env.step``). No artifacts, no scoring files.
2. **evaluation pass, in process**: :func:`~acworld_env.eval.runner.run_eval` with the reference
   policy at concurrency 1 into a fresh folder: every run's artifacts written and scored, the
   manifest, ``summary.json`` and ``results.csv``.
3. **evaluation pass, fresh process** (unless ``--no-fresh``): ``acworld eval ENV --policy
   reference --concurrency 1 --out DIR --quiet`` as its own interpreter.

The evaluation's per-task figure is its ``summary.json`` wall time (``timing.wall_s``: from the
first run handed out to the last one collected) over the number of tasks, the figure the issue
quotes; the whole ``run_eval`` call (planning and the summary included) is printed beside it.
The ratio is taken per pass (evaluation pass / the mean of the env loops just before and just
after it); its median and range are printed, and the run-to-run spread of the evaluation's per-task time:
``(max - min) / median`` and the coefficient of variation over the repetitions. CPU time is
printed too (it is less sensitive to other processes on a shared machine): the env loop's, and
each evaluation pass's own from its ``summary.json`` (``timing.cpu_s``, the fresh process's
included), with the part spent in the kernel (``timing.system_s``: creating each run's folder
and files, what varies most with the machine's file-system load; the env loop spends none).
Every evaluation must give the same root digest (printed; a mismatch exits 1).

The env loop above is warm (this process played every task before the first measurement), while a
fresh ``acworld eval`` meets each task, catalog query and code path for the first time. For scale,
each repetition also times the same env loop in a fresh interpreter (``make``, then one pass: what
a new training worker pays), and prints the fresh evaluation over it; the goal stays the stricter
fresh evaluation over the warm env loop.

What makes the kernel time vary: on an ext4 file system without a journal (this test box's),
creating a file skips every inode of its block group deleted in the last minute (six minutes
while the deleted inode's table block is unwritten), at a buffer-cache lookup each; so a pass
written right after a few thousand files were deleted (the previous pass's folders, another
job's temporary files) spends several times the kernel time of one written on a quiet disk
(0.3 to 3.5 ms per task here; ``perf`` shows ``recently_deleted`` under ``__ext4_new_inode``).
The evaluation deletes nothing while it writes, and flags its ``runs/`` folder so that ext4
places run folders away from such deletions (:mod:`acworld_env.eval.runs_folder`); this script
keeps every pass's folder until the end, so no pass pays for the deletions of the one before it.
``--dir /dev/shm`` (a RAM file system) gives the floor without the disk. The user-space part of
the pass's CPU time (``cpu_s - system_s``) over the env loop's CPU time is printed as well: the
evaluation's own work, whatever the disk's state.

Run::

    python benchmarks/bench_eval_pass.py [--env capability-v1] [--repeat 5] [--no-fresh] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_env import our_episode  # this folder's loop (the script's folder is on the import path)

import acworld_env
from acworld_env.eval.runner import EvalConfig, run_eval

GOAL_RATIO = 1.5


@dataclass
class Side:
    """Per-task figures of one side over the repetitions (milliseconds)."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    call: list[float] = field(default_factory=list)
    """Evaluation passes: the whole call (planning, summary) per task."""
    kernel: list[float] = field(default_factory=list)
    """Evaluation passes: system (kernel) CPU time per task, from the summary."""


def per_task(summary: dict[str, Any], key: str, n: int) -> float:
    """A ``summary.json`` timing figure (seconds) in milliseconds per task."""
    return summary["timing"][key] / n * 1e3


def env_loop(env: Any, tasks: list[Any]) -> tuple[float, float]:
    """One bare pass of the reference policies through the env (``bench_env``'s loop): (wall s, CPU s)."""
    wall, cpu = time.perf_counter(), time.process_time()
    for task in tasks:
        our_episode(env, task.task_id)
    return time.perf_counter() - wall, time.process_time() - cpu


def env_loop_fresh_process(env_id: str) -> tuple[float, float]:
    """One env loop pass in a new interpreter, timed after ``make`` (its first episodes included): (wall s, CPU s)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--env", env_id, "--cold-env-loop"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    figures = json.loads(out.strip().splitlines()[-1])
    return figures["wall_s"], figures["cpu_s"]


def cold_env_loop(env_id: str) -> int:
    """``--cold-env-loop``: make the env, time one pass of the env loop, print ``{"wall_s", "cpu_s"}``."""
    env = acworld_env.make(env_id)
    wall, cpu = env_loop(env, list(env.unwrapped.tasks))
    env.close()
    print(json.dumps({"wall_s": wall, "cpu_s": cpu}))
    return 0


def eval_in_process(env_id: str, out: Path) -> tuple[dict[str, Any], float]:
    """One evaluation pass by :func:`run_eval`: (its summary, the whole call in s)."""
    config = EvalConfig(env_id=env_id, policy="reference", out=out, concurrency=1)
    call = time.perf_counter()
    summary = run_eval(config, progress=False)
    return summary, time.perf_counter() - call


def eval_fresh_process(env_id: str, out: Path) -> tuple[dict[str, Any], float]:
    """One evaluation pass as ``acworld eval`` in a new interpreter: (its summary, the whole process in s)."""
    cmd = [sys.executable, "-m", "acworld_env.cli", "eval", env_id, "--policy", "reference", "--concurrency", "1",
           "--out", str(out), "--quiet"]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    return json.loads((out / "summary.json").read_text(encoding="utf-8")), elapsed


def record(side: Side, summary: dict[str, Any], whole_s: float, n: int) -> None:
    """An evaluation pass's per-task figures, from its summary (wall, CPU, kernel) and the whole call."""
    side.wall.append(per_task(summary, "wall_s", n))
    side.cpu.append(per_task(summary, "cpu_s", n))
    side.kernel.append(per_task(summary, "system_s", n))
    side.call.append(whole_s / n * 1e3)


def spread(values: list[float]) -> str:
    """``median [min - max]``, ``(max - min) / median`` and the coefficient of variation."""
    med = statistics.median(values)
    cv = statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else 0.0
    return (f"{med:.2f} [{min(values):.2f} - {max(values):.2f}]  range/median {(max(values) - min(values)) / med:.0%}"
            f"  cv {cv:.0%}")


def main(argv: list[str] | None = None) -> int:
    """Run the repetitions and print the figures; 1 when the evaluations disagree on the root digest."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", default="capability-v1")
    ap.add_argument("--repeat", type=int, default=5,
                    help="repetitions (each: an evaluation pass in process, then one in a fresh process, each "
                         "followed by an env loop; then the env loop in a fresh process)")
    ap.add_argument("--no-fresh", action="store_true", help="skip the fresh-process evaluation passes")
    ap.add_argument("--dir", type=Path, default=None, help="where the evaluation folders go (default: temp dir)")
    ap.add_argument("--cold-env-loop", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.cold_env_loop:
        return cold_env_loop(args.env)

    env = acworld_env.make(args.env)
    tasks = list(env.unwrapped.tasks)
    n = len(tasks)
    env_loop(env, tasks)  # warm-up: imports, caches, the catalog
    roots: set[str] = set()
    bare, inproc, fresh = Side(), Side(), Side()
    ratios, ratios_cpu, ratios_fresh, ratios_fresh_cpu = [], [], [], []
    cold: list[float] = []
    """The env loop in a fresh process, per task (ms)."""
    ratios_cold: list[float] = []
    base = Path(tempfile.mkdtemp(prefix="acworld-eval-pass-", dir=args.dir))

    def loop() -> None:
        """One env loop pass, its per-task figures kept."""
        wall, cpu = env_loop(env, tasks)
        bare.wall.append(wall / n * 1e3)
        bare.cpu.append(cpu / n * 1e3)

    def bracketed(side: Side, wall_ratios: list[float], cpu_ratios: list[float]) -> str:
        """The env loop after the pass just recorded in ``side``; its ratios to the mean of the loops around it."""
        loop()
        wall_ratios.append(side.wall[-1] / statistics.mean(bare.wall[-2:]))
        cpu_ratios.append(side.cpu[-1] / statistics.mean(bare.cpu[-2:]))
        return (f"{side.wall[-1]:.2f} (x{wall_ratios[-1]:.2f}; CPU x{cpu_ratios[-1]:.2f}, kernel "
                f"{side.kernel[-1]:.2f})  env loop {bare.wall[-1]:.2f}")

    try:
        eval_in_process(args.env, base / "warm")  # warm-up of the runner's own imports
        loop()
        for rep in range(args.repeat):
            line = f"rep {rep + 1}: env loop {bare.wall[-1]:.2f} ms/task  eval in process "
            summary, call = eval_in_process(args.env, base / f"in{rep}")
            record(inproc, summary, call, n)
            roots.add(summary["root_digest"])
            line += bracketed(inproc, ratios, ratios_cpu)
            if not args.no_fresh:
                summary, elapsed = eval_fresh_process(args.env, base / f"fresh{rep}")
                record(fresh, summary, elapsed, n)
                roots.add(summary["root_digest"])
                line += "  eval fresh process " + bracketed(fresh, ratios_fresh, ratios_fresh_cpu)
                wall, cpu = env_loop_fresh_process(args.env)
                cold.append(wall / n * 1e3)
                ratios_cold.append(fresh.wall[-1] / cold[-1])
                line += f"  env loop, fresh process {cold[-1]:.2f}"
            print(line, flush=True)
    finally:  # folders go only at the end: deleting one slows the creation of the next (see the docstring)
        shutil.rmtree(base, ignore_errors=True)
        env.close()

    print(f"\nworkload: suite {args.env}, {n} tasks, reference policy, seed 0, concurrency 1; "
          f"{args.repeat} repetitions (median [min - max])")
    print(f"bare env loop (make, reset, step, decode), per task:      {spread(bare.wall)} ms")
    print(f"evaluation pass in process (summary wall time), per task: {spread(inproc.wall)} ms")
    print(f"evaluation pass in process (whole run_eval call), per task: {spread(inproc.call)} ms")
    if fresh.wall:
        print(f"evaluation pass, fresh process (summary wall time), per task: {spread(fresh.wall)} ms")
        print(f"evaluation pass, fresh process (whole process), per task: {spread(fresh.call)} ms")
        print(f"bare env loop, fresh process (after make), per task: {spread(cold)} ms; the fresh evaluation "
              f"over it: median {statistics.median(ratios_cold):.2f}x [{min(ratios_cold):.2f} - {max(ratios_cold):.2f}]")
    print(f"CPU time per task: env loop {statistics.median(bare.cpu):.2f} ms, "
          f"evaluation pass {statistics.median(inproc.cpu):.2f} ms; ratio {statistics.median(ratios_cpu):.2f}x")
    if fresh.cpu:
        print(f"CPU time per task, fresh process (summary cpu_s): {spread(fresh.cpu)} ms; "
              f"ratio to the env loop {statistics.median(ratios_fresh_cpu):.2f}x "
              f"[{min(ratios_fresh_cpu):.2f} - {max(ratios_fresh_cpu):.2f}]")
    user = [c - k for c, k in zip(inproc.cpu + fresh.cpu, inproc.kernel + fresh.kernel, strict=True)]
    loops = bare.cpu
    print(f"user-space CPU time per task (cpu_s - system_s), every pass: {spread(user)} ms; "
          f"ratio to the env loop's CPU time {statistics.median(user) / statistics.median(loops):.2f}x")
    kernel = inproc.kernel + fresh.kernel
    print(f"of which system (kernel) time per task: env loop 0.00 ms, evaluation "
          f"pass {statistics.median(kernel):.2f} ms [{min(kernel):.2f} - {max(kernel):.2f}] "
          "(a run's folder and five files; it follows the file system's load)")
    print(f"eval/env ratio in process: median {statistics.median(ratios):.2f}x "
          f"[{min(ratios):.2f} - {max(ratios):.2f}]  (goal <= {GOAL_RATIO:g}x)")
    if ratios_fresh:
        print(f"eval/env ratio, fresh process: median {statistics.median(ratios_fresh):.2f}x "
              f"[{min(ratios_fresh):.2f} - {max(ratios_fresh):.2f}]  (goal <= {GOAL_RATIO:g}x)")
    print(f"root digests: {len(roots)} distinct ({', '.join(sorted(roots))})")
    return 0 if len(roots) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
