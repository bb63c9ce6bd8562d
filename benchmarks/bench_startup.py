"""Start-up time: how long a fresh Python process takes to make the env, and the command line to print its help.

Workload, each in a **fresh process** (``subprocess``, warm file cache: one untimed run first):

* ``python -c "import acworld_env; acworld_env.make('capability-v1')"``: import the package and
  build the capability env (its 200 frozen tasks loaded, no episode started);
* ``acworld --help`` (``python -m acworld_env.cli --help``, the console script's code);
* ``python -c "pass"``: the interpreter alone, the floor both are compared against.

Each is run ``--repeat`` times; the median wall time is printed with min and max. Goals (issue 19):
under 0.3 s each. ``python -X importtime`` on the same command shows where the time goes.

    python benchmarks/bench_startup.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

GOAL_S = 0.3
COMMANDS = {
    "interpreter alone (python -c pass)": [sys.executable, "-c", "pass"],
    "import acworld_env; make('capability-v1')": [
        sys.executable, "-c", "import acworld_env; acworld_env.make('capability-v1')"],
    "acworld --help": [sys.executable, "-m", "acworld_env.cli", "--help"],
}


def time_command(cmd: list[str], repeat: int) -> list[float]:
    """Wall seconds of ``repeat`` fresh runs of ``cmd`` (after one untimed warm-up run)."""
    subprocess.run(cmd, check=True, capture_output=True)
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        out.append(time.perf_counter() - start)
    return out


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run and print; returns the median seconds per command label."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per command; the median is kept")
    args = parser.parse_args(argv)
    print(f"workload: each command in a fresh process, {args.repeat} runs after a warm-up run; median (min-max)")
    medians: dict[str, float] = {}
    for label, cmd in COMMANDS.items():
        times = time_command(cmd, args.repeat)
        medians[label] = statistics.median(times)
        goal = "" if "alone" in label else f"  (goal < {GOAL_S} s)"
        print(f"{label:45s} {medians[label]:.3f} s  ({min(times):.3f}-{max(times):.3f}){goal}")
    return medians


if __name__ == "__main__":
    main()
