"""The card's timed measurements in this process and in fresh ones: throughput, start-up, determinism.

Throughput and start-up call the repository's benchmark scripts (``benchmarks/bench_vector.py``,
``benchmarks/bench_startup.py``, ``benchmarks/env_loop.py``) at the card's sizes, so the card and the
benchmarks measure the same loops. Every function returns plain JSON data; the rendering is
:mod:`acworld_env.card.sections`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from ..core.errors import AcworldError

ROOT = Path(__file__).resolve().parents[2]
"""The repository the card describes (the folder holding ``acworld_env/``, ``benchmarks/``, ``baselines/``)."""
BENCHMARKS = ROOT / "benchmarks"
ENV_ID = "capability-v1"


class CardError(AcworldError, RuntimeError):
    """The card cannot be built here (a missing benchmark script or recorded file); one line for the user."""


def bench(name: str) -> ModuleType:
    """The benchmark script ``benchmarks/<name>.py`` as a module (its folder on the path, as when run)."""
    path = BENCHMARKS / f"{name}.py"
    if not path.is_file():
        raise CardError(f"the card needs the repository's benchmarks; {path} not found (run it from a source checkout)")
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def machine() -> dict[str, Any]:
    """Where the card was measured: CPUs, their model, Python, the OS, the load average now."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpu_model": model or platform.processor() or "unknown",
            "python": platform.python_version(), "implementation": platform.python_implementation(),
            "os": f"{platform.system()} {platform.release()}", "load_average": round(os.getloadavg()[0], 2)}


def sample_ids(quick: bool, per_family: int = 2) -> list[str]:
    """The frozen task ids a section plays: all of them, or (``quick``) the first ``per_family`` of each family."""
    import acworld_env

    tasks = acworld_env.make(ENV_ID).unwrapped.tasks
    if not quick:
        return tasks.ids()
    seen: dict[str, int] = {}
    out = []
    for task in tasks:
        if seen.get(task.family, 0) < per_family:
            seen[task.family] = seen.get(task.family, 0) + 1
            out.append(task.task_id)
    return out


# -- throughput ------------------------------------------------------------------------------------

def _policy(name: str, seed: int) -> Any:
    """A policy that costs next to nothing: ``random`` (seeded) or ``idle`` (the no-op)."""
    from ..policies.make import make_policy
    from ..policies.random_policy import RandomPolicy

    policy = RandomPolicy(seed=seed) if name == "random" else make_policy("idle")
    if hasattr(policy, "reset"):
        policy.reset(seed)
    return policy


def play_tasks(env: Any, task_ids: list[str], policy: str, seed: int = 0) -> dict[str, Any]:
    """Every task of ``task_ids`` on ``env`` through the standard ``agent_iter`` loop (``benchmarks/env_loop.py``),
    reset with ``seed``; agent steps, wall and CPU seconds, and each episode's trace, state and event digests."""
    from ..envs.spaces import decode_observation

    play = bench("env_loop").play
    steps, digests = 0, {}
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for task_id in task_ids:
        env.reset(seed=seed, options={"task_id": task_id})
        steps += play(env, _policy(policy, seed), decode_observation)
        market = env.unwrapped.episode.market
        digests[task_id] = {"trace": market.trace.digest, "state": market.world.state_digest(),
                            "event": market.world.event_digest}
    return {"steps": steps, "episodes": len(task_ids), "wall_s": time.perf_counter() - wall0,
            "cpu_s": time.process_time() - cpu0, "digests": digests}


def throughput(quick: bool) -> dict[str, Any]:
    """Env steps per second without a model: the AEC env (random and no-op policies) over the frozen tasks,
    and the masked menu view single and vectorised (``benchmarks/bench_vector.py``'s loops)."""
    import acworld_env

    repeat = 1 if quick else 3
    ids = sample_ids(quick)
    env = acworld_env.make(ENV_ID)
    play_tasks(env, ids[:5], "random")  # warm-up: imports, first catalog reads
    aec: dict[str, Any] = {}
    for name in ("random", "idle"):
        best = min((play_tasks(env, ids, name) for _ in range(repeat)), key=lambda r: r["wall_s"])
        aec[name] = {"steps": best["steps"], "episodes": best["episodes"], "wall_s": round(best["wall_s"], 3),
                     "cpu_s": round(best["cpu_s"], 3), "steps_per_s": round(best["steps"] / best["wall_s"], 1),
                     "cpu_steps_per_s": round(best["steps"] / max(best["cpu_s"], 1e-9), 1)}
    env.close()
    vec = bench("bench_vector")
    from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

    steps, warmup = (100, 10) if quick else (400, 40)
    configs: list[tuple[str, int, Callable[[], float]]] = [
        ("single env (no vector wrapper)", 1, lambda: vec.run_single(steps, warmup, 0))]
    sizes = (2,) if quick else (2, 4)
    for cls in (SyncVectorEnv, AsyncVectorEnv):
        for n in sizes:
            configs.append((f"{cls.__name__} x{n}", n, lambda cls=cls, n=n: vec.run_vector(cls, n, steps, warmup, 0)))
    rows = []
    for label, n, run in configs:
        best = min(run() for _ in range(repeat))
        rows.append({"label": label, "envs": n, "processes": n if label.startswith("Async") else 1,
                     "steps_per_s": round(n * steps / best, 1), "us_per_step": round(1e6 * best / (n * steps), 1)})
    return {"env": ENV_ID, "tasks": len(ids), "repeat": repeat, "aec": aec,
            "menu": {"env": vec.ENV_ID, "steps": steps, "warmup": warmup, "rows": rows},
            "load_average": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}


# -- start-up --------------------------------------------------------------------------------------

RESET = "import acworld_env; acworld_env.make('capability-v1').reset(seed=0)"


def startup(quick: bool) -> dict[str, Any]:
    """Fresh-process seconds (``benchmarks/bench_startup.py``'s ``run_once``): the interpreter alone, import +
    ``make``, import + ``make`` + first ``reset``; and the split of the last inside one process (medians)."""
    import compileall

    st = bench("bench_startup")
    repeat = 2 if quick else 5
    package = Path(__file__).resolve().parents[1]
    compileall.compile_dir(str(package), quiet=1)  # as the first import would, so every round reads bytecode
    commands = {"interpreter alone": [sys.executable, "-c", "pass"],
                "import + make": [sys.executable, "-c", st.MAKE],
                "import + make + first reset": [sys.executable, "-c", RESET]}
    for cmd in commands.values():
        st.run_once(cmd)  # warm the file cache
    runs: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
    for _ in range(repeat):
        for label, cmd in commands.items():
            runs[label].append(st.run_once(cmd))
    rows = []
    for label, samples in runs.items():
        walls = [w for w, _ in samples]
        rows.append({"label": label, "command": f"python -c {json.dumps(commands[label][2])}",
                     "best_s": round(min(walls), 3), "median_s": round(statistics.median(walls), 3),
                     "cpu_s": round(min(c for _, c in samples), 3)})
    splits = [json.loads(subprocess.run([sys.executable, "-c", st.SPLIT], check=True, capture_output=True,
                                        text=True).stdout) for _ in range(repeat)]
    split = {k: round(statistics.median(s[i] for s in splits), 3) for i, k in enumerate(("imports", "make", "reset"))}
    return {"repeat": repeat, "rows": rows, "split": split, "goal_s": st.GOAL_S}


# -- determinism -----------------------------------------------------------------------------------

def list_digest(values: list[str]) -> str:
    """One SHA-256 over an ordered list of digests."""
    return hashlib.sha256("\n".join(values).encode()).hexdigest()


def suite_digest(tasks: list[Any]) -> str:
    """SHA-256 of a task list's specs (canonical JSON, in order)."""
    from ..world.digest import canonical

    return hashlib.sha256(b"".join(canonical(t.model_dump(mode="json")) + b"\n" for t in tasks)).hexdigest()


def determinism(quick: bool) -> dict[str, Any]:
    """Same seed, same digests: every sampled task played by the random policy twice with seed 0 (fresh envs)
    and once with seed 1; saved runs reconstructed from their commit logs; the generated split twice."""
    import acworld_env

    from ..artifacts import verify_run
    from ..eval.rollout import run_episode
    from ..policies.random_policy import RandomPolicy
    from ..tasks.suites import load_suite

    ids = sample_ids(quick)
    first, second = (play_tasks(acworld_env.make(ENV_ID), ids, "random", seed=0) for _ in range(2))
    other = play_tasks(acworld_env.make(ENV_ID), ids, "random", seed=1)
    same = [t for t in ids if first["digests"][t] == second["digests"][t]]
    differ = [t for t in ids if first["digests"][t]["trace"] != other["digests"][t]["trace"]]
    replay_ids = ids[:: max(1, len(ids) // (10 if quick else 40))]
    env = acworld_env.make(ENV_ID)
    replayed = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, task_id in enumerate(replay_ids):
            run = run_episode(env.unwrapped.task_by_id(task_id), RandomPolicy(seed=0), seed=0, out_dir=Path(tmp) / str(i))
            replayed.append(verify_run(run.out_dir).ok)
    gen_seed = 7
    gen = [suite_digest(load_suite(ENV_ID, "generated", s)) for s in (gen_seed, gen_seed, gen_seed + 1)]
    return {
        "env": ENV_ID, "policy": "random", "seed": 0, "other_seed": 1, "tasks": len(ids),
        "same_seed_identical": len(same), "other_seed_differs": len(differ),
        "run_digest": list_digest([first["digests"][t]["trace"] for t in ids]),
        "run_digest_again": list_digest([second["digests"][t]["trace"] for t in ids]),
        "run_digest_other_seed": list_digest([other["digests"][t]["trace"] for t in ids]),
        "digests": {t: first["digests"][t] for t in ids},
        "replay": {"runs": len(replayed), "reproduced": sum(replayed)},
        "generated": {"seed": gen_seed, "digest": gen[0], "digest_again": gen[1], "other_seed_digest": gen[2],
                      "same": gen[0] == gen[1], "other_differs": gen[2] != gen[0]},
    }
