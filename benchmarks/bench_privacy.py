"""The privacy guard on its labelled corpus: how many leaks it catches, how many innocent texts
it passes, what it got wrong, and how long one field takes.

The corpus is ``tests/foundation/privacy_corpus.jsonl`` (realistic negotiation texts, twelve
sealed amounts, both roles). Each text is judged the way the platform judges a field
(:func:`acworld_env.cip.privacy.reveals`, the function behind the one judge) with the
per-text cache cleared before every timed call, so every timing is a cold read. A field's time is
the best of ``--repeats`` runs (the machine's noise removed); the p95 over all runs is printed too.

The issue's targets: at least 99 % of leaks caught, at least 98 % of innocent texts passed,
p95 under 50 µs per field.

    python benchmarks/bench_privacy.py [--repeats 7] [--corpus PATH] [--quiet]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import timeit
from pathlib import Path

from acworld_env.cip import privacy

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent / "tests" / "foundation" / "privacy_corpus.jsonl"


def load(path: Path) -> list[dict]:
    """The labelled examples of a JSONL corpus."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def cold_time(text: str, sealed: list[int], repeats: int) -> tuple[float, list[float]]:
    """Best and all timings (seconds) of judging ``text`` with an empty cache."""
    runs = []
    for _ in range(repeats):
        privacy._revealed.cache_clear()
        t0 = time.perf_counter()
        privacy.reveals(text, sealed)
        runs.append(time.perf_counter() - t0)
    return min(runs), runs


def machine_reference() -> float:
    """Best time (seconds) of ``sum(range(1000))``: a yardstick for how busy the machine is.

    When other jobs share the CPU it grows, and the guard's timings grow with it; compare runs
    by it.
    """
    return min(timeit.repeat("sum(range(1000))", number=200, repeat=7)) / 200


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per field (best is kept)")
    parser.add_argument("--quiet", action="store_true", help="do not list the misses")
    args = parser.parse_args()

    examples = load(args.corpus)
    for e in examples:  # warm the interpreter (imports, regex compilation), not the per-text cache
        privacy.reveals(e["text"] + " ", [e["sealed"]])
    missed, blocked, best, every = [], [], [], []
    for e in examples:
        sealed = [e["sealed"]]
        caught = privacy.reveals(e["text"], sealed) is not None
        if e["leak"] and not caught:
            missed.append(e)
        elif not e["leak"] and caught:
            blocked.append(e)
        b, runs = cold_time(e["text"], sealed, args.repeats)
        best.append(b)
        every.extend(runs)

    leaks = sum(1 for e in examples if e["leak"])
    innocent = len(examples) - leaks
    caught_rate = 1 - len(missed) / leaks
    passed_rate = 1 - len(blocked) / innocent
    sealed_amounts = len({e["sealed"] for e in examples})
    print(f"corpus: {len(examples)} texts ({leaks} leaks, {innocent} innocent), {sealed_amounts} sealed amounts")
    print(f"leaks caught:    {leaks - len(missed)}/{leaks} = {caught_rate:.2%}  (target >= 99%)")
    print(f"innocent passed: {innocent - len(blocked)}/{innocent} = {passed_rate:.2%}  (target >= 98%)")
    us = 1e6
    print(f"time per field (cold, best of {args.repeats}): median {statistics.median(best) * us:.1f} us, "
          f"p95 {percentile(best, 0.95) * us:.1f} us (target < 50 us), max {max(best) * us:.1f} us")
    print(f"time per field (cold, all runs): median {statistics.median(every) * us:.1f} us, "
          f"p95 {percentile(every, 0.95) * us:.1f} us")
    print(f"machine yardstick: sum(range(1000)) takes {machine_reference() * us:.1f} us now "
          "(when it is slower than usual the CPU is shared, and the timings above are inflated alike)")
    if not args.quiet:
        for label, rows in (("missed leak", missed), ("blocked innocent", blocked)):
            for e in rows:
                print(f"  {label}: sealed {e['sealed'] / 100:.2f} ({e['role']}, {e['kind']}.{e['field']}): "
                      f"{e['text']!r}")
        slowest = sorted(zip(best, (e["text"] for e in examples), strict=True), reverse=True)[:5]
        for t, text in slowest:
            print(f"  slow: {t * us:.1f} us  {text!r}")


if __name__ == "__main__":
    main()
