"""A menu learner that gets far: behaviour cloning from verified demonstrations, then MaskablePPO.

    pip install 'acworld-env[rl]'
    python examples/bc_ppo.py --hints structured --steps 20000 --out baselines/policies/bc_ppo.zip

The recipe (issue 33):

1. **Demonstrations** (:func:`demonstrations`). The reference episodes of *generated* tasks (never
   the frozen suite) are replayed through the discrete action menu by
   :func:`acworld_env.wrappers.menu_coverage.task_coverage`, whose ``on_step`` hook hands over, at
   each step, the actor's menu observation (the base features plus the featuriser's, exactly as
   :class:`~acworld_env.wrappers.menu.GymActionMenu` builds them), the mask and the slot that
   expressed the reference's action. Steps the menu cannot express end that task's demonstration.
   The pairs are cached on disk by a key of everything they depend on.
2. **Behaviour cloning** (:func:`train` with ``bc=True``): sb3-contrib's ``MaskablePPO`` policy
   network is trained by supervised cross-entropy of the demonstrated slot under the masked
   distribution, for :data:`BC_EPOCHS` epochs; its value head is fitted at the same time to the
   return the demonstration earned under the run's reward mode (so RL starts with a critic).
3. **RL fine-tuning**: ``MaskablePPO.learn`` for ``steps`` env steps on the per-step rewards of
   the chosen mode, on generated tasks of the training seeds.

The result is an ordinary ``MaskablePPO`` model: :func:`save` writes its ``.zip`` and the sidecar
that ``acworld eval SUITE --policy sb3:PATH`` needs, and :func:`evaluate` plays it through that same
path (:class:`~acworld_env.wrappers.trained.TrainedMenuPolicy` in the evaluation runner's
:func:`~acworld_env.eval.rollout.run_episode`), greedily, so the figures agree with ``acworld eval``.
Everything is deterministic given the seed (torch runs on one thread).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SUITE = "capability-v1"
DEFAULT_TRAIN_SEEDS = tuple(range(2, 12))
"""Generation seeds of the training tasks (seed 1 is the held-out split, the frozen suite is never used)."""
NET_ARCH = (256, 256)
"""Hidden layers of the actor and of the critic."""
BC_EPOCHS = 30
BC_BATCH = 256
BC_LR = 1e-3
GAMMA = 0.99
PPO = {"n_steps": 1024, "batch_size": 256, "n_epochs": 4, "learning_rate": 1e-4, "clip_range": 0.1,
       "ent_coef": 0.0, "gamma": GAMMA, "gae_lambda": 0.95, "target_kl": 0.03}
"""MaskablePPO's settings for fine-tuning (small steps: the cloned policy is already good)."""
CACHE_VERSION = 1
NEEDS = "torch, stable-baselines3 and sb3-contrib (pip install 'acworld-env[rl]')"


def cache_dir() -> Path:
    """Where demonstrations are cached (``ACWORLD_DEMO_CACHE``, else ``~/.cache/acworld/demos``)."""
    return Path(os.environ.get("ACWORLD_DEMO_CACHE") or Path.home() / ".cache" / "acworld" / "demos")


def pick_families(tasks: list[Any], families: Sequence[str] | None) -> list[Any]:
    """The tasks of ``families`` (full names like ``T1_discovery`` or prefixes like ``T1``); all when None."""
    if not families:
        return list(tasks)
    wanted = set(families)
    return [t for t in tasks if t.family in wanted or t.family.split("_")[0] in wanted]


def _check(hints: str, featuriser: str | None) -> None:
    from acworld_env.wrappers.featurise import check_featuriser

    if hints not in ("off", "structured"):
        raise SystemExit(f"hints must be off or structured, not {hints!r}")
    try:
        check_featuriser(featuriser)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None


# -- demonstrations ------------------------------------------------------------------------------
@dataclass
class Demos:
    """Demonstrated steps: the menu observation, mask and slot, plus what the value targets need."""

    obs: np.ndarray
    """(n, F) float32: the policy's input features."""
    masks: np.ndarray
    """(n, N_ACTIONS) bool."""
    actions: np.ndarray
    """(n,) int64: the demonstrated slot."""
    episode: np.ndarray
    """(n,) int32: which demonstration (task) the step belongs to."""
    score_before: np.ndarray
    """(n,) float32: the task score before the step."""
    final: np.ndarray
    """(n,) float32: the demonstration's final score."""
    solved: np.ndarray
    """(n,) bool: whether the demonstration fully solved its task."""
    families: np.ndarray
    """(n,) str: the task's family."""
    tasks: int = 0
    covered: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(len(self.actions))

    def returns(self, reward: str, gamma: float = GAMMA) -> np.ndarray:
        """The discounted return each step earned under reward mode ``reward`` (the value targets)."""
        out = np.zeros(len(self), dtype=np.float32)
        end = len(self)
        for i in range(len(self) - 1, -1, -1):
            if i == len(self) - 1 or self.episode[i + 1] != self.episode[i]:
                end, following = i, 0.0
            if reward == "potential":
                after = self.final[i] if i == end else self.score_before[i + 1]
                following = float(after - self.score_before[i]) + gamma * following
            else:
                outcome = float(self.final[i]) if reward == "terminal" else float(self.solved[i])
                following = outcome * gamma ** (end - i)
            out[i] = following
        return out


def _demo_key(hints: str, featuriser: str | None, families: Sequence[str] | None, seeds: Sequence[int]) -> str:
    from acworld_env.wrappers.trained import menu_signature

    text = json.dumps([CACHE_VERSION, menu_signature(), hints, featuriser, sorted(families or []), list(seeds)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def demonstrations(*, hints: str, featuriser: str | None, families: Sequence[str] | None = None,
                   seeds: Sequence[int] = DEFAULT_TRAIN_SEEDS, verbose: bool = False) -> Demos:
    """The (observation, mask, slot) pairs of the reference episodes of generated tasks (cached on disk)."""
    _check(hints, featuriser)
    key = _demo_key(hints, featuriser, families, seeds)
    path = cache_dir() / f"demos-{key}.npz"
    if path.is_file():
        return _load_demos(path)
    demos = _build_demos(hints, featuriser, families, seeds, verbose)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, obs=demos.obs, masks=np.packbits(demos.masks, axis=1), actions=demos.actions,
                        episode=demos.episode, score_before=demos.score_before, final=demos.final,
                        solved=demos.solved, families=demos.families,
                        meta=np.array(json.dumps({**demos.meta, "tasks": demos.tasks, "covered": demos.covered})))
    os.replace(tmp, path)
    return demos


def _load_demos(path: Path) -> Demos:
    from acworld_env.wrappers.menu import N_ACTIONS

    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        return Demos(obs=z["obs"], masks=np.unpackbits(z["masks"], axis=1)[:, :N_ACTIONS].astype(bool),
                     actions=z["actions"], episode=z["episode"], score_before=z["score_before"], final=z["final"],
                     solved=z["solved"], families=z["families"], tasks=meta.pop("tasks"),
                     covered=meta.pop("covered"), meta=meta)


def _build_demos(hints: str, featuriser: str | None, families: Sequence[str] | None, seeds: Sequence[int],
                 verbose: bool) -> Demos:
    from acworld_env.tasks.suites import load_suite
    from acworld_env.wrappers.menu import _Menus
    from acworld_env.wrappers.menu_coverage import task_coverage

    started = time.perf_counter()
    rows: dict[str, list[Any]] = {k: [] for k in ("obs", "masks", "actions", "episode", "score_before")}
    ends: list[tuple[int, float, bool, str]] = []  # (steps, final score, solved, family) per demonstration
    tasks = covered = 0
    for seed in seeds:
        for task in pick_families(load_suite(SUITE, "generated", int(seed)), families):
            menus = _Menus(text=False, featuriser=featuriser)
            count = [0]

            def hook(env: Any, agent: str, actions: list[Any], index: int, menus: Any = menus,
                     count: list[int] = count, episode: int = tasks) -> None:
                rows["obs"].append(menus.vector(env, agent, env.raw_observation(agent)))
                rows["masks"].append(np.array([a is not None for a in actions], dtype=bool))
                rows["actions"].append(index)
                rows["episode"].append(episode)
                rows["score_before"].append(env.score.score if env.score is not None else 0.0)
                count[0] += 1

            cov = task_coverage(task, hints=hints, on_step=hook, reference_score=False)
            ends.append((count[0], cov.score, cov.score >= 1.0 - 1e-9, task.family))
            tasks += 1
            covered += cov.covered
        if verbose:
            print(f"demonstrations: seed {seed} done, {len(rows['actions'])} steps, {time.perf_counter() - started:.0f} s")
    per_step = [(f, s, fam) for n, f, s, fam in ends for _ in range(n)]
    return Demos(obs=np.array(rows["obs"], dtype=np.float32).reshape(len(rows["actions"]), -1),
                 masks=np.array(rows["masks"], dtype=bool).reshape(len(rows["actions"]), -1),
                 actions=np.array(rows["actions"], dtype=np.int64), episode=np.array(rows["episode"], dtype=np.int32),
                 score_before=np.array(rows["score_before"], dtype=np.float32),
                 final=np.array([p[0] for p in per_step], dtype=np.float32),
                 solved=np.array([p[1] for p in per_step], dtype=bool),
                 families=np.array([p[2] for p in per_step], dtype=str), tasks=tasks, covered=covered,
                 meta={"hints": hints, "featuriser": featuriser, "seeds": [int(s) for s in seeds],
                       "families": list(families or []), "build_s": round(time.perf_counter() - started, 1)})


# -- training -----------------------------------------------------------------------------------
def missing_libraries() -> list[str]:
    """The training libraries that do not import here."""
    import importlib.util

    return [m for m in ("torch", "stable_baselines3", "sb3_contrib") if importlib.util.find_spec(m) is None]


def menu_env(tasks: list[Any], *, hints: str, featuriser: str | None, reward: str = "potential") -> Any:
    """The single-agent Gymnasium view over ``tasks`` with the masked action menu and ``featuriser``."""
    import gymnasium

    import acworld_env  # noqa: F401  (registers acworld/capability-v1 with Gymnasium)
    from acworld_env.wrappers.menu import GymActionMenu

    inner = gymnasium.make("acworld/capability-v1", tasks=tasks, hints=hints, reward=reward, disable_env_checker=True)
    return GymActionMenu(inner, featuriser=featuriser)


def behaviour_clone(model: Any, demos: Demos, *, reward: str, seed: int, epochs: int = BC_EPOCHS) -> dict[str, float]:
    """Fit ``model``'s actor to the demonstrated slots (cross-entropy) and its critic to their returns."""
    import torch

    policy = model.policy
    device = policy.device
    obs = torch.as_tensor(demos.obs, device=device)
    masks = torch.as_tensor(demos.masks.astype(np.float32), device=device)
    actions = torch.as_tensor(demos.actions, device=device)
    targets = torch.as_tensor(demos.returns(reward), device=device)
    optimiser = torch.optim.Adam(policy.parameters(), lr=BC_LR)
    rng = np.random.default_rng(seed)
    policy.set_training_mode(True)
    loss_ce = loss_v = 0.0
    for _ in range(epochs):
        order = rng.permutation(len(demos))
        totals = [0.0, 0.0]
        for start in range(0, len(order), BC_BATCH):
            idx = torch.as_tensor(order[start:start + BC_BATCH], device=device)
            batch = {"observation": obs[idx], "action_mask": masks[idx]}
            values, log_prob, _ = policy.evaluate_actions(batch, actions[idx], action_masks=masks[idx].bool())
            ce = -log_prob.mean()
            mse = torch.nn.functional.mse_loss(values.flatten(), targets[idx])
            loss = ce + 0.5 * mse
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimiser.step()
            totals[0] += ce.item() * len(idx)
            totals[1] += mse.item() * len(idx)
        loss_ce, loss_v = totals[0] / len(demos), totals[1] / len(demos)
    policy.set_training_mode(False)
    with torch.no_grad():
        logits = []
        for start in range(0, len(demos), 1024):
            batch = {"observation": obs[start:start + 1024], "action_mask": masks[start:start + 1024]}
            dist = policy.get_distribution(batch, action_masks=masks[start:start + 1024].bool())
            logits.append(dist.distribution.logits.argmax(dim=1))
        accuracy = float((torch.cat(logits) == actions).float().mean())
    return {"epochs": epochs, "cross_entropy": round(loss_ce, 4), "value_mse": round(loss_v, 4),
            "train_accuracy": round(accuracy, 4), "pairs": len(demos)}


def train(*, reward: str = "potential", seed: int = 0, hints: str = "structured", featuriser: str | None = "bow",
          steps: int = 20_000, families: Sequence[str] | None = None,
          train_seeds: Sequence[int] = DEFAULT_TRAIN_SEEDS, bc: bool = True,
          callback: Callable[[int, Any], None] | None = None, callback_every: int = 2048,
          demos: Demos | None = None) -> Any:
    """Behaviour cloning (when ``bc``) then ``steps`` env steps of MaskablePPO; the trained model.

    ``callback(step, model)`` is called at step 0 (after cloning) and every ``callback_every`` env
    steps. The cloning report is on ``model.bc_report``; the training wall time on ``model.train_s``.
    """
    _check(hints, featuriser)
    missing = missing_libraries()
    if missing:
        raise SystemExit(f"menu_learner needs {NEEDS}; missing here: {', '.join(missing)}")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.monitor import Monitor

    from acworld_env.tasks.suites import load_suite

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    started = time.perf_counter()
    tasks = pick_families([t for s in train_seeds for t in load_suite(SUITE, "generated", int(s))], families)
    if not tasks:
        raise SystemExit(f"no generated tasks of families {list(families or [])}")
    env = Monitor(menu_env(tasks, hints=hints, featuriser=featuriser, reward=reward))
    model = MaskablePPO("MultiInputPolicy", env, seed=seed, verbose=0, device="cpu",
                        policy_kwargs={"net_arch": {"pi": list(NET_ARCH), "vf": list(NET_ARCH)}}, **PPO)
    model.bc_report = None
    if bc:
        if demos is None:
            demos = demonstrations(hints=hints, featuriser=featuriser, families=families, seeds=train_seeds)
        model.bc_report = behaviour_clone(model, demos, reward=reward, seed=seed)
    if callback is not None:
        callback(0, model)

    class Every(BaseCallback):
        """Calls ``callback`` every ``callback_every`` env steps."""

        def _on_step(self) -> bool:
            if callback is not None and self.num_timesteps % callback_every == 0:
                callback(self.num_timesteps, self.model)
            return True

    if steps > 0:
        model.learn(total_timesteps=steps, callback=Every())
    model.train_s = round(time.perf_counter() - started, 1)
    env.close()
    return model


def save(model: Any, path: str | Path, *, hints: str, featuriser: str | None) -> Path:
    """Save ``model`` as ``path`` (``.zip``) with the sidecar ``acworld eval --policy sb3:PATH`` reads."""
    from acworld_env.wrappers.trained import write_sidecar

    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_name(path.name + ".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    write_sidecar(path, hints=hints, featuriser=featuriser, net_arch=list(NET_ARCH), activation="tanh",
                  extra={"bc": getattr(model, "bc_report", None)})
    return path


# -- evaluation ---------------------------------------------------------------------------------
def evaluate(model_or_path: Any, *, split: str, seed: int = 0, hints: str, featuriser: str | None,
             families: Sequence[str] | None = None) -> dict[str, float]:
    """Greedy scores per family and over all (``"all"``), played as ``acworld eval --policy sb3:PATH`` plays.

    ``split`` is ``"frozen"`` or ``"generated"`` (generation seed ``seed``); ``seed`` is also the
    episode seed, as in ``acworld eval --split generated --seed N``.
    """
    from acworld_env.eval.rollout import run_episode
    from acworld_env.tasks.suites import load_suite
    from acworld_env.wrappers.trained import TrainedMenuPolicy

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(model_or_path) if isinstance(model_or_path, str | Path) else \
            save(model_or_path, Path(tmp) / "model.zip", hints=hints, featuriser=featuriser)
        policy = TrainedMenuPolicy(path)
    if policy.hints != hints or policy.meta["featuriser"] != featuriser:
        raise SystemExit(f"{model_or_path}: trained with hints={policy.hints!r}, featuriser="
                         f"{policy.meta['featuriser']!r}, asked for hints={hints!r}, featuriser={featuriser!r}")
    by_family: dict[str, list[float]] = {}
    for task in pick_families(load_suite(SUITE, split, seed), families):
        by_family.setdefault(task.family, []).append(float(run_episode(task, policy, seed=seed).score.score))
    out = {f: round(mean(s), 4) for f, s in sorted(by_family.items(), key=lambda kv: int(kv[0].split("_")[0][1:]))}
    out["all"] = round(mean(x for s in by_family.values() for x in s), 4)
    return out


if __name__ == "__main__":
    sys.exit("import this module (see examples/bc_ppo.py for the command line)")
