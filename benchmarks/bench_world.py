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

    python benchmarks/bench_world.py [--runs 5] [--seed 0] [--durable] [--profile]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="reconstruction repetitions")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--durable", action="store_true", help="also time atomic commits into a durable log")
    ap.add_argument("--no-market", action="store_true", help="skip the Market.submit path")
    ap.add_argument("--profile", action="store_true", help="profile one reconstruction of the atomic history")
    args = ap.parse_args(argv)

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
