"""Start-up time: how long a fresh Python process takes to make the env, and the command line to print its help.

Workload, each in a **fresh process** (``subprocess``; warm: one untimed run first for the file
cache, and the package byte-compiled first, as Python's first import does unless
``PYTHONDONTWRITEBYTECODE`` is set, which would otherwise recompile every edited module on every run):

* ``python -c "import acworld_env; acworld_env.make('capability-v1')"``: import the package and
  build the capability env (its 200 frozen tasks loaded and validated, no episode started);
* ``acworld --help`` (``python -m acworld_env.cli --help``, the console script's code);
* ``python -c "pass"``: the interpreter alone, the floor both are compared against;
* two more floors, what the env cannot avoid importing: ``import pettingzoo`` (the AEC env's base
  class; it imports Gymnasium and numpy) and the same plus pydantic's first model class (the
  task and action models are pydantic models; the first class imports pydantic's model machinery
  and scans installed packages for pydantic plugins); and, for the help, a two-command Typer app
  printing its ``--help`` (Typer's rich help imports ``rich.markdown``, ``markdown_it`` and more).

Each is run ``--repeat`` times, interleaved (one run of each command per round), so a busy machine
slows them alike; the median wall time is printed with min and max, and the child's CPU time
(user + system) beside it. A last line splits the env figure inside one fresh process: seconds
importing the package and the env module, then seconds in ``make()`` itself (reading and
validating the frozen tasks). Goals (issue 19): under 0.3 s each. ``python -X importtime`` on the
same command shows where the time goes.

    python benchmarks/bench_startup.py [--repeat 5]
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
TYPER_HELP = ("import sys, typer\napp = typer.Typer(add_completion=False)\napp.command('a')(lambda: None)\n"
              "app.command('b')(lambda: None)\nsys.argv = ['x', '--help']\napp()")
COMMANDS = {
    "interpreter alone (python -c pass)": [sys.executable, "-c", "pass"],
    "floor: import pettingzoo (gymnasium, numpy)": [sys.executable, "-c", "import pettingzoo"],
    "floor: pettingzoo + pydantic's first model": [sys.executable, "-c", f"import pettingzoo\n{FIRST_MODEL}"],
    "import acworld_env; make('capability-v1')": [sys.executable, "-c", MAKE],
    "floor: a two-command Typer app's --help": [sys.executable, "-c", TYPER_HELP],
    "acworld --help": [sys.executable, "-m", "acworld_env.cli", "--help"],
}
GOALS = ("import acworld_env; make('capability-v1')", "acworld --help")
SPLIT = ("import json, time\nt0 = time.perf_counter()\nimport acworld_env, acworld_env.envs.capability_v1\n"
         "t1 = time.perf_counter()\nacworld_env.make('capability-v1')\nt2 = time.perf_counter()\n"
         "print(json.dumps([t1 - t0, t2 - t1]))")


def run_once(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one fresh run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run and print; returns the median wall seconds per command label."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per command; the median is kept")
    args = parser.parse_args(argv)
    print(f"workload: each command in a fresh process, {args.repeat} interleaved rounds after a warm-up run; "
          "median wall (min-max), median CPU")
    package = importlib.util.find_spec("acworld_env").submodule_search_locations[0]  # type: ignore[index,union-attr]
    compileall.compile_dir(package, quiet=1)
    for cmd in COMMANDS.values():
        run_once(cmd)
    runs: dict[str, list[tuple[float, float]]] = {label: [] for label in COMMANDS}
    for _ in range(args.repeat):
        for label, cmd in COMMANDS.items():
            runs[label].append(run_once(cmd))
    medians: dict[str, float] = {}
    for label, samples in runs.items():
        walls = [w for w, _ in samples]
        medians[label] = statistics.median(walls)
        cpu = statistics.median(c for _, c in samples)
        goal = f"  (goal < {GOAL_S} s: {'met' if medians[label] < GOAL_S else 'NOT MET'})" if label in GOALS else ""
        print(f"{label:45s} {medians[label]:.3f} s  ({min(walls):.3f}-{max(walls):.3f})  cpu {cpu:.3f} s{goal}")
    splits = [json.loads(subprocess.run([sys.executable, "-c", SPLIT], check=True, capture_output=True,
                                        text=True).stdout) for _ in range(args.repeat)]
    print(f"{'  of which, in-process: imports':45s} {statistics.median(s[0] for s in splits):.3f} s; "
          f"make() {statistics.median(s[1] for s in splits):.3f} s (200 frozen tasks read and validated)")
    return medians


if __name__ == "__main__":
    main()
