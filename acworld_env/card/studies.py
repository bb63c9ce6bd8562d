"""The learnability curves, read (not measured) from the recorded studies in ``baselines/``.

* ``reward_study.json``, ``reward_study_scratch.json`` and ``reward_study_scratch_long.json``
  (``examples/reward_study.py``; after cloning, from scratch, from scratch for twice the steps): held-out
  score of a slot-scoring learner against RL env steps, per reward mode and hints setting; the mean
  over seeds and its 95 % band as recorded, and each seed's own curve (for the spread);
* ``selfplay_study.json`` (``examples/selfplay_study.py``): each side's held-out score against the
  scripted counterparty and against the other learner, per checkpoint, mean over seeds; "not
  recorded" while the file is absent.
"""

from __future__ import annotations

import json
from statistics import mean
from typing import Any

from .measure import ROOT

REWARD_STUDIES = ("baselines/reward_study.json", "baselines/reward_study_scratch.json",
                  "baselines/reward_study_scratch_long.json")
SELFPLAY_STUDY = "baselines/selfplay_study.json"


def _read(rel: str) -> dict[str, Any] | None:
    path = ROOT / rel
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def reward_study(rel: str) -> dict[str, Any]:
    """One reward study's curves: per (hints, mode) the recorded mean and band at every curve point, and
    each seed's own points."""
    record = _read(rel)
    if record is None:
        return {"file": rel, "recorded": False}
    cfg = record.get("config", {})
    curves = []
    for hints, modes in record["by_mode"].items():
        for mode, entry in modes.items():
            curve = entry["curve"]
            per_seed = {r["seed"]: [p[1] for p in r["curve"]] for r in record["runs"]
                        if r["reward"] == mode and r["hints"] == hints}
            curves.append({"hints": hints, "mode": mode, "seeds": entry["seeds"], "steps": curve["steps"],
                           "mean": curve["mean"], "lo95": curve["lo95"], "hi95": curve["hi95"],
                           "per_seed": {str(s): v for s, v in sorted(per_seed.items())},
                           "heldout_final": entry["heldout"]["mean"], "frozen_final": entry["frozen"]["mean"],
                           "rl_gain": entry.get("rl_gain", {}).get("mean")})
    return {"file": rel, "recorded": True, "study": record.get("study", ""), "command": record.get("command", ""),
            "behaviour_cloning": cfg.get("bc"), "steps": cfg.get("steps"), "seeds": cfg.get("seeds"),
            "heldout_seed": cfg.get("heldout_seed"), "notes": record.get("notes", {}).get("curve", ""),
            "band": record.get("notes", {}).get("band", ""), "wall_s": record.get("wall_s"), "curves": curves,
            "complete": record.get("complete", True), "missing_runs": record.get("missing_runs", []),
            "runs": len(record.get("runs", []))}


def selfplay_study(rel: str = SELFPLAY_STUDY) -> dict[str, Any]:
    """The self-play study's curves (each side vs the scripted counterparty and vs each other), mean over
    seeds per checkpoint and init; ``recorded: False`` while the file is absent."""
    record = _read(rel)
    if record is None:
        return {"file": rel, "recorded": False}
    try:
        curves = []
        for init in record["config"]["inits"]:
            runs = [r for r in record["runs"] if r["init"] == init]
            points = runs[0]["curve"]
            row: dict[str, Any] = {"init": init, "seeds": sorted(r["seed"] for r in runs),
                                   "steps_per_side": [p["steps_per_side"] for p in points]}
            for role in ("buyer", "merchant"):
                for where, key in ((f"{role}_vs_scripted", "vs_scripted"), ("vs_each_other", "vs_each_other")):
                    series = []
                    for i in range(len(points)):
                        vals = [_side(r["curve"][i], where, role) for r in runs if i < len(r["curve"])]
                        vals = [v for v in vals if v is not None]
                        series.append(round(mean(vals), 4) if vals else None)
                    row[f"{role}_{key}"] = series
            curves.append(row)
    except (KeyError, IndexError, TypeError) as exc:
        return {"file": rel, "recorded": True, "readable": False, "reason": f"unexpected layout ({exc!r})",
                "command": record.get("command", "")}
    return {"file": rel, "recorded": True, "readable": True, "study": record.get("study", ""),
            "command": record.get("command", ""), "wall_s": record.get("wall_s"), "curves": curves}


def _side(point: dict[str, Any], where: str, role: str) -> float | None:
    entry = point.get(where) or {}
    if where == "vs_each_other":
        entry = entry.get(role) or {}
    return entry.get("score")


def learnability() -> dict[str, Any]:
    """Every recorded study's curves."""
    return {"reward_studies": [reward_study(rel) for rel in REWARD_STUDIES], "selfplay": selfplay_study()}
