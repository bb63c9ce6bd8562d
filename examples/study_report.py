"""The report of a reward study: the README's markdown tables, the console summary and the figure of
the learning curves with their 95 % bands (from a study's record; nothing here trains)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from study_stats import HINTS, LEVELS, level_key, steps_to_reach


def plot(summary: dict[str, Any], path: Path, *, title: str, bc: bool = True) -> None:
    """Learning curves with 95 % bands per mode, one panel per hints setting (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [h for h in HINTS if summary["by_mode"].get(h)]
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.4), squeeze=False, sharey=True)
    colours = {"potential": "tab:blue", "terminal": "tab:orange", "success": "tab:green"}
    for ax, h in zip(axes[0], panels, strict=True):
        for mode, entry in summary["by_mode"][h].items():
            c = entry["curve"]
            n = len(entry["seeds"])
            ax.plot(c["steps"], c["mean"], "o-", markersize=3, color=colours.get(mode), label=f"{mode} (n={n})")
            ax.fill_between(c["steps"], np.clip(c["lo95"], 0, 1), np.clip(c["hi95"], 0, 1), color=colours.get(mode),
                            alpha=0.2, linewidth=0)
        ax.set(title=f'hints="{h}"', ylim=(0, 1),
               xlabel="RL env steps" + (" (0 = after behaviour cloning)" if bc else " (from scratch)"))
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
    axes[0][0].set_ylabel("held-out generated score")
    fig.suptitle(title, fontsize=9, wrap=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def print_table(record: dict[str, Any]) -> None:
    """The study's means and differences, one line each, on stdout."""
    for h, modes in record["by_mode"].items():
        for m, e in modes.items():
            print(f"{h:>10} {m:>9}: frozen {e['frozen']['mean']} held-out {e['heldout']['mean']} "
                  f"(min {e['heldout']['min']}, max {e['heldout']['max']})")
        for name, d in record["differences"].get(h, {}).items():
            for split, ci in d.items():
                print(f"{h:>10} {name}: {split} {ci['mean']:+.3f} [{ci['lo95']:+.3f}, {ci['hi95']:+.3f}]")


def fixed(x: float | None, digits: int = 3) -> str:
    """``x`` to ``digits`` decimals, or "-" where it was not measured."""
    return "-" if x is None else f"{x:.{digits}f}"


def figure_title(record: dict[str, Any]) -> str:
    """The figure's title from a study record's settings."""
    c = record["config"]
    start = "after behaviour cloning" if c["bc"] else "from scratch"
    return (f"Held-out score by reward mode: {c['steps']} RL steps per run {start}, {len(c['seeds'])} seed(s) "
            "per mode, mean and 95 % band over seeds")


def _gain(entry: dict[str, Any]) -> str:
    g = entry.get("rl_gain")
    return "-" if not g or g["mean"] is None else f"{g['mean']:+.3f} [{g['lo95']:+.3f}, {g['hi95']:+.3f}]"


def markdown_tables(record: dict[str, Any]) -> str:
    """The README's tables from a study record: mode x hints, the differences, and per family."""
    levels = " | ".join(f"steps to {level}" for level in LEVELS)
    lines = ["| hints | reward | frozen mean | held-out mean | held-out spread (std; min-max) | 95 % band | "
             f"RL gain (held-out, end - step 0) | {levels} |", "|---|---|---|---|---|---|---|" + "---|" * len(LEVELS)]
    for h, modes in record["by_mode"].items():
        for m, e in modes.items():
            fz, ho = e["frozen"], e["heldout"]
            reach = []
            for level in LEVELS:
                r = e[level_key(level)]
                reach.append(f"{r['median_of_reached'] if r['median_of_reached'] is not None else 'never'} "
                             f"({r['reached']}/{len(r['runs'])})")
            lines.append(f"| {h} | {m} | {fixed(fz['mean'])} | {fixed(ho['mean'])} | {fixed(ho['std'])}; "
                         f"{fixed(ho['min'])}-{fixed(ho['max'])} | {fixed(ho['lo95'])}-{fixed(ho['hi95'])} | "
                         f"{_gain(e)} | " + " | ".join(reach) + " |")
    lines += ["", "| hints | difference | frozen: mean [95 % CI] | held-out: mean [95 % CI] |", "|---|---|---|---|"]
    for h, diffs in record["differences"].items():
        for name, d in diffs.items():
            cells = [f"{d[s]['mean']:+.3f} [{d[s]['lo95']:+.3f}, {d[s]['hi95']:+.3f}]" if s in d else "-"
                     for s in ("frozen", "heldout")]
            lines.append(f"| {h} | {name} | {cells[0]} | {cells[1]} |")
    lines += ["", "| hints | steps ratio | ratio of mean steps [95 % CI]; >= a lower bound (runs that never got "
              "there count at the budget) | runs never reaching it (num, den) |",
              "|---|---|---|---|"]
    for h, ratios in record.get("step_ratios", {}).items():
        for name, r in ratios.items():
            if r["ratio"] is not None:  # runs censored at the budget make the ratio a bound, not a figure
                bound = {(True, False): ">= ", (False, True): "<= ", (True, True): "~ "}.get(
                    (r["censored_num"] > 0, r["censored_den"] > 0), "")
                cell = f"{bound}{r['ratio']:.2f} [{r['lo95']:.2f}, {r['hi95']:.2f}]"
            elif r["censored_den"] == r["runs"][1]:
                cell = "undefined: no potential run reached it within the budget"
            else:
                cell = "undefined: the potential runs were there at step 0"
            lines.append(f"| {h} | {name} | {cell} | {r['censored_num']}/{r['runs'][0]}, "
                         f"{r['censored_den']}/{r['runs'][1]} |")
    cols = [(h, m) for h, modes in record["by_mode"].items() for m in modes]
    families = sorted({f for h, m in cols for f in record["by_mode"][h][m]["heldout_by_family"]},
                      key=lambda f: int(f.split("_")[0][1:]))
    lines += ["", "| family | " + " | ".join(f"{h} {m}" for h, m in cols) + " |", "|---|" + "---|" * len(cols)]
    for f in families:
        cells = [fixed(record["by_mode"][h][m]["heldout_by_family"].get(f)) for h, m in cols]
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    return "\n".join([*lines, "", seed_table(record)])


SEED_LEVELS = (0.5, 0.6)
"""The levels the per-run table gives the steps to (0.6 is issue 41's from-scratch target)."""


def seed_table(record: dict[str, Any]) -> str:
    """One row per recorded run: held-out at half the budget and at the end, frozen at the end, and the
    steps each run took to reach each of ``SEED_LEVELS`` on its held-out curve ("never" within the budget)."""
    steps = int(record["config"]["steps"])
    half = steps // 2
    reach = " | ".join(f"steps to {level}" for level in SEED_LEVELS)
    lines = [f"| hints | reward | seed | held-out at {half:,} | held-out at {steps:,} | frozen at {steps:,} | {reach} |",
             "|---|---|---|---|---|---|" + "---|" * len(SEED_LEVELS)]
    for r in sorted(record["runs"], key=lambda r: (HINTS.index(r["hints"]), r["reward"], r["seed"])):
        mid = [score for step, score in r["curve"] if step <= half]
        cells = [f"{s:,}" if (s := steps_to_reach(r["curve"], level)) is not None else "never" for level in SEED_LEVELS]
        lines.append(f"| {r['hints']} | {r['reward']} | {r['seed']} | {fixed(mid[-1] if mid else None)} | "
                     f"{fixed(r['heldout_mean'])} | {fixed(r['frozen_mean'])} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
