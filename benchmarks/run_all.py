"""Every benchmark at a CI-friendly size, one table: figure, value, goal, met or not.

Workload: each benchmark of this folder runs once as its own process (so each starts cold and
none shares an interpreter with another), at the size given in :data:`BENCHES` (smaller than
each benchmark's default where that default takes minutes; every size is printed). Each
benchmark takes its own medians (``bench_env`` over 3 passes, ``bench_startup`` over 5 fresh
processes, ``bench_catalog`` over 3 runs, ...); this script only reads the figures they print.
While a benchmark runs, its process tree is sampled every 50 ms from ``/proc``: the table also
gives its wall time, the peak RSS of the whole tree (pages shared between processes counted once
per process) and the peak PSS (shared pages split fairly), side by side.

The machine's load average is printed before and after: on a shared machine every latency and
rate is inflated alike, the ratio of ``bench_env`` (measured against a no-op env in the same
process and run) much less so.

    python benchmarks/run_all.py [--only env,startup] [--markdown out.md]

Exit status 0 when every goal is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_catalog import _mem_kb, _tree  # noqa: E402  (this folder's helper, imported after the path is set)


@dataclass
class Figure:
    """One figure a benchmark prints: a label, how to read it from the output, its goal."""

    label: str
    read: Callable[[str], float | None]
    goal: str
    met: Callable[[float], bool]
    unit: str = ""


@dataclass
class Bench:
    """One benchmark run: its command line (relative to this folder) and the figures it yields."""

    name: str
    args: list[str]
    figures: list[Figure] = field(default_factory=list)
    timeout: float = 900.0


def number(pattern: str, group: int = 1) -> Callable[[str], float | None]:
    """A reader of the first match of ``pattern`` in the output, as a float."""
    rx = re.compile(pattern)

    def read(out: str) -> float | None:
        m = rx.search(out)
        return float(m.group(group).replace(",", "")) if m else None

    return read


def median_after(label: str, stat: str) -> Callable[[str], float | None]:
    """The median of ``stat`` ("p50 a / b / c ms": b) on the line after the line containing ``label``."""
    def read(out: str) -> float | None:
        lines = out.splitlines()
        for i, line in enumerate(lines[:-1]):
            if label in line:
                m = re.search(rf"{stat} ([\d.]+) / ([\d.]+) / ([\d.]+)", lines[i + 1])
                return float(m.group(2)) if m else None
        return None

    return read


def scaling_column(index: int) -> Callable[[str], float | None]:
    """Column ``index`` of the largest size's row of ``bench_world.py --scaling`` (1 enc/commit; 2, 3, 4, 5:
    the commit, read, replay and memory ratios to the smallest size)."""
    rx = re.compile(r"^\s*\d+\s+\d+\s.*?\s([\d.]+)\s+match\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", re.M)

    def read(out: str) -> float | None:
        rows = rx.findall(out)
        return float(rows[-1][index - 1]) if rows else None

    return read


def at_most(limit: float) -> Callable[[float], bool]:
    """A goal of at most ``limit``."""
    return lambda v: v <= limit


def at_least(limit: float) -> Callable[[float], bool]:
    """A goal of at least ``limit``."""
    return lambda v: v >= limit


BENCHES = [
    Bench("env", ["bench_env.py", "--repeat", "3"], [
        Figure("training loop (reset, step, decode, policy) / no-op pair, CPU, frozen 200 tasks",
               number(r"full-loop ratio \(frozen [^)]*\): CPU ([\d.]+)x"), "<= 5x", at_most(5.0), "x"),
        Figure("training loop / no-op pair, wall, frozen 200 tasks",
               number(r"full-loop ratio \(frozen [^)]*\): CPU [\d.]+x, wall ([\d.]+)x"), "<= 5x", at_most(5.0), "x"),
        Figure("training loop / no-op pair, CPU, generated split (seed 1, 200 tasks)",
               number(r"full-loop ratio \(generated [^)]*\): CPU ([\d.]+)x"), "<= 5x", at_most(5.0), "x"),
        Figure("training loop / no-op pair, wall, generated split (seed 1, 200 tasks)",
               number(r"full-loop ratio \(generated [^)]*\): CPU [\d.]+x, wall ([\d.]+)x"), "<= 5x", at_most(5.0), "x"),
        Figure("env step / no-op env step (200 tasks, equal observation work)",
               number(r"per-step cost ratio \(ours/no-op\): ([\d.]+)x"), "<= 5x", at_most(5.0), "x"),
        Figure("env step / no-op env step, in process CPU time (for reference)",
               number(r"per-step CPU-time ratio \([^)]*\): ([\d.]+)x"), "-", lambda v: True, "x"),
        Figure("env step (reference policies, make())", number(r"via make\(\):\s+[\d,]+ steps/s\s+\(\s*([\d.]+) us/step"),
               "-", lambda v: True, "us"),
        Figure("full reference pass, 200 tasks (via make())", number(r"full reference pass via make\(\):\s+([\d.]+) s"),
               "<= 4.7 s", at_most(4.7), "s"),
    ]),
    Bench("startup", ["bench_startup.py", "--repeat", "3"], [
        Figure("python -c 'import acworld_env; make(\"capability-v1\")' (fresh process)",
               number(r"make\('capability-v1'\)\s+([\d.]+) s"), "< 0.3 s", at_most(0.3), "s"),
        Figure("floor: import pettingzoo + pydantic (first model) + numpy alone (fresh process)",
               number(r"floor: pettingzoo \+ pydantic \+ numpy alone\s+([\d.]+) s"), "-", lambda v: True, "s"),
        Figure("acworld --help (fresh process)", number(r"acworld --help\s+([\d.]+) s"), "< 0.3 s", at_most(0.3), "s"),
        Figure("bare interpreter (python -c pass), for reference", number(r"\(python -c pass\)\s+([\d.]+) s"),
               "-", lambda v: True, "s"),
    ]),
    Bench("vector", ["bench_vector.py", "--steps", "200", "--warmup", "20", "--repeat", "2"], [
        Figure("menu env steps/s, single env", number(r"single env \(no vector wrapper\)\s+([\d,]+) steps/s"),
               "-", lambda v: True, "/s"),
        Figure("menu env steps/s, SyncVectorEnv x2", number(r"SyncVectorEnv x2\s+([\d,]+) steps/s"),
               "-", lambda v: True, "/s"),
        Figure("menu env steps/s, AsyncVectorEnv x2", number(r"AsyncVectorEnv x2\s+([\d,]+) steps/s"),
               "-", lambda v: True, "/s"),
        Figure("menu env steps/s, AsyncVectorEnv x4", number(r"AsyncVectorEnv x4\s+([\d,]+) steps/s"),
               "-", lambda v: True, "/s"),
    ]),
    Bench("eval_pass", ["bench_eval_pass.py", "--repeat", "3"], [
        Figure("acworld eval --concurrency 1 per task / bare env loop per task (in process, summary wall time, median)",
               number(r"eval/env ratio in process: median ([\d.]+)x"), "<= 1.5x", at_most(1.5), "x"),
        Figure("the same, acworld eval in a fresh process",
               number(r"eval/env ratio, fresh process: median ([\d.]+)x"), "<= 1.5x", at_most(1.5), "x"),
        Figure("the same, fresh acworld eval / the env loop in a fresh process (both meet every task first)",
               number(r"the fresh evaluation over it: median ([\d.]+)x"), "-", lambda v: True, "x"),
        Figure("the same, CPU time (acworld eval's summary cpu_s / the env loop's, fresh process, median)",
               number(r"CPU time per task, fresh process .*?ratio to the env loop ([\d.]+)x"), "-", lambda v: True, "x"),
        Figure("evaluation pass per task (in process, summary wall time, median)",
               number(r"in process \(summary wall time\), per task:\s+([\d.]+)"), "-", lambda v: True, "ms"),
        Figure("evaluation pass run-to-run spread (range / median)",
               number(r"in process \(summary wall time\), per task:.*?range/median (\d+)%"), "-", lambda v: True, "%"),
        Figure("evaluation pass kernel time per task (run folders and files)",
               number(r"kernel\) time per task: .*?evaluation pass ([\d.]+) ms"), "-", lambda v: True, "ms"),
    ], timeout=600),
    Bench("catalog", ["bench_catalog.py", "--builds", "0", "--queries", "1000", "--query-runs", "3"], [
        Figure("catalog filter+sort+page p95, records, warm caches",
               median_after("filter+sort+page (warm caches, 1000 queries, Listing objects", "p95"),
               "<= 0.5 ms", at_most(0.5), "ms"),
        Figure("catalog filter+sort+page p95, records, caches cleared per query",
               median_after("filter+sort+page (cleared caches, 1000 queries, Listing objects", "p95"),
               "<= 0.5 ms", at_most(0.5), "ms"),
        Figure("catalog filter+sort+page p95, records, cold (fresh process)",
               median_after("filter+sort+page (cold: a fresh process", "p95"), "-", lambda v: True, "ms"),
        Figure("catalog ranked text p95, records, warm caches",
               median_after("ranked text (warm caches, 1000 queries, Listing objects", "p95"),
               "<= 10 ms", at_most(10.0), "ms"),
    ]),
    Bench("runner", ["bench_runner.py", "--repeats", "2"], [
        Figure("LLM runner, 64 slots, 100 ms endpoint: share of the latency bound",
               number(r"= ([\d.]+)% of the latency bound"), ">= 75 %", at_least(75.0), "%"),
    ]),
    Bench("world", ["bench_world.py", "--runs", "3"], [
        Figure("sparse World 1,000 x 1,000: reconstruct 5,000 Market.submit commits (median)",
               number(r"\[market\] reconstruct \d+ commits \(\d+ runs\): wall min\s+[\d.]+ / median\s+([\d.]+)"),
               "< 1000 ms", at_most(1000.0), "ms"),
    ]),
    Bench("scaling", ["bench_world.py", "--scaling", "1000,3000", "--runs", "3"], [
        Figure("reconstruction at 3,000 x 3,000 / at 1,000 x 1,000: replay CPU per commit",
               scaling_column(4), "<= 1.25 (flat)", at_most(1.25), "x"),
        Figure("reconstruction at 3,000 x 3,000 / at 1,000 x 1,000: traced memory per commit",
               scaling_column(5), "<= 1.25 (flat)", at_most(1.25), "x"),
        Figure("canonical encodings per replayed commit at 3,000 x 3,000 (final digest included)",
               scaling_column(1), "<= 1.001", at_most(1.001)),
    ]),
    Bench("market", ["bench_market.py", "--sizes", "5,25"], [
        Figure("market-v1 25 x 25 truthful: welfare vs global optimum",
               number(r"\n\s+25 truthful.*?\s([\d.]+)%\s+[\d.]+%"), "-", lambda v: True, "%"),
    ]),
    Bench("privacy", ["bench_privacy.py", "--repeats", "3", "--quiet"], [
        Figure("privacy guard: leaks caught", number(r"leaks caught:.*?= ([\d.]+)%"), ">= 99 %", at_least(99.0), "%"),
        Figure("privacy guard: innocent texts passed", number(r"innocent passed:.*?= ([\d.]+)%"), ">= 98 %",
               at_least(98.0), "%"),
        Figure("privacy guard: p95 per field (cold)", number(r"all runs\): median [\d.]+ us, p95 ([\d.]+) us"),
               "< 50 us", at_most(50.0), "us"),
    ]),
    Bench("http", ["bench_http.py", "--tasks", "*/T1/*", "--repeat", "3", "--concurrent", "8"], [
        Figure("HTTP transport overhead per action, p50 (T1 tasks, paired with the local env)",
               number(r"HTTP overhead per action: p50 ([\d.]+) ms"), "<= 1 ms", at_most(1.0), "ms"),
    ]),
    Bench("large", ["bench_large.py", "--queries", "200", "--resets", "20"], [
        Figure("large-catalog-v1 reset p95", number(r"reset_p95_ms:\s+([\d.]+)"), "-", lambda v: True, "ms"),
        Figure("large-catalog-v1 filter p95 (warm, records)", number(r"filter_p95_ms:\s+([\d.]+)"), "<= 0.5 ms",
               at_most(0.5), "ms"),
    ]),
    Bench("trust", ["bench_trust.py", "--runs", "3", "--concurrency", "4"], [
        Figure("acworld eval in fresh processes: runs hung or failed",
               number(r"(\d+) hung \(> [\d.]+ s\), \d+ failed"), "0", at_most(0.0)),
        Figure("acworld eval: distinct root digests over the runs", number(r"root digests: (\d+) distinct"), "1",
               at_most(1.0)),
        Figure("acworld verify, per run (whole process)", number(r"([\d.]+) ms per run"), "-", lambda v: True, "ms"),
    ]),
]


def run(bench: Bench) -> tuple[str, int, float, float, float]:
    """Run one benchmark: (output, exit code, wall s, peak tree RSS MB, peak tree PSS MB)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(HERE / bench.args[0]), *bench.args[1:]], cwd=HERE.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak = {"rss": 0, "pss": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            mems = [_mem_kb(p) for p in _tree(proc.pid)]
            peak["rss"] = max(peak["rss"], sum(m[0] for m in mems))
            peak["pss"] = max(peak["pss"], sum(m[1] for m in mems))
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, _ = proc.communicate(timeout=bench.timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        out += f"\n[run_all: timed out after {bench.timeout:.0f} s]"
    done.set()
    sampler.join()
    return out, proc.returncode, time.perf_counter() - start, peak["rss"] / 1024, peak["pss"] / 1024


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks, print the table; 0 when every goal is met."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated benchmark names (" +
                    ", ".join(b.name for b in BENCHES) + ")")
    ap.add_argument("--markdown", type=Path, help="also write the table here as Markdown")
    ap.add_argument("--show-output", action="store_true", help="print each benchmark's own output too")
    args = ap.parse_args(argv)
    chosen = [b for b in BENCHES if not args.only or b.name in args.only.split(",")]
    load_before = os.getloadavg()[0]
    rows: list[tuple[str, str, str, str]] = []
    runs: list[tuple[str, str, int, float, float, float]] = []
    for bench in chosen:
        print(f"running {bench.name}: python benchmarks/{' '.join(bench.args)} ...", flush=True)
        out, code, wall, rss, pss = run(bench)
        if args.show_output:
            print(out)
        runs.append((bench.name, " ".join(bench.args), code, wall, rss, pss))
        for fig in bench.figures:
            value = fig.read(out)
            if value is None:
                rows.append((fig.label, "not printed" + (f" (exit {code})" if code else ""), fig.goal, "NOT MET"))
                continue
            verdict = "-" if fig.goal == "-" else ("met" if fig.met(value) else "NOT MET")
            rows.append((fig.label, f"{value:g} {fig.unit}".strip(), fig.goal, verdict))
    table = [f"Machine: {os.cpu_count()} CPUs, load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after.",
             "", "| figure | value | goal | |", "|---|---|---|---|"]
    table += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    table += ["", "| benchmark (command) | exit | wall | peak RSS, process tree | peak PSS, process tree |",
              "|---|---|---|---|---|"]
    table += [f"| {n} (`python benchmarks/{cmd}`) | {code} | {wall:.0f} s | {rss:.0f} MB | {pss:.0f} MB |"
              for n, cmd, code, wall, rss, pss in runs]
    text = "\n".join(table)
    print("\n" + text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    missed = [r for r in rows if r[3] == "NOT MET"]
    print(f"\n{len(rows) - len(missed)} of {len(rows)} figures met or informational; "
          f"{len(missed)} not met" + (" (median of each benchmark's own repeats)" if rows else ""))
    return 1 if missed or any(r[2] for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
