"""market-v1 at scale: N Buyers x M Merchants as agents in one process.

For each size, truthful and random scripted agents play one AEC episode; the benchmark reports
wall time, steps, commits, proposals per second, the welfare ratios, the time of the exact optimum
(``linear_sum_assignment`` over Buyers x Merchant units) and of reconstructing the World.

    python benchmarks/bench_market.py [--sizes 5,25,100] [--k 5] [--capacity 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time

import acworld_env
from acworld_env.open_market.agents import policies
from acworld_env.open_market.welfare import global_optimum
from acworld_env.world import reconstruct


def episode(size: int, kind: str, k: int, capacity: int, seed: int) -> dict:
    """One episode's figures."""
    t0 = time.perf_counter()
    env = acworld_env.make("market-v1", buyers=size, merchants=size, seed=seed, k=k, max_capacity=capacity)
    env.reset()
    pol = policies(kind, env.possible_agents, seed)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else pol[agent](obs))
        steps += 1
    wall = time.perf_counter() - t0
    m = env.market
    world = m.market.world
    t0 = time.perf_counter()
    global_optimum(m.mandates)
    t_opt = time.perf_counter() - t0
    t0 = time.perf_counter()
    rebuilt = reconstruct(world.initial_state, world.commits)
    t_rec = time.perf_counter() - t0
    w = m.welfare()
    return {"size": size, "kind": kind, "wall": wall, "steps": steps, "proposals": len(m.market.trace.records),
            "commits": len(world.commits), "trades": w.trades, "ratio_global": w.ratio_global,
            "ratio_exposed": w.ratio_exposed, "optimum_s": t_opt, "reconstruct_s": t_rec,
            "match": rebuilt.state_digest == world.state_digest()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="5,25,100")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--capacity", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(f"market-v1, N x N agents, k={args.k} candidates per Buyer, capacity 1..{args.capacity}, seed {args.seed}")
    print(f"{'N':>5} {'agents':<9} {'wall':>7} {'steps':>6} {'proposals':>9} {'commits':>7} {'prop/s':>7} "
          f"{'trades':>6} {'w/global':>8} {'w/exposed':>9} {'optimum':>8} {'replay':>7}")
    ok = True
    for size in (int(s) for s in args.sizes.split(",")):
        for kind in ("truthful", "random"):
            r = episode(size, kind, args.k, args.capacity, args.seed)
            ok &= r["match"]
            print(f"{size:>5} {kind:<9} {r['wall']:>6.2f}s {r['steps']:>6} {r['proposals']:>9} {r['commits']:>7} "
                  f"{r['proposals'] / r['wall']:>7.0f} {r['trades']:>6} {r['ratio_global']:>8.1%} "
                  f"{r['ratio_exposed']:>9.1%} {r['optimum_s']:>7.3f}s {r['reconstruct_s']:>6.3f}s")
    print("OK: every World reconstructed" if ok else "FAILED: a reconstruction differed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
