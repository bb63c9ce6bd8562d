"""Do verified process rewards teach? The reward study (issue 41; first recorded for issue 33).

    python examples/reward_study.py --steps 16384 --seeds 0 1 2 --curve-points 4      # after cloning, both hints
    python examples/reward_study.py --no-bc --hints structured --steps 40960 --seeds 0 1 2 --curve-points 5 \
        --workers 1 --no-keep --out baselines/reward_study_scratch.json                   # from scratch
    python examples/reward_study.py --quick         # T10, one seed per mode, from scratch (under a minute)
    python examples/reward_study.py --tables baselines/reward_study.json   # README tables, figure again

Trains the same learner (``examples/slot_learner.py`` by default: a shared scorer over the menu's
open slots reading each slot's features, cloned from verified reference episodes on generated tasks
or started from scratch, then PPO) under each reward mode of the env:

- ``potential``: each step pays the change of the weighted predicate score (a process reward: every
  predicate's credit as it is earned; an episode's rewards sum to its score);
- ``terminal``: the graded score once, at the end (outcome reward with partial credit);
- ``success``: 1 at the end iff the task is fully solved, else 0 (the outcome-only signal).

Every mode gets the same seeds, the same step budget and the same training tasks (generated seeds
``--train-seeds``, disjoint from the held-out seed), with ``hints="structured"`` and with hints off.
Each run records its learning curve (held-out generated score against RL env steps, from the
learner's callback; step 0 is the policy after cloning, or the untrained one; the last point is the
model returned) and is evaluated greedily on the 200 frozen tasks and on the held-out generated split.

**Resumable.** Each finished run writes its record (and its policy) to the run folder (``--resume``,
default ``.study/<out name>``) under a key of its settings and the learner's bytes; started again, the
study reuses every recorded run whose key matches and trains only the rest, so a study may span
several sittings. The key also holds a digest of the env's sources (:func:`env_digest`), so a run
recorded under another version of the env is trained again; each record names the commit it was
trained at, and a study that finds records it cannot reuse says which ``--at REV`` resumes them.
``--at REV`` runs the whole study from a worktree of that commit (``examples/study_versions.py``),
so a long study keeps its version across sittings while the checkout moves on. A run folder inside
the repository (``--resume baselines/studies/NAME``) carries a long study across machines: its records and sittings are
small JSON files to commit (the weights beside them are ignored by git; under ``--no-keep`` a record is
reused without them). ``--recorded-only`` writes the JSON from the runs recorded so far, marked
``complete: false`` with the missing runs named. ``wall_s`` is the sum over sittings (``sittings_wall_s``).

The study writes:

- the JSON (``baselines/reward_study.json`` by default): one record per run (reward, seed, hints,
  policy, frozen_mean, heldout_mean, per-family means, curve, ``steps_to_0_5``, ``steps_to_0_8``);
  per mode x hints the mean, spread (std, min, max), 95 % band (Student t over seeds) and RL gain
  (end - step 0); the differences potential - terminal and potential - success with a seeded
  bootstrap 95 % CI (seeds resampled within each mode, families resampled paired across modes); the
  ratios of mean steps to reach 0.5 and 0.8 (terminal / potential, success / potential) with a
  seeded bootstrap CI, runs that never reach a level counted at the budget (censored, counted); for
  the best run per hints setting, the families that stay low with the measured reasons
  (:func:`low_families`) and the check of its policy through ``acworld eval`` and ``acworld verify``
  on a new generated seed; the command and the learner's version;
- the figure beside it (``.png``): the learning curves with 95 % bands, one panel per hints setting;
- ``baselines/policies/``: the best policy per hints setting (by held-out score), with its sidecar.

``--quick`` trains without cloning, so that the rise of the held-out score is the RL reward's doing.
The learner is any script with this API (``--learner``): ``demonstrations(*, hints, featuriser,
families, seeds)``, ``train(*, reward, seed, hints, featuriser, steps, families, train_seeds, bc,
callback, callback_every)`` (``callback(step, model)`` at step 0 and every ``callback_every`` env
steps), ``save(model, path, *, hints, featuriser)``, ``evaluate(model, *, split, seed, hints,
featuriser, families)`` (family means and ``"all"``), and optionally ``warm_actor`` and ``diagnose``
(``examples/menu_learner.py``, the MaskablePPO learner of issue 33, is one). Every run loads one
snapshot of it, taken when the study starts. Runs go to ``--workers`` processes (torch threads 1 in each).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(Path(__file__).resolve().parent) not in sys.path:  # the worker processes import this script by name
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import study_versions as sv  # noqa: E402
from study_report import figure_title, markdown_tables, plot, print_table  # noqa: E402
from study_stats import (  # noqa: E402,F401  (re-exported: the tests and the self-play study read them here)
    HINTS,
    LEVELS,
    MODES,
    band,
    bootstrap_difference,
    bootstrap_ratio,
    curve_band,
    level_key,
    steps_to_reach,
    summarise,
)
from study_versions import env_digest, learner_version  # noqa: E402,F401  (the study's version, re-exported)

HOME = sv.home(ROOT)
"""The checkout the outputs go to (the user's, also when ``--at`` runs the study from a pinned worktree)."""
QUICK_FAMILY = "T10_timing"
DEFAULT_TRAIN_SEEDS = list(range(2, 12))
NEEDS = "torch and matplotlib (pip install 'acworld-env[rl]')"


class StudyError(Exception):
    """A study that cannot run as asked (a clear one-line message, never a traceback)."""


LEARNER = ROOT / "examples" / "slot_learner.py"
RESUME_ROOT = HOME / ".study"
"""Where resumable run folders go by default (ignored by git)."""


def load_learner(path: str | Path = LEARNER) -> ModuleType:
    """The learner script (``examples/menu_learner.py`` by default) as a module (examples are not a package)."""
    path = Path(path)
    if not path.is_file():
        raise StudyError(f"the learner {path} is missing")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(path.stem, module)
    spec.loader.exec_module(module)
    return module


def missing_libraries() -> list[str]:
    """The training libraries that do not import here."""
    return [m for m in ("torch", "matplotlib") if importlib.util.find_spec(m) is None]


@dataclass(frozen=True)
class RunSpec:
    """One training run of the study: a reward mode, a seed and a hints setting, and the shared budget."""

    reward: str
    seed: int
    hints: str
    steps: int
    train_seeds: tuple[int, ...]
    heldout_seed: int
    families: tuple[str, ...] | None
    featuriser: str | None
    curve_every: int
    bc: bool
    scratch: str
    torch_threads: int = 1
    frozen: bool = True
    learner: str = str(LEARNER)

    @property
    def name(self) -> str:
        """The run's file stem: ``<hints>-<reward>-s<seed>``."""
        return f"{self.hints}-{self.reward}-s{self.seed}"

    def key(self, learner_sha256: str) -> str:
        """What the run's result depends on (its settings and the learner's bytes), as a short digest: a
        resumed study reuses a recorded run only under the same key."""
        fields = {k: v for k, v in dataclasses.asdict(self).items() if k not in ("scratch", "learner", "torch_threads")}
        text = json.dumps([fields, learner_sha256], sort_keys=True, default=list)
        return f"{self.name}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"




def _family_list(families: tuple[str, ...] | None) -> list[str] | None:
    return list(families) if families is not None else None


def _torch_threads(n: int) -> None:
    try:
        import torch

        torch.set_num_threads(n)
    except ImportError:  # a learner without torch (the tests' stand-in)
        pass


def run_one(spec: RunSpec) -> dict[str, Any]:
    """Train one run, follow its held-out curve, evaluate it, save it; the run's record (no policy kept yet)."""
    _torch_threads(spec.torch_threads)
    learner = load_learner(spec.learner)
    common = {"hints": spec.hints, "featuriser": spec.featuriser, "families": _family_list(spec.families)}
    curve: list[list[float]] = []
    curve_families: list[dict[str, float]] = []

    def follow(step: int, model: Any) -> None:
        figures = learner.evaluate(model, split="generated", seed=spec.heldout_seed, **common)
        curve.append([int(step), round(float(figures["all"]), 4)])
        curve_families.append({k: round(float(v), 4) for k, v in figures.items() if k != "all"})

    started = time.perf_counter()
    model = learner.train(reward=spec.reward, seed=spec.seed, steps=spec.steps, train_seeds=list(spec.train_seeds),
                          bc=spec.bc, callback=follow, callback_every=spec.curve_every, **common)
    train_s = time.perf_counter() - started
    heldout = learner.evaluate(model, split="generated", seed=spec.heldout_seed, **common)
    if curve and curve[-1][0] >= spec.steps:  # called before the last rollout's update: the end is the model returned
        curve.pop()
        curve_families.pop()
    curve.append([spec.steps, round(float(heldout["all"]), 4)])
    curve_families.append({k: round(float(v), 4) for k, v in heldout.items() if k != "all"})
    frozen = learner.evaluate(model, split="frozen", **common) if spec.frozen else {}
    saved = Path(learner.save(model, Path(spec.scratch) / f"{spec.name}.zip", hints=spec.hints,
                              featuriser=spec.featuriser))
    key = spec.key(hashlib.sha256(Path(spec.learner).read_bytes()).hexdigest())
    weights, side = Path(spec.scratch) / "runs" / f"{key}{saved.suffix}", None
    weights.parent.mkdir(parents=True, exist_ok=True)
    os.replace(saved, weights)  # the resumable run folder keeps every run's policy for keep_best
    if saved.with_name(saved.name + ".json").is_file():
        side = weights.with_name(weights.name + ".json")
        os.replace(saved.with_name(saved.name + ".json"), side)
    saved = weights
    return {
        "reward": spec.reward, "seed": spec.seed, "hints": spec.hints, "policy": None, "saved": str(saved),
        "frozen_mean": round(float(frozen["all"]), 4) if frozen else None,
        "heldout_mean": round(float(heldout["all"]), 4),
        "frozen": {k: round(float(v), 4) for k, v in frozen.items() if k != "all"},
        "heldout": {k: round(float(v), 4) for k, v in heldout.items() if k != "all"},
        "curve": curve, "curve_families": curve_families,
        **{level_key(level): steps_to_reach(curve, level) for level in LEVELS},
        "train_s": round(train_s, 1), "wall_s": round(time.perf_counter() - started, 1),
    }














def low_families(best: dict[str, Any], coverage: dict[str, Any] | None, *, heldout_seed: int = 1,
                 level: float = 0.5) -> dict[str, Any]:
    """Per family where the best run's held-out score stays under ``level``: the measured reasons.

    From ``baselines/menu_coverage.json`` (the held-out generated split, same hints), which replays
    each task's reference episode slot by slot through the menu:

    - ``menu_covered``: share of the family's references the menu replays to the reference score
      (about the best a menu policy can reach there); the rest split into ``no_slot`` (the menu
      lacks the action), ``unseen`` (the action needs an id or figure the actor never saw: the
      observation lacks the fact) and ``score_short`` (replayed, but short of the reference score);

    and from the run's own curve:

    - ``after_bc`` / ``final``: the family's held-out score at step 0 (cloning alone) and at the end;
    - ``still_rising``: it rose by more than 0.05 over the last third of the curve (budget too small).
    """
    out: dict[str, Any] = {}
    fams = best["curve_families"]
    key = f"generated (seed {heldout_seed}), hints {best['hints']}"
    cov_split = (coverage or {}).get("splits", {}).get(key)
    for family, final in sorted(best["heldout"].items()):
        if final >= level:
            continue
        series = [f.get(family, 0.0) for f in fams]
        third = series[len(series) * 2 // 3] if series else final
        reasons = []
        entry: dict[str, Any] = {"final": final, "after_bc": series[0] if series else None,
                                 "frozen": best["frozen"].get(family)}
        cov = (cov_split or {}).get("by_family", {}).get(family)
        if cov:
            total = cov.get("tasks") or 0
            share = cov["covered"] / total if total else None
            unseen = cov.get("missing_unseen_figure", 0) + cov.get("missing_unseen_id", 0)
            entry.update({"menu_covered": None if share is None else round(share, 3), "tasks": total,
                          "no_slot": cov.get("missing_no_slot", 0), "unseen": unseen,
                          "score_short": cov.get("score_short", 0), "missing_kinds": cov.get("missing", {})})
            if entry["no_slot"]:
                reasons.append(f"menu lacks the action for {entry['no_slot']}/{total} references")
            if unseen:
                reasons.append(f"observation lacks the id or figure the reference used in {unseen}/{total}")
            if entry["score_short"]:
                reasons.append(f"menu replay falls short of the reference score in {entry['score_short']}/{total}")
            if share is not None and final < share - 0.2:
                reasons.append(f"learner reaches {final:.2f} where the menu replays {share:.0%} of the references")
        entry["still_rising"] = bool(series and final - third > 0.05)
        if entry["still_rising"]:
            reasons.append("still rising at the end of the budget")
        entry["reasons"] = reasons or ["none measured: the menu covers the references and the curve is flat"]
        out[family] = entry
    return out


class _KeptPolicy:
    """A kept (slim) policy seen through the one method the learner's ``diagnose`` calls on a model:
    ``model.policy.get_distribution(batch, action_masks=...).distribution.logits`` (greedy slot = argmax)."""

    def __init__(self, path: Path) -> None:
        from acworld_env.wrappers.trained import TrainedMenuPolicy

        self.trained = TrainedMenuPolicy(path)
        self.policy = self

    def get_distribution(self, batch: dict[str, Any], action_masks: Any) -> Any:
        """Masked logits of a batch (``action_mask`` then ``observation``, as the policy was trained)."""
        import torch

        x = np.concatenate([batch["action_mask"].numpy(), batch["observation"].numpy()], axis=1).astype(np.float32)
        for w, b in self.trained.layers[:-1]:
            x = self.trained.activation(x @ w.T + b)
        w, b = self.trained.layers[-1]
        logits = np.where(action_masks.numpy().astype(bool), x @ w.T + b, -np.inf)
        return SimpleNamespace(distribution=SimpleNamespace(logits=torch.as_tensor(logits)))


def diagnose_kept(learner: ModuleType, policy: Path, *, hints: str, featuriser: str | None,
                  train_seeds: Sequence[int], heldout_seed: int, families: Sequence[str] | None,
                  scores: dict[str, float]) -> dict[str, Any]:
    """The learner's per-family diagnosis of a kept policy (menu coverage, ambiguous demonstrations,
    train / held-out imitation accuracy, and the first reason that falls short)."""
    train = learner.demonstrations(hints=hints, featuriser=featuriser, families=families, seeds=list(train_seeds))
    return learner.diagnose(_KeptPolicy(policy), hints=hints, featuriser=featuriser, scores=scores, train=train,
                            seed=heldout_seed, families=families)


def check_policy(policy: Path, *, seed: int, tasks: str | None = None, out: Path | None = None,
                 cwd: Path = ROOT) -> dict[str, Any]:
    """``acworld eval capability-v1 --policy sb3:POLICY --split generated --seed SEED`` then
    ``acworld verify`` on its output; the mean, the per-family means and whether every run verified."""
    out = out or Path(tempfile.mkdtemp(prefix="reward-study-check-")) / "eval"
    rel = policy.relative_to(cwd) if policy.is_absolute() and policy.is_relative_to(cwd) else policy
    cmd = ["acworld", "eval", "capability-v1", "--policy", f"sb3:{rel}", "--split", "generated", "--seed", str(seed)]
    if tasks:
        cmd += ["--tasks", tasks]
    run = [sys.executable, "-c", "from acworld_env.cli import main; main()", *cmd[1:], "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(run, cwd=cwd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise StudyError(f"acworld eval failed ({proc.returncode}): {(proc.stderr or proc.stdout).strip()[-400:]}")
    summary = json.loads((out / "summary.json").read_text())
    verify = subprocess.run([sys.executable, "-c", "from acworld_env.cli import main; main()", "verify", str(out),
                             "--expect", summary["root_digest"]], cwd=cwd, capture_output=True, text=True, env=env,
                            check=False)
    return {"command": " ".join(cmd), "seed": seed, "tasks": tasks, "mean": round(float(summary["mean_score"]), 4),
            "by_family": {k: round(float(v), 4) for k, v in summary["by_family"].items()},
            "scored": summary["scored"], "planned": summary["planned"], "root_digest": summary["root_digest"],
            "verified": verify.returncode == 0}




ACTOR_PREFIXES = ("mlp_extractor.policy_net.", "action_net.")
"""The weights a greedy menu policy plays with (what ``TrainedMenuPolicy`` reads); the rest is training state."""


def slim_copy(src: Path, dst: Path) -> Path:
    """Copy a saved policy and its sidecar to ``dst``, keeping only what evaluation reads.

    An SB3 ``.zip`` carries the critic, the optimiser's state and a pickled ``data`` entry besides the
    actor; ``acworld eval --policy sb3:`` reads only ``policy.pth``'s actor tensors. The copy is a
    ``.zip`` holding ``policy.pth`` with those tensors alone (the greedy actions are the same), and
    its sidecar is the original's with the new file's SHA-256. A file without ``policy.pth`` (not
    an SB3 archive) is copied as it is.
    """
    side_src, side_dst = src.with_name(src.name + ".json"), dst.with_name(dst.name + ".json")
    with zipfile.ZipFile(src) if zipfile.is_zipfile(src) else contextlib.nullcontext() as archive:
        blob = archive.read("policy.pth") if archive is not None and "policy.pth" in archive.namelist() else None
    if blob is None:
        shutil.copyfile(src, dst)
        shutil.copyfile(side_src, side_dst)
        return dst
    import torch

    state = torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
    actor = {k: v for k, v in state.items() if k.startswith(ACTOR_PREFIXES)}
    buffer = io.BytesIO()
    torch.save(actor, buffer)
    with zipfile.ZipFile(dst, "w", compression=zipfile.ZIP_DEFLATED) as out:
        info = zipfile.ZipInfo("policy.pth", date_time=(1980, 1, 1, 0, 0, 0))  # same weights, same bytes
        info.compress_type = zipfile.ZIP_DEFLATED
        out.writestr(info, buffer.getvalue())
    meta = json.loads(side_src.read_text())
    meta["sha256"] = hashlib.sha256(dst.read_bytes()).hexdigest()
    meta["slim"] = "actor weights only (policy.pth); the critic and optimiser state were dropped"
    side_dst.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return dst


def keep_best(runs: list[dict[str, Any]], policies: Path | None, stem: str = "reward_study") -> dict[str, dict[str, Any]]:
    """The best run per hints setting (highest held-out mean, then frozen, then lowest seed), kept in
    ``policies`` (a slim copy, :func:`slim_copy`; not kept when ``policies`` is None); that record's
    ``policy`` is set to the kept file (relative to the repo)."""
    best: dict[str, dict[str, Any]] = {}
    for h in HINTS:
        group = [r for r in runs if r["hints"] == h]
        if not group:
            continue
        top = max(group, key=lambda r: (r["heldout_mean"], r["frozen_mean"] or 0.0, -r["seed"]))
        best[h] = {"policy": None, "reward": top["reward"], "seed": top["seed"],
                   "heldout_mean": top["heldout_mean"], "frozen_mean": top["frozen_mean"]}
        if policies is None:
            continue
        policies.mkdir(parents=True, exist_ok=True)
        src = Path(top["saved"])
        dst = slim_copy(src, policies / f"{stem}-{h}-{top['reward']}-s{top['seed']}{src.suffix}")
        top["policy"] = str(dst.relative_to(HOME)) if dst.is_relative_to(HOME) else str(dst)
        best[h].update(policy=top["policy"], bytes=dst.stat().st_size, full_model_bytes=src.stat().st_size)
    return best


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help=f"One family ({QUICK_FAMILY}), one seed per mode, hints structured, a short budget.")
    ap.add_argument("--steps", type=int, default=None, help="RL env steps per run (after behaviour cloning).")
    ap.add_argument("--seeds", type=int, nargs="+", default=None, help="Training seeds per mode (default 0 1 2).")
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    ap.add_argument("--hints", nargs="+", default=None, choices=HINTS)
    ap.add_argument("--families", nargs="+", default=None, help="Families to train and evaluate on (default all).")
    ap.add_argument("--train-seeds", type=int, nargs="+", default=DEFAULT_TRAIN_SEEDS,
                    help="Generation seeds of the training tasks (disjoint from --heldout-seed).")
    ap.add_argument("--heldout-seed", type=int, default=1, help="Generation seed of the held-out split.")
    ap.add_argument("--check-seed", type=int, default=1001,
                    help="A new generation seed on which the best policies are checked through acworld eval.")
    ap.add_argument("--curve-points", type=int, default=8, help="Held-out evaluations along each run's training.")
    ap.add_argument("--featuriser", default="bow", help="The learner's featuriser ('bow', or 'none').")
    ap.add_argument("--no-bc", action="store_true", help="RL from scratch (no behaviour cloning first).")
    ap.add_argument("--workers", type=int, default=2, help="Parallel training processes.")
    ap.add_argument("--out", type=Path, default=None, help="The JSON (default baselines/reward_study.json).")
    ap.add_argument("--policies", type=Path, default=None, help="Where the best policies go (baselines/policies).")
    ap.add_argument("--no-check", action="store_true", help="Skip the acworld eval check of the best policies.")
    ap.add_argument("--no-keep", action="store_true", help="Keep no policy file (a side study); implies --no-check.")
    ap.add_argument("--tables", type=Path, default=None, metavar="JSON",
                    help="Print the README's markdown tables from a recorded study, redraw its figure, and exit.")
    ap.add_argument("--learner", type=Path, default=LEARNER, help="The learner script (its API: see the docstring).")
    ap.add_argument("--resume", type=Path, default=None, metavar="DIR",
                    help="The run folder: each finished run's record and policy are kept there, and a study started "
                         "again with the same settings reuses them (default .study/<out name>).")
    ap.add_argument("--recorded-only", action="store_true",
                    help="Train nothing: write the JSON and figure from the runs the run folder has recorded so far "
                         "(marked complete: false, with the missing runs named).")
    ap.add_argument("--audit", nargs="+", default=None, metavar="RUN",
                    help="Train these recorded runs again (names like structured-potential-s0) in a scratch folder and "
                         "compare every figure with the record; exit 1 on any difference. Writes nothing.")
    ap.add_argument("--at", default=None, metavar="REV",
                    help="Run the study from a worktree of this commit (made once under .study/trees/), so that a "
                         "long study resumes its recorded runs while the checkout moves on; outputs land here.")
    args = ap.parse_args(argv)
    if args.quick:
        args.steps = args.steps or 2048
        args.seeds = args.seeds or [0]
        args.hints = args.hints or ["structured"]
        args.families = args.families or [QUICK_FAMILY]
        args.curve_points = min(args.curve_points, 2)
        args.train_seeds = args.train_seeds if args.train_seeds != DEFAULT_TRAIN_SEEDS else [2]
        args.no_bc = True  # the rise is then the RL reward's doing, not cloning's
        args.no_check = True
    args.steps = args.steps or 16_384
    args.seeds = args.seeds or [0, 1, 2]
    args.hints = args.hints or list(HINTS)
    if args.heldout_seed in args.train_seeds or args.check_seed in args.train_seeds:
        ap.error(f"the held-out seed {args.heldout_seed} and the check seed {args.check_seed} must not be training "
                 "seeds")
    if args.steps <= 0 or args.curve_points <= 0 or args.workers <= 0:
        ap.error("--steps, --curve-points and --workers must be positive")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the study; write the JSON, the figure and the best policies; return the JSON's content."""
    args = parse_args(argv)
    if args.tables is not None:
        try:
            record = json.loads(args.tables.read_text())
            print(markdown_tables(record))
            plot(record, args.tables.with_suffix(".png"), title=figure_title(record), bc=record["config"]["bc"])
        except (OSError, ValueError, KeyError) as exc:
            sys.exit(f"reward_study.py: {args.tables} is not a recorded study ({exc})")
        return record
    if args.at is not None:
        try:
            code = sv.relaunch(Path(__file__), pinned_argv(argv if argv is not None else sys.argv[1:], args),
                               args.at, ROOT)
        except sv.VersionError as exc:
            sys.exit(f"reward_study.py: {exc}")
        if code is not None:
            if code != 0:
                sys.exit(code)
            out = _default_out(args)  # what the pinned study wrote (an audit writes nothing: its exit status says)
            return json.loads(out.read_text()) if out.is_file() and not args.audit else {}
    missing = missing_libraries() if args.learner == LEARNER else []
    if missing:
        sys.exit(f"reward_study.py needs {NEEDS}; missing here: {', '.join(missing)}")
    try:
        return _study(args, argv)
    except StudyError as exc:
        sys.exit(f"reward_study.py: {exc}")


def _default_out(args: argparse.Namespace) -> Path:
    return args.out or HOME / "baselines" / ("reward_study_quick.json" if args.quick else "reward_study.json")


def pinned_argv(argv: Sequence[str], args: argparse.Namespace) -> list[str]:
    """The command line for the pinned study: without ``--at`` (an older commit does not know it), with the
    JSON and the run folder named, so that a commit whose defaults lie inside its own tree still writes here."""
    given, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--at":
            skip = True
        elif not a.startswith("--at="):
            given.append(a)
    out = _default_out(args)
    if args.out is None:
        given += ["--out", _shown(out)]
    if args.resume is None:
        given += ["--resume", _shown(RESUME_ROOT / out.stem)]
    return given


def _shown(path: Path) -> str:
    """``path`` relative to the working directory where it lies below it (what a command line shows)."""
    path = path.resolve()
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)


def _featuriser(name: str) -> str | None:
    return None if name in ("none", "None", "") else name


def _study(args: argparse.Namespace, argv: list[str] | None) -> dict[str, Any]:
    started = time.perf_counter()
    learner = load_learner(args.learner)  # a missing or broken learner fails here, before any worker starts
    families = tuple(args.families) if args.families else None
    featuriser = _featuriser(args.featuriser)
    out = _default_out(args)
    policies = args.policies or (out.parent / "policies")
    folder = args.resume or (RESUME_ROOT / out.stem)
    folder.mkdir(parents=True, exist_ok=True)
    every = max(1, args.steps // args.curve_points)
    specs = [RunSpec(reward=m, seed=s, hints=h, steps=args.steps, train_seeds=tuple(args.train_seeds),
                     heldout_seed=args.heldout_seed, families=families, featuriser=featuriser, curve_every=every,
                     bc=not args.no_bc, scratch=str(folder), frozen=not args.quick,
                     learner=str(args.learner))
             for m in args.modes for h in args.hints for s in args.seeds]
    version = learner_version(args.learner)
    # every run loads this snapshot: the whole study runs one version of the learner even if its file changes
    snapshot = folder / "learner" / version["sha256"][:12] / args.learner.name
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(args.learner, snapshot)
    specs = [dataclasses.replace(spec, learner=str(snapshot)) for spec in specs]
    learner = load_learner(snapshot)
    records = folder / "records"
    records.mkdir(exist_ok=True)
    if args.audit:
        return audit(args.audit, specs, version, records)
    runs: list[dict[str, Any]] = []
    todo: list[RunSpec] = []
    for spec in specs:
        done = records / f"{run_key(spec, version)}.json"
        record = _read_record(done)
        if record is not None and (args.no_keep or Path(record.get("saved", "")).is_file()):
            runs.append(record)  # under --no-keep no policy is kept, so a record without its weights will do
        else:
            todo.append(spec)
    # seeds outermost, so that every sitting adds runs of every mode (the clones are made first, once each)
    todo.sort(key=lambda sp: (sp.seed, HINTS.index(sp.hints), MODES.index(sp.reward)))
    missing_runs = [sp.name for sp in todo]
    if args.recorded_only:
        todo = []
    sittings = _sittings(folder) if todo else None
    print(f"run folder {folder}: {len(runs)} of {len(specs)} runs recorded, {len(todo)} to go", flush=True)
    _name_other_versions(records, version, used={run_key(sp, version) for sp in specs})
    if todo:
        with ProcessPoolExecutor(max_workers=min(args.workers, len(todo)), mp_context=get_context("spawn")) as pool:
            if not args.no_bc:
                todo_hints = sorted({sp.hints for sp in todo}, key=HINTS.index)
                warm = [pool.submit(warm_demonstrations, str(snapshot), h, featuriser, families,
                                    tuple(args.train_seeds)) for h in todo_hints]
                print(f"demonstrations ready: {[w.result() for w in warm]} steps", flush=True)
                if hasattr(learner, "warm_actor"):  # clone each (hints, seed) actor once, in parallel
                    pairs = sorted({(sp.hints, sp.seed) for sp in todo})
                    clones = [pool.submit(warm_actor, str(snapshot), h, featuriser, families, sd,
                                          tuple(args.train_seeds)) for h, sd in pairs]
                    print(f"actors cloned: {[c.result() for c in clones]}", flush=True)
            futures = {pool.submit(run_one, spec): spec for spec in todo}
            pending = set(futures)
            while pending:  # each record is written as its run ends, whatever the order
                finished, pending = wait(pending, timeout=60, return_when=FIRST_COMPLETED)
                _sittings(folder, sittings, time.perf_counter() - started)  # an interrupted sitting still counts
                for future in sorted(finished, key=lambda f: todo.index(futures[f])):
                    spec, record = futures[future], future.result()
                    print(f"{record['hints']:>10} {record['reward']:>9} seed {record['seed']}: held-out "
                          f"{record['curve'][0][1]:.3f} -> {record['heldout_mean']:.3f}, frozen {record['frozen_mean']}, "
                          f"{record['wall_s']:.0f} s", flush=True)
                    runs.append(record)
                    path = records / f"{run_key(spec, version)}.json"
                    tmp = path.with_name(path.name + ".part")
                    tmp.write_text(json.dumps({**record, "version": sv.record_version(version)}, indent=1) + "\n")
                    os.replace(tmp, path)  # a finished run survives an interruption of the study
                    _sittings(folder, sittings, time.perf_counter() - started)
    runs.sort(key=lambda r: (HINTS.index(r["hints"]), MODES.index(r["reward"]), r["seed"]))
    if not runs:
        raise StudyError(f"no run of this study is recorded in {folder} yet")
    summary = summarise(runs, modes=args.modes, hints=args.hints)
    best = keep_best(runs, None if args.no_keep else policies, stem=out.stem)
    coverage_path = ROOT / "baselines" / "menu_coverage.json"  # the coverage of the version that trains
    coverage = json.loads(coverage_path.read_text()) if coverage_path.is_file() else None
    for h, entry in best.items():
        top = next(r for r in runs if (r["hints"], r["reward"], r["seed"]) == (h, entry["reward"], entry["seed"]))
        entry["low_families"] = low_families(top, coverage, heldout_seed=args.heldout_seed)
        if entry["policy"] and hasattr(learner, "diagnose") and not args.quick:
            entry["diagnosis"] = diagnose_kept(learner, HOME / entry["policy"], hints=h, featuriser=featuriser,
                                               train_seeds=args.train_seeds, heldout_seed=args.heldout_seed,
                                               families=_family_list(families), scores=top["heldout"])
        if not args.no_check and entry["policy"]:
            entry["check"] = check_policy(HOME / entry["policy"], seed=args.check_seed, cwd=HOME)
            entry["check"]["within_0.05"] = abs(entry["check"]["mean"] - entry["heldout_mean"]) <= 0.05
    for r in runs:
        r.pop("saved", None)
        r.pop("version", None)  # the study's config names it once
    walls = _sittings(folder, sittings, time.perf_counter() - started) if sittings is not None else \
        _recorded_walls(folder)
    given = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--recorded-only"]
    if pinned := os.environ.get(sv.PINNED_ENV):
        given = ["--at", pinned[:12], *given]
    command = "python examples/reward_study.py" + "".join(f" {a}" for a in given)  # what trains it (and resumes it)
    record = {
        "study": f"reward modes ({', '.join(args.modes)}) x hints ({', '.join(args.hints)}), issue 41 "
                 "(first recorded for issue 33)",
        "command": command,
        "config": {"steps": args.steps, "seeds": args.seeds, "modes": args.modes, "hints": args.hints,
                   "families": list(families) if families else "all", "train_seeds": args.train_seeds,
                   "heldout_seed": args.heldout_seed, "check_seed": args.check_seed, "curve_every": every,
                   "featuriser": featuriser, "bc": not args.no_bc, "workers": args.workers, "torch_threads": 1,
                   "learner": str(args.learner.relative_to(ROOT)) if args.learner.is_relative_to(ROOT) else
                   str(args.learner), "learner_version": version},
        "notes": {
            "curve": "held-out generated score (greedy) against RL env steps; step 0 is the policy after "
                     "behaviour cloning",
            "steps_to": "first curve point whose held-out score is at least the level (null if never)",
            "band": "mean +- t(0.975, n-1) * std / sqrt(n) over the seeds",
            "bootstrap": "mean over families of (potential - other); 10,000 replicates resampling seeds within "
                         "each mode and families paired across modes; numpy default_rng(0)",
            "policy": "only the best run per hints setting keeps its policy file (null for the others, to keep "
                      "the repository light); best = highest held-out mean",
        },
        "complete": not (args.recorded_only and missing_runs),
        "missing_runs": missing_runs if args.recorded_only else [],
        "runs": runs, **summary, "best": best,
        "wall_s": round(sum(walls), 1), "sittings_wall_s": [round(w, 1) for w in walls],
        "runs_wall_s": round(sum(r["wall_s"] for r in runs), 1), "run_folder": str(folder),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    png = out.with_suffix(".png")
    plot(summary, png, title=figure_title(record), bc=not args.no_bc)
    print_table(record)
    print(f"wrote {out.relative_to(HOME) if out.is_relative_to(HOME) else out} and {png.name}; "
          f"wall {record['wall_s']:.0f} s")
    return record


AUDITED = ("heldout_mean", "frozen_mean", "heldout", "frozen", "curve", "curve_families",
           *(level_key(level) for level in LEVELS))
"""The figures of a run record that training it again must reproduce exactly."""


def audit(names: Sequence[str], specs: Sequence[RunSpec], version: dict[str, Any], records: Path) -> dict[str, Any]:
    """Train each named run again in a scratch folder and compare its figures with its record; raise
    :class:`StudyError` naming every difference (an edited or a mistaken record), else return the checks."""
    by_name = {sp.name: sp for sp in specs}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise StudyError(f"--audit: no run named {', '.join(unknown)} in this study (its runs: "
                         f"{', '.join(sorted(by_name))})")
    checks: dict[str, Any] = {}
    for name in names:
        spec = by_name[name]
        recorded = _read_record(records / f"{run_key(spec, version)}.json")
        if recorded is None:
            raise StudyError(f"--audit: {name} has no record in {records} under this version of the env and learner")
        with tempfile.TemporaryDirectory(prefix="reward-study-audit-") as scratch:
            again = json.loads(json.dumps(run_one(dataclasses.replace(spec, scratch=scratch))))
        differ = [f"{k}: recorded {_brief(recorded.get(k))}, trained {_brief(again.get(k))}" for k in AUDITED
                  if recorded.get(k) != again.get(k)]
        checks[name] = {"reproduced": not differ, "differences": differ, "heldout_mean": again["heldout_mean"]}
        said = f"reproduced, every figure equal (held-out {again['heldout_mean']:.4f})" if not differ else \
            "DIFFERS: " + "; ".join(differ)
        print(f"{name}: {said}", flush=True)
    bad = [n for n, c in checks.items() if not c["reproduced"]]
    if bad:
        raise StudyError(f"--audit: {', '.join(bad)} not reproduced by training again")
    return {"audit": checks}


def _brief(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _name_other_versions(records: Path, version: dict[str, Any], used: set[str]) -> None:
    """Say which commit made the records of this folder that this version of the env and learner cannot
    reuse, and the ``--at`` that resumes them (records of this version under other settings are left out)."""
    found = [r for p in sorted(records.glob("*.json")) if p.stem not in used and (r := _read_record(p)) is not None]
    other = sv.other_versions(found, version)
    if not other:
        return
    named = [c for c in other if c != "unrecorded"]
    print(f"{sum(other.values())} records in {records.parent} are not reused (other settings, or another version "
          f"of the env or learner; by commit: {', '.join(f'{c[:12]} {n}' for c, n in other.items())})"
          + (f"; resume them with --at {named[0][:12]}" if len(named) == 1 else ""), flush=True)


def _read_record(path: Path) -> dict[str, Any] | None:
    """A run's recorded result, or None when it is missing or unreadable (the run is then trained again)."""
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and "heldout_mean" in record else None


def _recorded_walls(folder: Path) -> list[float]:
    """Every recorded sitting's wall time, opening none (a study that trained nothing this time)."""
    try:
        return [float(w) for w in json.loads((folder / "sittings.json").read_text())]
    except (OSError, ValueError, TypeError):
        return []


def _sittings(folder: Path, index: int | None = None, wall: float | None = None) -> Any:
    """The wall time of every sitting of a resumable study (``sittings.json`` in its folder).

    Called with only ``folder``: opens a new sitting and returns its index. With ``index`` and ``wall``:
    records that sitting's wall time so far and returns every sitting's."""
    path = folder / "sittings.json"
    walls = _recorded_walls(folder)
    if index is None:
        walls.append(0.0)
        index_out: Any = len(walls) - 1
    else:
        walls[index] = float(wall or 0.0)
        index_out = walls
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(walls) + "\n")
    os.replace(tmp, path)
    return index_out


def warm_demonstrations(learner_path: str, hints: str, featuriser: str | None, families: tuple[str, ...] | None,
                        seeds: tuple[int, ...]) -> int:
    """Build (or read) one hints setting's demonstrations, so that the runs find them in the learner's disk
    cache instead of building them twice at once; the number of demonstrated steps."""
    learner = load_learner(learner_path)
    return len(learner.demonstrations(hints=hints, featuriser=featuriser, families=_family_list(families),
                                      seeds=list(seeds)))


def warm_actor(learner_path: str, hints: str, featuriser: str | None, families: tuple[str, ...] | None, seed: int,
               train_seeds: tuple[int, ...]) -> dict[str, Any]:
    """Clone one (hints, seed) actor into the learner's cache (the runs of every reward mode then share it)."""
    _torch_threads(1)
    learner = load_learner(learner_path)
    return learner.warm_actor(hints=hints, featuriser=featuriser, seed=seed, families=_family_list(families),
                              train_seeds=list(train_seeds))


def run_key(spec: RunSpec, version: dict[str, str]) -> str:
    """A run's key in the run folder: its settings, the learner's bytes and the env's sources."""
    return spec.key(version["sha256"] + ":" + version["env_sha256"])












__all__ = ["RunSpec", "band", "bootstrap_difference", "check_policy", "curve_band", "keep_best", "low_families",
           "main", "run_one", "steps_to_reach", "summarise"]

if __name__ == "__main__":
    main()
