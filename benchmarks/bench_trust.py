"""Trust figures: the main command at high concurrency in fresh processes, and the cost of verifying.

Runs ``acworld eval capability-v1 --policy reference --concurrency N`` ``--runs`` times, each in a
new process (the catalog deadlock that once hung about 2 runs in 12 struck on a process's first
catalog touch), with a ``--timeout`` per run; prints how many hung or failed, the wall time of
each, and whether every run reproduced the same root digest. Then times ``acworld verify`` on
the last evaluation folder (whole process, so start-up is included) and prints it per run.

Usage::

    python benchmarks/bench_trust.py                      # 12 runs at --concurrency 8
    python benchmarks/bench_trust.py --runs 30 --concurrency 16
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    hung = failed = 0
    walls: list[float] = []
    roots: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for i in range(args.runs):
            folder = out / f"eval{i}"
            cmd = [sys.executable, "-m", "acworld_env.cli", "eval", "capability-v1", "--policy", "reference",
                   "--concurrency", str(args.concurrency), "--quiet", "--out", str(folder)]
            start = time.perf_counter()
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                hung += 1
                continue
            walls.append(time.perf_counter() - start)
            if proc.returncode != 0:
                failed += 1
                continue
            roots.add(json.loads((folder / "summary.json").read_text())["root_digest"])
        last = out / f"eval{args.runs - 1}"
        start = time.perf_counter()
        verify = subprocess.run([sys.executable, "-m", "acworld_env.cli", "verify", str(last)],
                                capture_output=True, text=True, timeout=300)
        verify_s = time.perf_counter() - start
        leftovers = sorted(p.name for p in last.rglob("*") if p.name.endswith(("-wal", "-shm")))
    print(f"eval --concurrency {args.concurrency}: {args.runs} fresh processes, {hung} hung "
          f"(> {args.timeout:.0f} s), {failed} failed")
    if walls:
        print(f"  wall per eval: median {statistics.median(walls):.2f} s, max {max(walls):.2f} s")
    print(f"  root digests: {len(roots)} distinct ({'identical' if len(roots) == 1 else 'DIFFER'})")
    print(f"verify (whole process, 60 runs): {verify_s:.2f} s, exit {verify.returncode}, "
          f"{verify_s / 60 * 1000:.1f} ms per run; files left behind: {leftovers or 'none'}")


if __name__ == "__main__":
    main()
