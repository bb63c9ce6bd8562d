"""Start-up time: how long a fresh Python process takes to make the env, and the command line to print its help.

Workload, each in a **fresh process** (``subprocess``; warm: one untimed run first for the file
cache, and the package byte-compiled first, as Python's first import does unless
``PYTHONDONTWRITEBYTECODE`` is set, which would otherwise recompile every edited module on every run):

* ``python -c "import acworld_env; acworld_env.make('capability-v1')"``: import the package and
  build the capability env (its 200 frozen tasks indexed by id and cast; each is validated when
  first played, and the market, scoring and action models are imported at the first reset);
* ``acworld --help`` (``python -m acworld_env.cli --help``, the console script's code);
* ``python -c "pass"``: the interpreter alone, the floor both are compared against;
* two more floors: ``import pettingzoo`` (the AEC env's base class; it imports Gymnasium and
  numpy), and **the floor** the issue names, PettingZoo + pydantic + numpy imported alone, with
  pydantic's first model class (the task and action models are pydantic models; the first class
  imports pydantic's model machinery and scans installed packages for pydantic plugins; making
  the env now needs no pydantic at all, so it may come in under this floor); and, for the help,
  a two-command Typer app printing its ``--help`` (Typer's rich help imports ``rich.markdown``,
  ``markdown_it`` and more).

Each is run ``--repeat`` times, interleaved (one run of each command per round), so a busy machine
slows them alike; the best (lowest) wall time is the figure, printed with the median and the
maximum, and the child's CPU time (user + system, best) beside it. Two summary lines follow: the
env figure against the floor (both best of ``--repeat``), and the env figure split inside one
fresh process (medians): seconds importing the package and the env module, seconds in ``make()``
itself (indexing the frozen file), then seconds in the first ``reset()`` (importing what playing
needs and validating one task), which a start-up figure does not include. Goals (issues 19 and
32): under 0.3 s each. ``python -X importtime`` on the same command shows where the time goes.

    python benchmarks/bench_startup.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import resource
import statistics
import subprocess
import sys
import time

GOAL_S = 0.3
MAKE = "import acworld_env; acworld_env.make('capability-v1')"
FIRST_MODEL = "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 0"
FLOOR = "floor: pettingzoo + pydantic + numpy alone"
TYPER_HELP = ("import sys, typer\napp = typer.Typer(add_completion=False)\napp.command('a')(lambda: None)\n"
              "app.command('b')(lambda: None)\nsys.argv = ['x', '--help']\napp()")
COMMANDS = {
    "interpreter alone (python -c pass)": [sys.executable, "-c", "pass"],
    "floor: import pettingzoo (gymnasium, numpy)": [sys.executable, "-c", "import pettingzoo"],
    FLOOR: [sys.executable, "-c", f"import pettingzoo, pydantic, numpy\n{FIRST_MODEL}"],
    "import acworld_env; make('capability-v1')": [sys.executable, "-c", MAKE],
    "floor: a two-command Typer app's --help": [sys.executable, "-c", TYPER_HELP],
    "acworld --help": [sys.executable, "-m", "acworld_env.cli", "--help"],
}
GOALS = ("import acworld_env; make('capability-v1')", "acworld --help")
SPLIT = ("import json, time\nt0 = time.perf_counter()\nimport acworld_env, acworld_env.envs.capability_v1\n"
         "t1 = time.perf_counter()\nenv = acworld_env.make('capability-v1')\nt2 = time.perf_counter()\n"
         "env.reset(seed=0)\nt3 = time.perf_counter()\nprint(json.dumps([t1 - t0, t2 - t1, t3 - t2]))")


def run_once(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one fresh run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run and print; returns the best wall seconds per command label."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per command; the best is kept")
    args = parser.parse_args(argv)
    print(f"workload: each command in a fresh process, {args.repeat} interleaved rounds after a warm-up run; "
          "best wall (median, max), best CPU")
    package = importlib.util.find_spec("acworld_env").submodule_search_locations[0]  # type: ignore[index,union-attr]
    compileall.compile_dir(package, quiet=1)
    for cmd in COMMANDS.values():
        run_once(cmd)
    runs: dict[str, list[tuple[float, float]]] = {label: [] for label in COMMANDS}
    for _ in range(args.repeat):
        for label, cmd in COMMANDS.items():
            runs[label].append(run_once(cmd))
    best: dict[str, float] = {}
    for label, samples in runs.items():
        walls = [w for w, _ in samples]
        best[label] = min(walls)
        cpu = min(c for _, c in samples)
        goal = f"  (goal < {GOAL_S} s: {'met' if best[label] < GOAL_S else 'NOT MET'})" if label in GOALS else ""
        print(f"{label:45s} {best[label]:.3f} s  (median {statistics.median(walls):.3f}, max {max(walls):.3f})  "
              f"cpu {cpu:.3f} s{goal}")
    ours = best[GOALS[0]]
    print(f"make('capability-v1') best of {args.repeat}: {ours:.3f} s; the floor (PettingZoo + pydantic + numpy "
          f"alone) {best[FLOOR]:.3f} s: {abs(ours - best[FLOOR]):.3f} s {'over' if ours > best[FLOOR] else 'under'} it")
    splits = [json.loads(subprocess.run([sys.executable, "-c", SPLIT], check=True, capture_output=True,
                                        text=True).stdout) for _ in range(args.repeat)]
    print(f"{'  of which, in-process: imports':45s} {statistics.median(s[0] for s in splits):.3f} s; "
          f"make() {statistics.median(s[1] for s in splits):.3f} s (200 frozen tasks indexed, none validated); "
          f"then the first reset() {statistics.median(s[2] for s in splits):.3f} s (not part of start-up)")
    return best


if __name__ == "__main__":
    main()
