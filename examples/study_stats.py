"""The statistics of a reward study: curves, bands over seeds, seeded bootstrap differences between
reward modes, the steps to reach a level and their ratio (runs that never reach it counted at the
budget, censored), and the per mode x hints summary of a study's runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

MODES = ("potential", "terminal", "success")
HINTS = ("structured", "off")
LEVELS = (0.5, 0.8)
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}
"""Two-sided 95 % Student t quantiles by degrees of freedom (1.96 beyond)."""


def level_key(level: float) -> str:
    """``0.5`` -> ``steps_to_0_5`` (the record's field for the steps to reach ``level``)."""
    return "steps_to_" + str(level).replace(".", "_")


def steps_to_reach(curve: Sequence[Sequence[float]], level: float) -> int | None:
    """The first RL step at which the curve's score is at least ``level`` (None if it never is)."""
    for step, score in curve:
        if score >= level:
            return int(step)
    return None


def band(values: Sequence[float]) -> dict[str, float | int | None]:
    """Mean, spread (sample std, min, max) and the 95 % band (mean +- t * std / sqrt(n)) of ``values``."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return {"n": 0, "mean": None, "std": None, "min": None, "max": None, "lo95": None, "hi95": None}
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    half = T95.get(n - 1, 1.96) * sd / math.sqrt(n) if n > 1 else 0.0
    mean = float(x.mean())
    return {"n": n, "mean": round(mean, 4), "std": round(sd, 4), "min": round(float(x.min()), 4),
            "max": round(float(x.max()), 4), "lo95": round(mean - half, 4), "hi95": round(mean + half, 4)}


def bootstrap_difference(a: list[dict[str, float]], b: list[dict[str, float]], *, seed: int = 0,
                         replicates: int = 10_000) -> dict[str, Any]:
    """Mean over families of (mode a - mode b), with a seeded bootstrap 95 % CI.

    ``a`` and ``b`` hold one per-family table per run (seed). Each replicate resamples the seeds of
    each mode with replacement and the families with replacement (the same families for both modes:
    they are paired), and takes the difference of the two modes' means over the resampled families.
    """
    families = sorted(set().union(*a, *b)) if a and b else []
    if not families:
        return {"mean": None, "lo95": None, "hi95": None, "replicates": 0}
    ma = np.array([[run.get(f, 0.0) for f in families] for run in a])
    mb = np.array([[run.get(f, 0.0) for f in families] for run in b])
    rng = np.random.default_rng(seed)
    ra = rng.integers(0, len(ma), size=(replicates, len(ma)))
    rb = rng.integers(0, len(mb), size=(replicates, len(mb)))
    rf = rng.integers(0, len(families), size=(replicates, len(families)))
    fam_a = ma[ra].mean(axis=1)  # replicates x families: resampled seeds' mean per family
    fam_b = mb[rb].mean(axis=1)
    diffs = np.take_along_axis(fam_a - fam_b, rf, axis=1).mean(axis=1)
    point = float((ma.mean(axis=0) - mb.mean(axis=0)).mean())
    lo, hi = np.quantile(diffs, [0.025, 0.975])
    return {"mean": round(point, 4), "lo95": round(float(lo), 4), "hi95": round(float(hi), 4),
            "replicates": replicates, "excludes_zero": bool(lo > 0 or hi < 0)}


def curve_band(curves: list[list[list[float]]]) -> dict[str, list[float]]:
    """The curves of several seeds on their common steps: mean and 95 % band at each step."""
    common = sorted(set.intersection(*(set(int(s) for s, _ in c) for c in curves))) if curves else []
    steps, mean, lo, hi = [], [], [], []
    for step in common:
        values = [next(v for s, v in c if int(s) == step) for c in curves]
        b = band(values)
        steps.append(step)
        mean.append(b["mean"])
        lo.append(b["lo95"])
        hi.append(b["hi95"])
    return {"steps": steps, "mean": mean, "lo95": lo, "hi95": hi}


def summarise(runs: list[dict[str, Any]], *, modes: Sequence[str], hints: Sequence[str],
              bootstrap_seed: int = 0) -> dict[str, Any]:
    """Per hints x mode: bands of the frozen and held-out means, steps to the levels, per-family means,
    the mean curve; per hints: the differences between modes with bootstrap CIs."""
    by_mode: dict[str, dict[str, Any]] = {}
    differences: dict[str, dict[str, Any]] = {}
    ratios: dict[str, dict[str, Any]] = {}
    for h in hints:
        by_mode[h] = {}
        for m in modes:
            group = [r for r in runs if r["hints"] == h and r["reward"] == m]
            if not group:
                continue
            entry: dict[str, Any] = {"seeds": [r["seed"] for r in group]}
            for split in ("frozen", "heldout"):
                vals = [r[f"{split}_mean"] for r in group if r[f"{split}_mean"] is not None]
                entry[split] = band(vals)
                fams = sorted(set().union(*(r[split] for r in group)))
                entry[f"{split}_by_family"] = {f: round(float(np.mean([r[split].get(f, 0.0) for r in group])), 4)
                                               for f in fams}
            for level in LEVELS:
                reached = [r[level_key(level)] for r in group]
                entry[level_key(level)] = {
                    "runs": reached, "reached": sum(s is not None for s in reached),
                    "median_of_reached": (int(np.median([s for s in reached if s is not None]))
                                          if any(s is not None for s in reached) else None)}
            entry["rl_gain"] = band([r["heldout_mean"] - r["curve"][0][1] for r in group])  # end - step 0
            entry["curve"] = curve_band([r["curve"] for r in group])
            by_mode[h][m] = entry
        differences[h] = {}
        base = [r for r in runs if r["hints"] == h and r["reward"] == "potential"]
        for other in modes:
            if other == "potential":
                continue
            rival = [r for r in runs if r["hints"] == h and r["reward"] == other]
            if not base or not rival:
                continue
            differences[h][f"potential - {other}"] = {
                split: bootstrap_difference([r[split] for r in base], [r[split] for r in rival], seed=bootstrap_seed)
                for split in ("frozen", "heldout") if all(r[split] for r in base + rival)}
            for level in LEVELS:
                budget = max(int(r["curve"][-1][0]) for r in base + rival)
                ratios.setdefault(h, {})[f"{other} / potential, {level_key(level)}"] = bootstrap_ratio(
                    [r[level_key(level)] for r in rival], [r[level_key(level)] for r in base], budget=budget,
                    seed=bootstrap_seed)
    return {"by_mode": by_mode, "differences": differences, "step_ratios": ratios}


def bootstrap_ratio(a: list[int | None], b: list[int | None], *, budget: int, seed: int = 0,
                    replicates: int = 10_000) -> dict[str, Any]:
    """Mean steps of ``a`` over mean steps of ``b`` to reach a level, with a seeded bootstrap 95 % CI.

    A run that never reached the level counts as ``budget`` steps (censored: the true figure is larger),
    so the ratio is a lower bound when ``a`` has censored runs and an upper bound when ``b`` has. Each
    replicate resamples the runs of each side with replacement. ``None`` when ``b`` never reached it.
    """
    xa = np.array([budget if s is None else s for s in a], dtype=float)
    xb = np.array([budget if s is None else s for s in b], dtype=float)
    out: dict[str, Any] = {"censored_num": sum(s is None for s in a), "censored_den": sum(s is None for s in b),
                           "runs": [len(a), len(b)], "budget": budget}
    if not len(xa) or not len(xb) or all(s is None for s in b) or xb.mean() <= 0:
        return {**out, "ratio": None, "lo95": None, "hi95": None}
    rng = np.random.default_rng(seed)
    ra = xa[rng.integers(0, len(xa), size=(replicates, len(xa)))].mean(axis=1)
    rb = xb[rng.integers(0, len(xb), size=(replicates, len(xb)))].mean(axis=1)
    ok = rb > 0
    lo, hi = np.quantile(ra[ok] / rb[ok], [0.025, 0.975])
    return {**out, "ratio": round(float(xa.mean() / xb.mean()), 3), "lo95": round(float(lo), 3),
            "hi95": round(float(hi), 3), "replicates": int(ok.sum())}
