"""HTTP transport cost: per-action overhead of the client env over the local env, and throughput.

Prints, in one run (a real uvicorn server on 127.0.0.1 in this process, a real httpx client):

1. per-action latency of ``step(action)`` + ``observe(agent)`` (what an agent loop pays per
   action) for every task's reference policy, through the local env and through
   ``make(..., transport="http")``; the overhead is the paired difference per action (the same
   action of the same task on both), min over ``--repeat`` runs; p50, p90 and mean. Target: p50 <= 1 ms.
2. throughput: ``--concurrent`` episodes at once from one client process over the plain HTTP API
   (one thread and kept-alive connection each; then asyncio + httpx), and one sequential client:
   episodes/s, actions/s, request latency p50/p90.

The server is ``acworld serve`` in a subprocess on 127.0.0.1 (``--in-process``: a uvicorn thread
in this process instead, sharing its GIL with the client). Client and server share the machine,
so the throughput is that of one server process on loopback.

Run::

    python benchmarks/bench_http.py [--tasks '*/T1/*'] [--repeat 3] [--concurrent 64] [--in-process]
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import os
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from typing import Any

import acworld_env
from acworld_env.envs.spaces import decode_observation
from acworld_env.policies.make import make_policy
from acworld_env.remote.load import run_load, run_load_threads
from acworld_env.remote.serve import ServerThread, free_port
from acworld_env.tasks.suites import load_suite


def action_times(env: Any, task: Any) -> list[float]:
    """Seconds of ``step`` + ``observe`` for each action of ``task``'s reference on ``env``."""
    env.reset(seed=0, options={"task_id": task.task_id})
    policy = make_policy(task.reference)
    policy.reset(0)
    times = []
    for agent in env.agent_iter(max_iter=5000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = policy.act(decode_observation(obs))
        t0 = time.perf_counter()
        env.step(action)
        if agent in env.agents:
            env.observe(agent)
        times.append(time.perf_counter() - t0)
    return times


@contextlib.contextmanager
def subprocess_server() -> Iterator[str]:
    """``acworld serve`` in a subprocess on a free loopback port; its URL once it answers."""
    import httpx

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "acworld_env.cli", "serve", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/v1/health", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("acworld serve did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``."""
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", default="capability-v1")
    ap.add_argument("--tasks", default="*", help="Glob over task ids.")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--concurrent", type=int, default=64)
    ap.add_argument("--in-process", action="store_true", help="Serve from a thread of this process.")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    tasks = [t for t in load_suite("capability-v1", "frozen", 0) if fnmatch.fnmatch(t.task_id, args.tasks)]
    with ServerThread() if args.in_process else subprocess_server() as url:
        local = acworld_env.make(args.env)
        remote = acworld_env.make(args.env, transport="http", url=url)
        over, loc, rem = [], [], []
        for task in tasks:
            best_l: list[float] | None = None
            best_r: list[float] | None = None
            for _ in range(args.repeat):
                lt, rt = action_times(local, task), action_times(remote, task)
                best_l = lt if best_l is None else [min(a, b) for a, b in zip(best_l, lt, strict=True)]
                best_r = rt if best_r is None else [min(a, b) for a, b in zip(best_r, rt, strict=True)]
            assert best_l is not None and best_r is not None
            loc += best_l
            rem += best_r
            over += [r - lo for r, lo in zip(best_r, best_l, strict=True)]
        remote.close()
        ms = 1000.0
        print(f"per-action latency over {len(over)} actions of {len(tasks)} tasks (min of {args.repeat} runs; "
              f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)")
        print(f"  local  p50 {pct(loc, .5) * ms:7.3f} ms  p90 {pct(loc, .9) * ms:7.3f} ms")
        print(f"  http   p50 {pct(rem, .5) * ms:7.3f} ms  p90 {pct(rem, .9) * ms:7.3f} ms")
        print(f"  HTTP overhead per action: p50 {pct(over, .5) * ms:.3f} ms, p90 {pct(over, .9) * ms:.3f} ms, "
              f"mean {statistics.fmean(over) * ms:.3f} ms  (target p50 <= 1 ms)")
        chosen = [tasks[i % len(tasks)] for i in range(args.concurrent)]
        runs = [(f"{args.concurrent} concurrent episodes, one thread and connection each", run_load_threads(url, chosen)),
                (f"{args.concurrent} concurrent episodes, asyncio + httpx", run_load(url, chosen)),
                ("one sequential client, asyncio + httpx", run_load(url, chosen, concurrent=False))]
        for label, report in runs:
            scored = sum(s["status"] == "scored" for s in report.summaries)
            print(f"throughput, {label}: {report.wall:.2f} s, {len(chosen) / report.wall:.1f} episodes/s, "
                  f"{report.actions / report.wall:.0f} actions/s, request p50 {pct(report.latencies, .5) * ms:.2f} ms "
                  f"p90 {pct(report.latencies, .9) * ms:.2f} ms, {scored}/{len(chosen)} scored")
        report = runs[0][1]
    return {"overhead_p50_ms": pct(over, .5) * ms, "actions_per_s": report.actions / report.wall}


if __name__ == "__main__":
    main()
