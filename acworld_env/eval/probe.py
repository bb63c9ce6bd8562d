"""``acworld probe``: the sparse-World probe of the paper's Appendix K, through the full platform path.

Per size ``n`` (n Buyers x n Merchants) and seed:

1. **registration**: the actors enter the initial state of a World on a durable SQLite commit
   log; every Merchant publishes its one listing with ``publish_listing`` through
   ``Market.submit`` (validated, committed, traced): ``n`` commits.
2. **indexed search**: one index of the published listings by department, sorted by price;
   every Buyer queries its department around its target price and gets 5 candidates (``5n``
   Buyer-listing edges out of ``n^2`` pairs).
3. **settlement**: every Buyer buys its cheapest candidate in stock through ``Market.submit``:
   ``place_order``, ``authorize_payment``, ``capture_payment``, ``allocate_inventory``,
   ``ship_order`` (each one proposal, validated, one atomic commit, appended durably): ``5n`` commits.
4. **reconstruction**: the live market is released, then the log is read back from disk and
   replayed from the initial state; both digests must equal the live World's.

Unlike the paper's World-only probe, validation, VCP parsing and the lineage trace are included;
model inference, message routing, contention and concurrency are not.
"""

from __future__ import annotations

import bisect
import gc
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

CANDIDATES = 5
PAPER_AT_1000 = {"registration": 2.45, "settlement": 6.0, "reconstruction": 9.3}
"""Seconds at 1,000 x 1,000 measured on the paper's release (registration, settlement, replay)."""


@dataclass
class ProbeRow:
    """One probe run's workload and timings (seconds)."""

    size: int
    seed: int
    listings: int
    edges: int
    settled: int
    commits: int
    registration: float
    search: float
    settlement: float
    read: float
    reconstruction: float
    digests_match: bool
    reconstruction_cpu: float = 0.0
    """CPU seconds of the replay (wall time also counts other processes sharing the cores)."""
    registration_cpu: float = 0.0
    settlement_cpu: float = 0.0
    read_cpu: float = 0.0

    @property
    def edge_share(self) -> float:
        """Edges as a share of all Buyer x Merchant pairs."""
        return self.edges / (self.size * self.size)


@dataclass
class Workload:
    """The probe's actors and draws for one size and seed (ids, prices, departments, targets)."""

    size: int
    seed: int
    buyers: list[str]
    merchants: list[str]
    prices: Any
    dept_of_merchant: Any
    dept_of_buyer: Any
    target: Any


def workload(size: int, seed: int) -> Workload:
    """The draws of one probe run (the same for every caller: seeded by ``[seed, size]``)."""
    rng = np.random.default_rng([seed, size])
    departments = max(1, size // 50)
    buyers, merchants = [f"B{i:05d}" for i in range(size)], [f"M{j:05d}" for j in range(size)]
    prices = rng.integers(500, 20_000, size)
    dept_of_merchant = rng.integers(0, departments, size)
    dept_of_buyer, target = rng.integers(0, departments, size), rng.integers(500, 20_000, size)
    return Workload(size, seed, buyers, merchants, prices, dept_of_merchant, dept_of_buyer, target)


def initial_state(w: Workload) -> dict:
    """``n`` Buyers (balance 1,000,000) and ``n`` Merchants, no listings."""
    from ..world import add_actor, empty_state

    state = empty_state(catalog_hash=f"probe-{w.size}-{w.seed}")
    for b in w.buyers:
        add_actor(state, b, "buyer", balance=1_000_000)
    for m in w.merchants:
        add_actor(state, m, "merchant")
    return state


def register_listings(market: Any, w: Workload) -> None:
    """Every Merchant publishes its one listing through ``Market.submit`` (``n`` commits)."""
    for j, m in enumerate(w.merchants):
        r = market.submit(m, {"kind": "publish_listing", "title": f"Item {j}", "category": f"D{w.dept_of_merchant[j]}",
                              "price": int(w.prices[j]), "quantity": 10})
        if not r.accepted:
            raise RuntimeError(f"registration refused: {r.code} {r.message}")


def search(listings: dict, w: Workload) -> dict[str, list[str]]:
    """One index by department sorted by price; each Buyer's ``CANDIDATES`` listings nearest its target."""
    index: dict[str, list[tuple[int, str]]] = {}
    for lid, rec in listings.items():
        index.setdefault(rec["category"], []).append((rec["price"], lid))
    for rows in index.values():
        rows.sort()
    candidates: dict[str, list[str]] = {}
    for i, b in enumerate(w.buyers):
        rows = index.get(f"D{w.dept_of_buyer[i]}") or index[min(index)]
        at = bisect.bisect_left(rows, (int(w.target[i]), ""))
        lo = max(0, min(at - CANDIDATES // 2, len(rows) - CANDIDATES))
        candidates[b] = [lid for _, lid in rows[lo:lo + CANDIDATES]]
    return candidates


def settle(market: Any, candidates: dict[str, list[str]]) -> int:
    """Every Buyer buys its cheapest candidate in stock, five proposals each; the number settled."""
    settled = 0
    listings = market.world.state["listings"]
    for b, cands in candidates.items():
        live = [(listings[lid]["price"], lid) for lid in cands if listings[lid]["stock"] > 0]
        if not live:
            continue
        lid = min(live)[1]
        merchant = listings[lid]["merchant"]
        res = _go(market, b, {"kind": "place_order", "merchant_id": merchant, "lines": [{"listing_id": lid}]})
        oid, total = res["order_id"], res["total"]
        pid = _go(market, b, {"kind": "authorize_payment", "order_id": oid, "amount": total})["payment_id"]
        _go(market, merchant, {"kind": "capture_payment", "payment_id": pid, "amount": total})
        _go(market, merchant, {"kind": "allocate_inventory", "order_id": oid})
        _go(market, merchant, {"kind": "ship_order", "order_id": oid})
        settled += 1
    return settled


def _run(size: int, seed: int, folder: Path, durable: bool) -> ProbeRow:
    from ..market import Market
    from ..world import CommitLog, reconstruct

    w = workload(size, seed)
    t0, c0 = time.perf_counter(), time.process_time()
    state = initial_state(w)
    log = CommitLog(folder / f"probe-{size}-{seed}.sqlite", durable=durable)
    market = Market(state, seed=seed, log=log)
    register_listings(market, w)
    registration, registration_cpu = time.perf_counter() - t0, time.process_time() - c0

    t0 = time.perf_counter()
    candidates = search(market.world.state["listings"], w)
    search_time = time.perf_counter() - t0

    t0, c0 = time.perf_counter(), time.process_time()
    settled = settle(market, candidates)
    settlement, settlement_cpu = time.perf_counter() - t0, time.process_time() - c0
    live_state, live_events, commits = market.world.state_digest(), market.world.event_digest, len(market.world.commits)
    n_listings, edges = len(market.world.state["listings"]), sum(map(len, candidates.values()))
    log.close()
    del market, candidates, state  # reconstruction starts from the file alone, as a new process would
    gc.collect()

    t0, c0 = time.perf_counter(), time.process_time()
    reader = CommitLog(folder / f"probe-{size}-{seed}.sqlite", readonly=True)
    initial, stored, validations = reader.get_meta("initial_state"), reader.commits(), reader.validations()
    reader.close()
    read, read_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    rebuilt = reconstruct(initial, stored, validations)
    reconstruction, reconstruction_cpu = time.perf_counter() - t0, time.process_time() - c0
    match = rebuilt.state_digest == live_state and rebuilt.event_digest == live_events
    return ProbeRow(size, seed, n_listings, edges, settled, commits,
                    registration, search_time, settlement, read, reconstruction, match, reconstruction_cpu,
                    registration_cpu, settlement_cpu, read_cpu)


def _go(market: Any, actor: str, raw: dict) -> dict:
    r = market.submit(actor, raw)
    if not r.accepted:
        raise RuntimeError(f"{raw['kind']} by {actor} refused: {r.code} {r.message}")
    return r.result or {}


def run_probe(sizes: list[int], seeds: int, *, durable: bool = True, folder: Path | None = None) -> list[ProbeRow]:
    """Every size over seeds ``0..seeds-1``; the SQLite files go to ``folder`` (a temporary one by default)."""
    if not sizes or any(s < 1 or s > 100_000 for s in sizes):
        raise ValueError("sizes must be between 1 and 100,000")
    if not 1 <= seeds <= 100:
        raise ValueError("seeds must be between 1 and 100")
    with tempfile.TemporaryDirectory() as tmp:
        where = folder or Path(tmp)
        return [_run(size, seed, where, durable) for size in sizes for seed in range(seeds)]


def table(rows: list[ProbeRow], durable: bool = True) -> list[str]:
    """The probe's report: workload, per-run timings, per-size means, and the paper's figures."""
    out = [f"Sparse-World probe: n Buyers x n Merchants, 1 listing per Merchant, {CANDIDATES} candidates per Buyer;",
           "registration (publish_listing), indexed search, settlement (5 proposals each) through Market.submit",
           f"with validation and trace, {'durable (synchronous=FULL) ' if durable else ''}SQLite log, reconstruction "
           "from the file.", "",
           f"{'n':>6} {'seed':>4} {'edges':>6} {'of pairs':>8} {'settled':>7} {'commits':>7} {'register':>9} "
           f"{'search':>8} {'settle':>8} {'read':>7} {'replay':>8} {'cpu':>7}  digests"]
    for r in rows:
        out.append(f"{r.size:>6} {r.seed:>4} {r.edges:>6} {r.edge_share:>8.2%} {r.settled:>7} {r.commits:>7} "
                   f"{r.registration:>8.3f}s {r.search:>7.3f}s {r.settlement:>7.3f}s {r.read:>6.3f}s "
                   f"{r.reconstruction:>7.3f}s {r.reconstruction_cpu:>6.3f}s  "
                   f"{'match' if r.digests_match else 'MISMATCH'}")
    out += ["", "Means over seeds (wall seconds; CPU seconds of this process in brackets):"]
    for size in sorted({r.size for r in rows}):
        rs = [r for r in rows if r.size == size]

        def mean(attr: str, rs: list[ProbeRow] = rs) -> float:
            return statistics.fmean(getattr(r, attr) for r in rs)
        out.append(f"{size:>6}  register {mean('registration'):.3f}s ({mean('registration_cpu'):.3f})  "
                   f"search {mean('search'):.3f}s  settle {mean('settlement'):.3f}s ({mean('settlement_cpu'):.3f})  "
                   f"read {mean('read'):.3f}s ({mean('read_cpu'):.3f})  "
                   f"replay {mean('reconstruction'):.3f}s ({mean('reconstruction_cpu'):.3f}, "
                   f"{mean('reconstruction_cpu') / mean('commits') * 1e6:.0f} us/commit)")
    p = PAPER_AT_1000
    out.append(f"paper's release at 1000: register {p['registration']:.2f}s  settle {p['settlement']:.1f}s  "
               f"replay {p['reconstruction']:.1f}s")
    return out


def register(app: Any) -> None:
    """Add ``acworld probe`` to the command line."""
    import typer

    from ..cli_common import console

    @app.command()
    def probe(sizes: str = typer.Option("10,100,1000", "--sizes", help="Comma-separated n (n Buyers x n Merchants)."),
              seeds: int = typer.Option(3, "--seeds", help="Seeds per size (0..seeds-1)."),
              no_durable: bool = typer.Option(False, "--no-durable", help="Skip fsync on every commit.")) -> None:
        """The sparse-World probe (paper Appendix K): registration, indexed search, settlement, reconstruction."""
        try:
            ns = [int(x) for x in sizes.split(",") if x.strip()]
            rows = run_probe(ns, seeds, durable=not no_durable)
        except ValueError as exc:
            console.print(f"error: {exc}", markup=False)
            raise typer.Exit(2) from None
        for line in table(rows, durable=not no_durable):
            console.print(line, markup=False)
        if not all(r.digests_match for r in rows):
            raise typer.Exit(1)
