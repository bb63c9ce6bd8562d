"""The 5x5 open-market study (paper Section 5.4 and Appendix A) on ``market-v1``.

Five Merchant agents quote, the platform exposes two feasible candidates to each of five Buyer
agents, deterministic clearing assigns (with fallback after contention), and every trade is
settled through VCP, the platform and the World. The script prints the allocation, the welfare
ratios, the check against the deterministic reference and the World's reconstruction, then the
same market with random agents and a summary over more seeds.

    python examples/market_study.py [--seed 33] [--seeds 20] [--world market.sqlite]

Seed 33 is chosen because its market has the paper's shape (five trades, one fallback); the
multi-seed summary below it is the unselected picture.
"""

from __future__ import annotations

import argparse
import statistics
import sys

import acworld_env
from acworld_env.open_market import MarketConfig
from acworld_env.open_market.agents import play, policies
from acworld_env.open_market.reference import reference_allocation
from acworld_env.world import reconstruct


def run(kind: str, seed: int, world: str | None = None) -> object:
    """One episode of the 5x5 market with ``kind`` agents; returns the env (its ``market`` holds the outcome)."""
    kwargs = {"world": world} if world else {}
    env = acworld_env.make("market-v1", buyers=5, merchants=5, seed=seed, k=2, **kwargs)
    return play(env, policies(kind, env.possible_agents, seed))


def report(env: object, title: str) -> bool:
    """Print one market's allocation and welfare; return whether it reconstructs."""
    m = env.market  # type: ignore[attr-defined]
    world = m.market.world
    print(f"\n== {title} ==")
    print(f"{'buyer':<12} {'listing':<13} {'merchant':<14} {'choice':>6} {'price':>8} {'value':>7} {'cost':>6}")
    for b, lid in m.clearing.assignment.items():
        mm = m.mandates.merchant_of_listing(lid)
        choice = "first" if m.clearing.choice[b] == 0 else "fallback"
        print(f"{b:<12} {lid:<13} {mm.actor:<14} {choice:>6} {m.quotes[lid] / 100:>8.2f} "
              f"{m.mandates.buyer(b).values[mm.actor] / 100:>7.2f} {mm.cost / 100:>6.2f}")
    w = m.welfare()
    print(f"assigned {len(m.clearing.assignment)}, settled (paid and shipped) {w.trades} (fallbacks {len(m.clearing.fallbacks)}, contested listings "
          f"{', '.join(m.clearing.contested) or 'none'}, clearing rounds {m.clearing.rounds})")
    print(f"welfare realised {w.realised / 100:.2f}  exposed optimum {w.exposed_optimum / 100:.2f}  "
          f"global optimum {w.global_optimum / 100:.2f}")
    print(f"ratio to global optimum {w.ratio_global:.1%}  to exposed optimum {w.ratio_exposed:.1%}  "
          f"(exposure keeps {w.exposure_ratio:.1%})")
    rebuilt = reconstruct(world.initial_state, world.commits)
    ok = rebuilt.state_digest == world.state_digest() and rebuilt.event_digest == world.event_digest
    print(f"reconstruction from {len(world.commits)} commits: {'identical state and event digests' if ok else 'MISMATCH'}"
          f" ({rebuilt.state_digest[:16]})")
    print("agent scores: " + "  ".join(f"{a.split('_')[0][0]}{int(a.split('_')[1])}={s:.2f}" for a, s in m.scores.items()))
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--seeds", type=int, default=20, help="seeds in the summary (0..seeds-1)")
    ap.add_argument("--world", default=None, help="persist the truthful market's World in this SQLite file")
    args = ap.parse_args(argv)

    env = run("truthful", args.seed, args.world)
    ok = report(env, f"truthful agents, seed {args.seed}")
    ref = reference_allocation(MarketConfig(5, 5, args.seed, 2))
    same = ref.assignment == env.market.clearing.assignment  # type: ignore[attr-defined]
    print(f"allocation matches the deterministic reference: {same}")
    ok &= report(run("random", args.seed), f"random agents, seed {args.seed}")

    rows = {kind: [run(kind, s).market.welfare() for s in range(args.seeds)] for kind in ("truthful", "random")}
    print(f"\n== summary over seeds 0..{args.seeds - 1} ==")
    for kind, ws in rows.items():
        print(f"{kind:<9} mean ratio to global {statistics.fmean(w.ratio_global for w in ws):.1%}  "
              f"to exposed {statistics.fmean(w.ratio_exposed for w in ws):.1%}  "
              f"mean trades {statistics.fmean(w.trades for w in ws):.2f}")
    return 0 if ok and same else 1


if __name__ == "__main__":
    sys.exit(main())
