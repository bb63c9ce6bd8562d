"""Behaviour cloning from verified demonstrations, then MaskablePPO: train, save, evaluate (issue 33).

    pip install 'acworld-env[rl]'
    python examples/bc_ppo.py --hints structured --steps 20000 --out baselines/policies/bc_ppo_structured.zip
    acworld eval capability-v1 --policy sb3:baselines/policies/bc_ppo_structured.zip --split generated --seed 5

A thin command line over :mod:`menu_learner` (same folder): demonstrations of generated tasks
(cached), cloning, ``--steps`` env steps of RL fine-tuning on ``--reward``, the saved ``.zip`` and
its sidecar, then greedy scores on the frozen suite and on a held-out generated split, printed and
written as JSON beside the model (``PATH.scores.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import menu_learner as ml  # noqa: E402  (beside this script)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Parse the command line, train, save, evaluate; return the record written."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hints", choices=("off", "structured"), default="structured")
    ap.add_argument("--featuriser", default="bow", help="'bow' (default) or 'none' (the base features only)")
    ap.add_argument("--reward", choices=("potential", "terminal", "success"), default="potential")
    ap.add_argument("--steps", type=int, default=20_000, help="RL env steps after cloning (0: cloning only)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train-seeds", type=int, nargs="+", default=list(ml.DEFAULT_TRAIN_SEEDS))
    ap.add_argument("--families", nargs="+", default=None, help="e.g. T1 T3 (default: all ten)")
    ap.add_argument("--no-bc", action="store_true", help="RL from scratch (no cloning)")
    ap.add_argument("--eval-seed", type=int, default=1, help="generation seed of the held-out split")
    ap.add_argument("--no-eval", action="store_true")
    ap.add_argument("--out", type=Path, required=True, help="where to save the model (.zip)")
    args = ap.parse_args(argv)
    featuriser = None if args.featuriser in ("none", "None", "") else args.featuriser
    if 1 in args.train_seeds and args.eval_seed == 1 and not args.no_eval:
        ap.error("--train-seeds includes the held-out seed 1 (choose another --eval-seed)")
    model = ml.train(reward=args.reward, seed=args.seed, hints=args.hints, featuriser=featuriser, steps=args.steps,
                     families=args.families, train_seeds=args.train_seeds, bc=not args.no_bc)
    path = ml.save(model, args.out, hints=args.hints, featuriser=featuriser)
    record: dict[str, Any] = {"policy": str(path), "hints": args.hints, "featuriser": featuriser,
                              "reward": args.reward, "seed": args.seed, "steps": args.steps,
                              "train_seeds": args.train_seeds, "families": args.families, "bc": model.bc_report,
                              "train_s": model.train_s}
    print(f"saved {path} (cloning: {model.bc_report}; {model.train_s} s)")
    if not args.no_eval:
        common = {"hints": args.hints, "featuriser": featuriser, "families": args.families}
        record["frozen"] = ml.evaluate(path, split="frozen", seed=0, **common)
        record["heldout"] = ml.evaluate(path, split="generated", seed=args.eval_seed, **common)
        print(f"frozen: {record['frozen']}\nheld-out generated (seed {args.eval_seed}): {record['heldout']}")
    path.with_name(path.name + ".scores.json").write_text(json.dumps(record, indent=1) + "\n")
    return record


if __name__ == "__main__":
    main()
