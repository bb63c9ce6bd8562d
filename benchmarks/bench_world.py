"""A sparse World at 1,000 x 1,000: commit throughput and full reconstruction time.

This is not the paper's probe (Appendix K: registration through ``publish_listing``, indexed
search, settlement and reconstruction from a durable log, at several sizes up to 10,000 x
10,000); that workload is ``acworld probe`` (:mod:`acworld_env.eval.probe`). This benchmark is
smaller and skips registration and search: it times the commit paths and the replay alone.

Workload: 1,000 Buyers x 1,000 Merchants, 5,000 listings, five candidate listings per Buyer
(5,000 Buyer-listing edges). Each Buyer settles once on its cheapest candidate.

Two ways to settle, both timed:

* ``atomic``: one ``World.commit`` per settlement carrying the five events the platform would
  emit (order_placed, payment_authorized, payment_captured, inventory_allocated, order_shipped):
  1,000 commits.
* ``market``: the same settlements driven through ``Market.submit`` (bind, validate, commit,
  lineage record), one proposal per step: 5,000 commits.

Then each history is reconstructed from the initial state (min/median/max over ``--runs``),
and both digests must match the live World. The goal is reconstruction under 1 s.

``--scaling 1000,3000,10000`` instead measures cost *per commit* as the World grows (goal: flat,
i.e. linear total cost, up to 10,000 x 10,000). Each size runs in a fresh process on the probe's
workload (:mod:`acworld_env.eval.probe`: n Buyers x n Merchants, each Merchant publishes one
listing, each Buyer settles on one of 5 candidates with 5 proposals: 6n commits, a fixed number
per actor) through ``Market.submit`` onto a non-durable SQLite commit log (no fsync: the disk's
sync latency is not the code's), then reads the log back and reconstructs from it. Printed per
size: CPU microseconds per commit of ``Market.submit`` and of ``World.commit`` alone (inside it),
measured while building; of reading the log and of the replay, measured afterwards in one process
that takes the sizes in turn for ``--runs`` rounds (median), so every size runs under the same
load of the shared cores; traced peak memory (tracemalloc) per commit of the loaded history and
of the replay; peak RSS of the building process (and over the commits); canonical JSON encodings
per replayed commit (counted: one per commit plus one for the final state digest); and whether
every replay reproduced both digests of the live World. The last columns compare each size with
the smallest: a flat cost has a ratio near 1.

    python benchmarks/bench_world.py [--runs 5] [--seed 0] [--durable] [--profile]
    python benchmarks/bench_world.py --scaling 1000,3000,10000 [--runs 5] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from acworld_env.market import Market
from acworld_env.world import (
    CommitLog,
    World,
    add_actor,
    empty_state,
    listing_record,
    next_id,
    reconstruct,
)

N_BUYERS = N_MERCHANTS = 1_000
N_LISTINGS = 5_000
CANDIDATES = 5


def build(seed: int) -> tuple[dict, dict[str, list[str]]]:
    """The initial state and each Buyer's candidate listings."""
    rng = np.random.default_rng(seed)
    state = empty_state(catalog_hash="bench-sparse-world")
    buyers = [f"B{i:04d}" for i in range(N_BUYERS)]
    merchants = [f"M{i:04d}" for i in range(N_MERCHANTS)]
    for b in buyers:
        add_actor(state, b, "buyer", balance=1_000_000)
    for m in merchants:
        add_actor(state, m, "merchant")
    owners = rng.integers(0, N_MERCHANTS, N_LISTINGS)
    prices = rng.integers(500, 20_000, N_LISTINGS)
    for j in range(N_LISTINGS):
        state["listings"][f"L{j:05d}"] = listing_record(
            merchants[int(owners[j])], int(prices[j]), 10, title=f"Item {j}", category="Bench")
    candidates = {b: [f"L{int(j):05d}" for j in rng.choice(N_LISTINGS, CANDIDATES, replace=False)] for b in buyers}
    return state, candidates


def choose(state: dict, cands: list[str]) -> str:
    """The cheapest candidate still in stock (ties by id)."""
    return min((state["listings"][lid]["price"], lid) for lid in cands if state["listings"][lid]["stock"] > 0)[1]


def settle_atomic(world: World, candidates: dict[str, list[str]]) -> list[dict]:
    """One commit per settlement, with the platform's five events; return the validations cited."""
    validations = []
    for i, (buyer, cands) in enumerate(candidates.items(), start=1):
        state = world.state
        lid = choose(state, cands)
        rec = state["listings"][lid]
        merchant, price = rec["merchant"], rec["price"]
        oid, pid, sid = next_id(state, "orders"), next_id(state, "payments"), next_id(state, "shipments")
        events = [
            {"type": "order_placed", "order_id": oid, "buyer": buyer, "merchant": merchant,
             "lines": [{"listing_id": lid, "quantity": 1, "unit_price": price}], "fees": [], "total": price,
             "source": "list", "round": 0},
            {"type": "payment_authorized", "payment_id": pid, "order_id": oid, "buyer": buyer, "merchant": merchant,
             "amount": price, "round": 0},
            {"type": "payment_captured", "payment_id": pid, "amount": price},
            {"type": "inventory_allocated", "order_id": oid, "lines": [{"listing_id": lid, "quantity": 1}]},
            {"type": "order_shipped", "order_id": oid, "shipment_id": sid, "carrier": "standard", "round": 0},
        ]
        validation = {"validation_id": f"val-{i:05d}", "envelope_id": f"env-0-{i:05d}", "actor": buyer,
                      "kind": "atomic_settlement", "accepted": True, "code": "ok", "message": ""}
        world.commit(buyer, validation, events)
        validations.append(validation)
    return validations


def settle_market(market: Market, candidates: dict[str, list[str]]) -> None:
    """The same settlements through Market.submit, five proposals each."""
    for buyer, cands in candidates.items():
        state = market.world.state
        lid = choose(state, cands)
        merchant = state["listings"][lid]["merchant"]

        def go(actor: str, raw: dict) -> dict:
            r = market.submit(actor, raw)
            if not r.accepted:
                raise SystemExit(f"unexpected rejection {r.code}: {r.message}")
            return r.result or {}

        res = go(buyer, {"kind": "place_order", "merchant_id": merchant, "lines": [{"listing_id": lid}]})
        oid, total = res["order_id"], res["total"]
        pid = go(buyer, {"kind": "authorize_payment", "order_id": oid, "amount": total})["payment_id"]
        go(merchant, {"kind": "capture_payment", "payment_id": pid, "amount": total})
        go(merchant, {"kind": "allocate_inventory", "order_id": oid})
        go(merchant, {"kind": "ship_order", "order_id": oid})


def time_reconstruct(initial: dict, commits: list[dict], validations: dict[str, dict], runs: int,
                     world: World) -> tuple[tuple[list[float], list[float]], bool]:
    """Wall and CPU seconds of each reconstruction, and whether every one reproduced both digests."""
    wall, cpu, match = [], [], True
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        rebuilt = reconstruct(initial, commits, validations)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        match &= rebuilt.state_digest == world.state_digest() and rebuilt.event_digest == world.event_digest
    return (wall, cpu), match


def spread(times: tuple[list[float], list[float]]) -> str:
    wall, cpu = times
    return (f"wall min {min(wall) * 1e3:6.1f} / median {statistics.median(wall) * 1e3:6.1f} / "
            f"max {max(wall) * 1e3:6.1f} ms (cpu median {statistics.median(cpu) * 1e3:6.1f} ms)")


class _CpuTimer:
    """A callable standing in for ``fn`` that sums the CPU seconds spent in it."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn, self.cpu = fn, 0.0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        c0 = time.process_time()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.cpu += time.process_time() - c0


def _read(path: Path) -> tuple[dict, list[dict], dict[str, dict]]:
    """The initial state, commits and validations stored in a commit log file."""
    reader = CommitLog(path, readonly=True)
    try:
        return reader.get_meta("initial_state"), reader.commits(), reader.validations()
    finally:
        reader.close()


def scaling_one(size: int, seed: int, folder: Path) -> dict:
    """Build the probe's history at one size into ``folder`` (in this fresh process); commit costs and memory."""
    import gc
    import tracemalloc

    from acworld_env.eval import probe
    from acworld_env.world import digest

    w = probe.workload(size, seed)
    path = folder / f"n{size}.sqlite"
    log = CommitLog(path, durable=False)
    market = Market(probe.initial_state(w), seed=seed, log=log)
    timer = _CpuTimer(market.world.commit)
    market.world.commit = timer  # type: ignore[method-assign]
    c0 = time.process_time()
    probe.register_listings(market, w)
    probe.settle(market, probe.search(market.world.state["listings"], w))
    submit_cpu = time.process_time() - c0
    live = [market.world.state_digest(), market.world.event_digest]
    commits = len(market.world.commits)
    log.close()
    world_cpu = timer.cpu
    del market, timer
    gc.collect()

    tracemalloc.start()
    initial, stored, validations = _read(path)
    read_bytes = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    rebuilt = reconstruct(initial, stored, validations)
    replay_bytes = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    match = [rebuilt.state_digest, rebuilt.event_digest] == live
    del rebuilt

    encodings = [0]
    canonical = digest.canonical

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        encodings[0] += 1
        return canonical(*args, **kwargs)

    digest.canonical = counted  # type: ignore[assignment]
    try:
        reconstruct(initial, stored, validations)
    finally:
        digest.canonical = canonical  # type: ignore[assignment]
    with open("/proc/self/status") as fh:
        hwm = next((int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM")), 0)
    return {"size": size, "commits": commits, "live": live, "submit_us": submit_cpu / commits * 1e6,
            "world_commit_us": world_cpu / commits * 1e6, "read_bytes": read_bytes / commits,
            "replay_bytes": replay_bytes / commits, "peak_rss": hwm, "encodings": encodings[0] / commits,
            "match": match}


def scaling_rounds(folder: Path) -> dict:
    """Read and replay every size's log in turn, ``runs`` rounds (order rotated each round): CPU seconds.

    Interleaving the sizes in one process puts them under the same load of the shared cores, so
    their per-commit figures compare; a size timed alone minutes after another does not.
    """
    plan = json.loads((folder / "plan.json").read_text())
    sizes, out = plan["sizes"], {str(n): {"read": [], "replay": [], "match": True} for n in plan["sizes"]}
    for r in range(plan["runs"]):
        for size in sizes[r % len(sizes):] + sizes[:r % len(sizes)]:
            row = out[str(size)]
            c0 = time.process_time()
            initial, stored, validations = _read(folder / f"n{size}.sqlite")
            row["read"].append(time.process_time() - c0)
            c0 = time.process_time()
            rebuilt = reconstruct(initial, stored, validations)
            row["replay"].append(time.process_time() - c0)
            row["match"] &= [rebuilt.state_digest, rebuilt.event_digest] == plan["live"][str(size)]
            del initial, stored, validations, rebuilt
    return out


def scaling(sizes: list[int], seed: int, runs: int) -> bool:
    """Build each size in a fresh process, then read and replay them interleaved; one table. True if digests match."""
    print(f"Per-commit cost vs size: the probe's workload (n Buyers x n Merchants, 1 listing per Merchant, "
          f"{CANDIDATES} candidates and 5 proposals per Buyer: 6n commits) through Market.submit onto a "
          f"non-durable SQLite log (seed {seed}; one fresh process per size), then every log read back and "
          f"replayed in one process, sizes interleaved over {runs} rounds (median CPU). CPU us and traced "
          "bytes per commit; ratio = this size / the smallest.")
    print("enc/commit counts canonical encodings in one replay over its commits (one per commit, plus one "
          "for the final state digest); RSS/commit is the building process's peak RSS (live Market "
          "included) over commits.")
    print(f"{'n':>6} {'commits':>7} {'submit':>8} {'World.commit':>12} {'read':>7} {'replay':>7} "
          f"{'read mem':>9} {'replay mem':>10} {'peak RSS':>9} {'RSS/commit':>10} {'enc/commit':>10}  digests   "
          f"ratio: commit  read replay  mem")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        built = {}
        for size in sizes:
            out = subprocess.run([sys.executable, __file__, "--scaling-one", str(size), "--seed", str(seed),
                                  "--folder", tmp], check=True, capture_output=True, text=True).stdout
            built[size] = json.loads(out.strip().splitlines()[-1])
        (folder / "plan.json").write_text(json.dumps(
            {"sizes": sizes, "runs": runs, "live": {str(n): built[n]["live"] for n in sizes}}))
        out = subprocess.run([sys.executable, __file__, "--scaling-rounds", tmp],
                             check=True, capture_output=True, text=True).stdout
        rounds = json.loads(out.strip().splitlines()[-1])
    ok, first = True, None
    for size in sizes:
        r, t = built[size], rounds[str(size)]
        r["read_us"] = statistics.median(t["read"]) / r["commits"] * 1e6
        r["replay_us"] = statistics.median(t["replay"]) / r["commits"] * 1e6
        r["match"] &= t["match"]
        first = first or r
        ok &= r["match"]
        print(f"{r['size']:>6} {r['commits']:>7} {r['submit_us']:>6.0f}us {r['world_commit_us']:>10.1f}us "
              f"{r['read_us']:>5.1f}us {r['replay_us']:>5.1f}us {r['read_bytes']:>7.0f} B {r['replay_bytes']:>8.0f} B "
              f"{r['peak_rss'] / 2**20:>6.0f} MB {r['peak_rss'] / r['commits'] / 1024:>7.1f} KB "
              f"{r['encodings']:>10.5f}  {'match' if r['match'] else 'MISMATCH':8}  "
              f"{r['world_commit_us'] / first['world_commit_us']:>12.2f} {r['read_us'] / first['read_us']:>5.2f} "
              f"{r['replay_us'] / first['replay_us']:>6.2f} {r['replay_bytes'] / first['replay_bytes']:>4.2f}",
              flush=True)
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="reconstruction repetitions")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scaling", help="comma-separated sizes n: per-commit cost table (see the docstring)")
    ap.add_argument("--scaling-one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--scaling-rounds", help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    ap.add_argument("--durable", action="store_true", help="also time atomic commits into a durable log")
    ap.add_argument("--no-market", action="store_true", help="skip the Market.submit path")
    ap.add_argument("--profile", action="store_true", help="profile one reconstruction of the atomic history")
    args = ap.parse_args(argv)
    if args.scaling_one:
        print(json.dumps(scaling_one(args.scaling_one, args.seed, Path(args.folder))))
        return 0
    if args.scaling_rounds:
        print(json.dumps(scaling_rounds(Path(args.scaling_rounds))))
        return 0
    if args.scaling:
        ok = scaling([int(x) for x in args.scaling.split(",") if x.strip()], args.seed, args.runs)
        print(f"\n{'OK' if ok else 'FAILED'}: every reconstruction reproduced both digests")
        return 0 if ok else 1

    t0 = time.perf_counter()
    initial, candidates = build(args.seed)
    edges = sum(len(c) for c in candidates.values())
    print(f"sparse world: {N_BUYERS} buyers x {N_MERCHANTS} merchants, {len(initial['listings'])} listings, "
          f"{edges} buyer-listing edges (built in {time.perf_counter() - t0:.2f} s)")
    print("(not the paper's probe: no registration or search, one size; for that workload run `acworld probe`)")
    ok = True

    # -- atomic settlements -------------------------------------------------------------------
    world = World(initial)
    t0 = time.perf_counter()
    validations = settle_atomic(world, candidates)
    dt = time.perf_counter() - t0
    n = len(world.commits)
    print(f"\n[atomic] {n} settlements = {n} commits x 5 events in {dt:.3f} s: "
          f"{n / dt:,.0f} commits/s, {n / dt:,.0f} settlements/s")
    vals = {v["validation_id"]: v for v in validations}
    times, match = time_reconstruct(world.initial_state, world.commits, vals, args.runs, world)
    print(f"[atomic] reconstruct {n} commits ({args.runs} runs): {spread(times)}")
    print(f"[atomic] digests match: {match}  state {world.state_digest()[:16]}  events {world.event_digest[:16]}")
    ok &= match

    with tempfile.TemporaryDirectory() as tmp:
        log = CommitLog(Path(tmp) / "atomic.sqlite", durable=False)
        log.set_meta("initial_state", world.initial_state)
        t0 = time.perf_counter()
        log.append_many(world.commits, validations)
        t_write = time.perf_counter() - t0
        t0 = time.perf_counter()
        stored, stored_vals, stored_initial = log.commits(), log.validations(), log.get_meta("initial_state")
        t_read = time.perf_counter() - t0
        log.close()
        times, match = time_reconstruct(stored_initial, stored, stored_vals, args.runs, world)
        print(f"[atomic] from the SQLite log: write {t_write * 1e3:.0f} ms, read {t_read * 1e3:.0f} ms, "
              f"reconstruct {spread(times)}, digests match: {match}")
        ok &= match

        if args.durable:
            log = CommitLog(Path(tmp) / "durable.sqlite", durable=True)
            dworld = World(initial, log=log)
            t0 = time.perf_counter()
            settle_atomic(dworld, candidates)
            dt = time.perf_counter() - t0
            log.close()
            print(f"[atomic] durable log (WAL, synchronous=FULL, one transaction per commit): "
                  f"{n / dt:,.0f} commits/s")

    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        reconstruct(world.initial_state, world.commits, vals)
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(12)

    # -- through Market.submit ------------------------------------------------------------------
    if not args.no_market:
        market = Market(initial)
        t0 = time.perf_counter()
        settle_market(market, candidates)
        dt = time.perf_counter() - t0
        mw = market.world
        n = len(mw.commits)
        print(f"\n[market] {len(candidates)} settlements = {n} commits via Market.submit in {dt:.3f} s: "
              f"{n / dt:,.0f} commits/s, {len(candidates) / dt:,.0f} settlements/s")
        mvals = {r.validation.validation_id: r.validation.to_dict() for r in market.trace.records
                 if r.commit is not None}
        times, match = time_reconstruct(mw.initial_state, mw.commits, mvals, args.runs, mw)
        print(f"[market] reconstruct {n} commits ({args.runs} runs): {spread(times)}")
        print(f"[market] digests match: {match}  state {mw.state_digest()[:16]}  events {mw.event_digest[:16]}")
        ok &= match
        same_orders = {o["buyer"]: (o["lines"], o["total"]) for o in mw.state["orders"].values()} == {
            o["buyer"]: (o["lines"], o["total"]) for o in world.state["orders"].values()}
        print(f"[market] same settlements as the atomic path: {same_orders}")
        ok &= same_orders

    print(f"\n{'OK' if ok else 'FAILED'}: every reconstruction reproduced both digests")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
