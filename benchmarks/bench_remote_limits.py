"""The market server under hostile bodies and slow creations: memory growth, and other episodes' latency.

Prints, for ``acworld serve`` in a child process on 127.0.0.1 (its memory is read from ``/proc``,
the client's does not count):

1. memory: how far the server's resident set grows at its peak while it answers each hostile
   request (a 64 MB chunked body without a credential to an action route; a 16 MB body without
   the admin credential to ``POST /v1/episodes``, with ``Content-Length`` and chunked; a 16 MB
   body with a valid credential, which must stop at the route's limit). Target: < 8 MB each.
2. latency: the requests of other episodes (``get_balance`` actions, and creating a frozen
   task's episode when one ends), one after another on one kept-alive connection, while
   another client creates an episode on a generated split (task generation: seconds). p50, p99
   and max. Target: p99 < 50 ms.

Run::

    python benchmarks/bench_remote_limits.py [--seeds 2]
"""

from __future__ import annotations

import argparse
import time

import httpx

from acworld_env.remote.probes import (
    ServerProcess,
    growth_kb,
    latencies_during,
    percentile,
    send_body,
)
from acworld_env.tasks.suites import load_suite

ADMIN = "bench-admin-credential-0123456789"


def _started(url: str, task_id: str, token: str | None) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    started = httpx.post(f"{url}/v1/episodes", json={"task_id": task_id}, headers=headers, timeout=60).json()
    actor = started["state"]["agent_selection"]
    httpx.post(f"{url}/v1/episodes/{started['episode_id']}/actions", json={"action": {"kind": "get_balance"}},
               headers={"Authorization": f"Bearer {started['credentials'][actor]}"}, timeout=60).raise_for_status()
    return started


def memory(task_id: str) -> None:
    """Section 1: peak growth of the server's resident set per hostile request."""
    print("1. server memory growth while it answers a hostile body (target < 8 MB)")
    print(f"   {'request':<66} {'status':>6} {'growth':>10}")
    with ServerProcess(token=ADMIN) as guarded:
        started = _started(guarded.url, task_id, ADMIN)
        rows = [
            ("64 MB chunked, no credential, POST .../actions",
             guarded, f"/v1/episodes/{started['episode_id']}/actions", 64 << 20, {}, True),
            ("16 MB Content-Length, no admin credential, POST /v1/episodes",
             guarded, "/v1/episodes", 16 << 20, {}, False),
            ("16 MB chunked, no admin credential, POST /v1/episodes",
             guarded, "/v1/episodes", 16 << 20, {}, True),
        ]
        _rows(rows)
    with ServerProcess() as open_server:
        started = _started(open_server.url, task_id, None)
        actor = started["state"]["agent_selection"]
        cred = {"Authorization": f"Bearer {started['credentials'][actor]}"}
        _rows([
            ("16 MB chunked, loopback server without admin, POST /v1/episodes",
             open_server, "/v1/episodes", 16 << 20, {}, True),
            ("64 MB chunked, valid actor credential, POST .../actions",
             open_server, f"/v1/episodes/{started['episode_id']}/actions", 64 << 20, cred, True),
        ])


def _rows(rows: list[tuple]) -> None:
    for label, proc, path, size, headers, chunked in rows:
        grew, status = growth_kb(proc, lambda p=proc, a=path, s=size, h=headers, c=chunked: send_body(
            p.url, a, s, headers=h, chunked=c))
        print(f"   {label:<66} {status:>6} {grew / 1024:>7.1f} MB")


def latency(task_id: str, seeds: int) -> None:
    """Section 2: other episodes' request latency while a generated split's episode is created."""
    print("2. other episodes' requests while a generated-split episode is created (target p99 < 50 ms)")
    print(f"   {'seed':>6} {'creation':>9} {'requests':>9} {'p50':>8} {'p99':>8} {'max':>8}")
    with ServerProcess(token=ADMIN) as proc:
        for i in range(seeds):
            seed = 90_000 + int(time.time()) % 1000 + i

            def create(seed: int = seed) -> None:
                httpx.post(f"{proc.url}/v1/episodes", json={"split": "generated", "seed": seed},
                           headers={"Authorization": f"Bearer {ADMIN}"}, timeout=600).raise_for_status()

            during, took = latencies_during(proc.url, create, task_id=task_id, token=ADMIN)
            print(f"   {seed:>6} {took:>8.2f}s {len(during):>9} {percentile(during, 0.5) * 1000:>6.1f}ms "
                  f"{percentile(during, 0.99) * 1000:>6.1f}ms {max(during, default=0) * 1000:>6.1f}ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="Generated splits to create in section 2.")
    args = parser.parse_args()
    task_id = load_suite("capability-v1", "frozen", 0)[0].task_id
    memory(task_id)
    latency(task_id, args.seeds)


if __name__ == "__main__":
    main()
