"""Train sb3-contrib's MaskablePPO on generated tasks, evaluate it on the frozen suite (issue 18 §5).

    pip install 'acworld-env[rl]'        # torch, stable-baselines3, sb3-contrib, ray[rllib], matplotlib
    python examples/sb3_maskable_ppo.py --steps 30000 --out baselines/sb3_maskable_ppo.json

The agent is the evaluated actor of each task (counterparties scripted), seen through the discrete
action menu with masks (:class:`acworld_env.wrappers.menu.GymActionMenu`, whose ``action_masks()``
is MaskablePPO's convention; no other glue). It trains on tasks generated fresh from seeds
``--train-seeds`` (never the frozen ones), then plays every frozen task and a held-out generated
split (``--eval-seed``, the split of ``examples/baselines_table.py``) greedily, before and after
training. It writes the figures as JSON in the shape ``examples/baselines_table.py`` reads (rerun
that to add the row) and the learning curve as a PNG beside it. At the end of training it prints
the share of the training's wall time spent inside the env (its ``reset``, ``step`` and
``action_masks``, timed by :class:`EnvClock`; the rest is the learner). Without ``torch`` and
``sb3-contrib`` it exits with a message saying what to install.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from statistics import mean
from typing import Any

import gymnasium
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
NEEDS = "torch, stable-baselines3 and sb3-contrib (pip install 'acworld-env[rl]')"


def missing_libraries() -> list[str]:
    """The training libraries that do not import here."""
    import importlib.util

    return [m for m in ("torch", "stable_baselines3", "sb3_contrib") if importlib.util.find_spec(m) is None]


def menu_env(tasks: list[Any]) -> Any:
    """The single-agent Gymnasium view over ``tasks`` with the masked action menu."""
    import gymnasium

    import acworld_env  # noqa: F401  (registers acworld/capability-v1 with Gymnasium)
    from acworld_env.wrappers.menu import GymActionMenu

    return GymActionMenu(gymnasium.make("acworld/capability-v1", tasks=tasks, disable_env_checker=True))


class EnvClock(gymnasium.Wrapper):
    """Adds up the wall seconds spent inside the wrapped env: ``reset``, ``step`` and ``action_masks``
    (the menu's mask, which MaskablePPO asks for before every step). Everything passes through unchanged."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.seconds = {"reset": 0.0, "step": 0.0, "action_masks": 0.0}

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        """The env's reset, timed."""
        start = time.perf_counter()
        try:
            return self.env.reset(**kwargs)
        finally:
            self.seconds["reset"] += time.perf_counter() - start

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The env's step, timed."""
        start = time.perf_counter()
        try:
            return self.env.step(action)
        finally:
            self.seconds["step"] += time.perf_counter() - start

    def action_masks(self) -> np.ndarray:
        """The env's action mask, timed."""
        start = time.perf_counter()
        try:
            return self.env.get_wrapper_attr("action_masks")()
        finally:
            self.seconds["action_masks"] += time.perf_counter() - start

    def share_line(self, wall: float) -> str:
        """One line: the share of ``wall`` seconds spent inside the env, and its parts."""
        inside = sum(self.seconds.values())
        parts = ", ".join(f"{k} {v / wall:.2f}" for k, v in self.seconds.items())
        return f"env share of training wall time: {inside / wall:.3f} ({inside:.1f} s of {wall:.1f} s; {parts})"


Predict = Callable[[dict[str, np.ndarray], np.ndarray], int]
"""``(menu observation, boolean action mask) -> menu index``."""


def evaluate(tasks: list[Any], predict: Predict, *, seed: int = 0) -> dict[str, float]:
    """Play every task once with ``predict``; the mean final score per family and over all (``"all"``)."""
    env = menu_env(tasks)
    by_family: dict[str, list[float]] = {}
    for task in tasks:
        obs, info = env.reset(seed=seed, options={"task_id": task.task_id})
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(predict(obs, env.action_masks()))
            done = terminated or truncated
        by_family.setdefault(task.family, []).append(float(env.unwrapped.aec.score.score))
    env.close()
    out = {f: round(mean(s), 3) for f, s in sorted(by_family.items())}
    out["all"] = round(mean(x for s in by_family.values() for x in s), 3)
    return out


def first_allowed(obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
    """A trivial policy (the first available slot), for checking :func:`evaluate` without torch."""
    return int(np.flatnonzero(mask)[0])


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, evaluate, write the figures and the learning curve."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=30_000, help="Training environment steps.")
    ap.add_argument("--train-seeds", type=int, nargs="+", default=list(range(2, 12)),
                    help="Generation seeds of the training tasks.")
    ap.add_argument("--eval-seed", type=int, default=1, help="Generation seed of the held-out generated split.")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tasks", default=None, help="Only tasks whose id contains this text (e.g. /T1/).")
    ap.add_argument("--out", type=Path, default=ROOT / "baselines" / "sb3_maskable_ppo.json")
    ap.add_argument("--torch-threads", type=int, default=1,
                    help="Torch intra-op threads (1 is fastest for these small networks; "
                         "more threads only contend, badly so on a busy machine).")
    args = ap.parse_args(argv)
    missing = missing_libraries()
    if missing:
        sys.exit(f"sb3_maskable_ppo.py needs {NEEDS}; missing here: {', '.join(missing)}")

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.monitor import Monitor

    from acworld_env.tasks.suites import load_suite

    torch.set_num_threads(args.torch_threads)

    def pick(tasks: list[Any]) -> list[Any]:
        return [t for t in tasks if args.tasks is None or args.tasks in t.task_id]

    train = pick([t for s in args.train_seeds for t in load_suite("capability-v1", "generated", s)])
    frozen = pick(load_suite("capability-v1", "frozen", 0))
    held_out = pick(load_suite("capability-v1", "generated", args.eval_seed))

    class Curve(BaseCallback):
        """Each finished training episode's return (its final score: the rewards sum to it)."""

        def __init__(self) -> None:
            super().__init__()
            self.points: list[tuple[int, float]] = []

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                if "episode" in info:
                    self.points.append((self.num_timesteps, float(info["episode"]["r"])))
            return True

    clock = EnvClock(menu_env(train))
    model = MaskablePPO("MultiInputPolicy", Monitor(clock), seed=args.seed, verbose=0, n_steps=1024,
                        batch_size=256, gamma=0.95, ent_coef=0.01)

    def greedy(obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        return int(action)

    started = time.perf_counter()
    before = {"frozen": evaluate(frozen, greedy), "generated": evaluate(held_out, greedy)}
    curve = Curve()
    clock.seconds = dict.fromkeys(clock.seconds, 0.0)  # the training's env time only
    learn_started = time.perf_counter()
    model.learn(total_timesteps=args.steps, callback=curve)
    print(clock.share_line(time.perf_counter() - learn_started))
    after = {"frozen": evaluate(frozen, greedy), "generated": evaluate(held_out, greedy)}
    record = {
        "baseline": "MaskablePPO (SB3)",
        "command": "python examples/sb3_maskable_ppo.py" + "".join(f" {a}" for a in (argv or sys.argv[1:])),
        "steps": args.steps, "train_seeds": args.train_seeds, "eval_seed": args.eval_seed,
        "splits": after, "before_training": before,
        "curve": [[n, round(r, 4)] for n, r in curve.points],
        "wall_s": round(time.perf_counter() - started, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    png = args.out.with_suffix(".png")
    plot_curve(curve.points, png, f"MaskablePPO on generated capability-v1 tasks ({args.steps} steps)")
    print(f"frozen: {before['frozen']['all']:.3f} -> {after['frozen']['all']:.3f}; held-out generated: "
          f"{before['generated']['all']:.3f} -> {after['generated']['all']:.3f}")
    print(f"wrote {args.out} and {png}")
    return record


def plot_curve(points: list[tuple[int, float]], path: Path, title: str, window: int = 100) -> None:
    """The episode scores during training and their moving mean, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    if points:
        x, y = np.array([p[0] for p in points]), np.array([p[1] for p in points])
        ax.plot(x, y, ".", alpha=0.15, label="episode score")
        if len(y) >= window:
            ax.plot(x[window - 1:], np.convolve(y, np.ones(window) / window, mode="valid"),
                    label=f"mean of {window} episodes")
    ax.set(xlabel="environment steps", ylabel="score", title=title, ylim=(0, 1))
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
