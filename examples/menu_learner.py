"""A menu learner that gets far: behaviour cloning from verified demonstrations, then MaskablePPO.

    pip install 'acworld-env[rl]'
    python examples/bc_ppo.py --hints structured --steps 10240 --out /tmp/bc_ppo/structured.zip

The recipe (issue 33):

1. **Demonstrations** (:func:`demonstrations`). The reference episodes of *generated* tasks (never
   the frozen suite) are replayed through the discrete action menu by
   :func:`acworld_env.wrappers.menu_coverage.task_coverage`, whose ``on_step`` hook hands over, at
   each step, the actor's menu observation (the base features plus the featuriser's, exactly as
   :class:`~acworld_env.wrappers.menu.GymActionMenu` builds them), the mask and the slot that
   expressed the reference's action. Steps the menu cannot express end that task's demonstration.
   The pairs are cached on disk (:func:`cache_dir`) by a key of everything they depend on (the
   menu, the task builders' and the featuriser's source, hints, families, seeds); so are the
   generated task splits (building one takes tens of seconds).
2. **Behaviour cloning** (:func:`train` with ``bc=True``): the actor of sb3-contrib's
   ``MaskablePPO`` (:data:`NET_ARCH`) is trained by supervised cross-entropy of the demonstrated
   slot under the masked distribution, for :data:`BC_EPOCHS` epochs (:func:`clone_actor`; cached
   per demonstrations and seed, so runs that differ only in reward mode share it); then its critic
   (:data:`CRITIC_ARCH`) is fitted to the discounted return each demonstrated step earned under the
   run's reward mode (:func:`fit_critic`), so RL starts with a critic that matches the actor.
3. **RL fine-tuning**: ``MaskablePPO.learn`` for ``steps`` env steps (:data:`PPO` settings: small,
   KL-bounded steps) on the per-step rewards of the chosen mode, on generated tasks of the
   training seeds.

:func:`diagnose` measures, per family, why a score stays low (menu coverage, ambiguous inputs,
imitation accuracy on training and held-out demonstrations).

The result is an ordinary ``MaskablePPO`` model: :func:`save` writes its ``.zip`` and the sidecar
that ``acworld eval SUITE --policy sb3:PATH`` needs, and :func:`evaluate` plays it through that same
path (:class:`~acworld_env.wrappers.trained.TrainedMenuPolicy` in the evaluation runner's
:func:`~acworld_env.eval.rollout.run_episode`), greedily, so the figures agree with ``acworld eval``.
Everything is deterministic given the seed (torch runs on one thread).
"""

from __future__ import annotations

import functools
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
NET_ARCH = (128, 128)
"""Hidden layers of the actor (the policy file's network)."""
CRITIC_ARCH = (64, 64)
"""Hidden layers of the critic (used in training only; small, so saved files stay small)."""
BC_EPOCHS = 15
"""Passes of behaviour cloning over the demonstrations (the actor)."""
MIN_BC_UPDATES = 300
"""Small demonstration sets (one family) get more epochs, so cloning always takes this many gradient steps."""
CRITIC_EPOCHS = 4
"""Passes fitting the value head to the demonstrations' returns under the run's reward mode."""
BC_BATCH = 256
BC_LR = 1e-3
GAMMA = 0.99
PPO = {"n_steps": 1024, "batch_size": 256, "n_epochs": 4, "learning_rate": 1e-4, "clip_range": 0.1,
       "ent_coef": 0.0, "gamma": GAMMA, "gae_lambda": 0.95, "target_kl": 0.03}
"""MaskablePPO's settings for fine-tuning (small steps: the cloned policy is already good)."""
CACHE_VERSION = 1
NEEDS = "torch, stable-baselines3 and sb3-contrib (pip install 'acworld-env[rl]')"


def _scratch(path: Path) -> Path:
    """A private name beside ``path`` to write first and then rename (runs in parallel processes may
    fill the same cache entry at once; each renames its own complete file)."""
    return path.with_name(f"{path.stem}.{os.getpid()}.tmp{path.suffix}")


def cache_dir() -> Path:
    """Where demonstrations are cached (``ACWORLD_DEMO_CACHE``, else ``~/.cache/acworld/demos``)."""
    return Path(os.environ.get("ACWORLD_DEMO_CACHE") or Path.home() / ".cache" / "acworld" / "demos")


BUILDER_SOURCES = ("tasks/**/*.py", "catalog/*.py", "core/taskspec.py", "core/predicate_params.py")
"""What builds a generated task: cached tasks are rebuilt when any of it changes."""
MENU_SOURCES = ("wrappers/featurise.py", "wrappers/menu.py", "envs/known.py", "envs/candidates*.py", "observe.py")
"""What turns an observation into the menu, its mask and the features: cached demonstrations depend on it too."""


@functools.lru_cache(maxsize=4)
def source_digest(patterns: tuple[str, ...]) -> str:
    """A digest of the package's source files matching ``patterns`` (cache keys change when they do)."""
    import acworld_env

    package = Path(acworld_env.__file__).parent
    digest = hashlib.sha256()
    for path in sorted({p for pattern in patterns for p in package.glob(pattern)}):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _builders_digest() -> str:
    return source_digest(BUILDER_SOURCES)


@functools.lru_cache(maxsize=32)
def generated(seed: int) -> tuple[Any, ...]:
    """The generated tasks of ``seed``: built once (building a split takes tens of seconds), then read
    from a JSON-lines cache keyed by the builders' source digest, and kept in memory per process."""
    from acworld_env.core.task_load import task_from_json
    from acworld_env.tasks.suites import load_suite

    path = cache_dir() / f"tasks-{SUITE}-{int(seed)}-{_builders_digest()}.jsonl"
    if path.is_file():
        return tuple(task_from_json(line) for line in path.read_text().splitlines() if line)
    tasks = tuple(load_suite(SUITE, "generated", int(seed)))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _scratch(path)
    tmp.write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    os.replace(tmp, path)
    return tasks


def suite_tasks(split: str, seed: int) -> list[Any]:
    """The tasks of ``split`` (``"frozen"`` or ``"generated"``, the latter from generation seed ``seed``)."""
    from acworld_env.tasks.suites import load_suite

    if split == "generated":
        return list(generated(int(seed)))
    if split != "frozen":
        raise SystemExit(f"split must be frozen or generated, not {split!r}")
    return load_suite(SUITE, split, seed)


def pick_families(tasks: list[Any], families: Sequence[str] | None) -> list[Any]:
    """The tasks of ``families`` (full names like ``T1_discovery`` or prefixes like ``T1``); all when None."""
    if not families:
        return list(tasks)
    wanted = set(families)
    return [t for t in tasks if t.family in wanted or t.family.split("_")[0] in wanted]


def n_features_of(featuriser: str | None) -> int:
    """The length of the policy's feature vector with ``featuriser``."""
    from acworld_env.wrappers.menu import n_features

    return n_features(featuriser)


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

    text = json.dumps([CACHE_VERSION, menu_signature(), source_digest(BUILDER_SOURCES), source_digest(MENU_SOURCES),
                       hints, featuriser, sorted(families or []), list(seeds)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def demonstrations(*, hints: str, featuriser: str | None, families: Sequence[str] | None = None,
                   seeds: Sequence[int] = DEFAULT_TRAIN_SEEDS, verbose: bool = False) -> Demos:
    """The (observation, mask, slot) pairs of the reference episodes of generated tasks (cached on disk)."""
    _check(hints, featuriser)
    key = _demo_key(hints, featuriser, families, seeds)
    path = cache_dir() / f"demos-{key}.npz"
    if path.is_file():
        demos = _load_demos(path)
        demos.meta["key"] = key
        return demos
    demos = _build_demos(hints, featuriser, families, seeds, verbose)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _scratch(path)
    np.savez_compressed(tmp, obs=demos.obs, masks=np.packbits(demos.masks, axis=1), actions=demos.actions,
                        episode=demos.episode, score_before=demos.score_before, final=demos.final,
                        solved=demos.solved, families=demos.families,
                        meta=np.array(json.dumps({**demos.meta, "tasks": demos.tasks, "covered": demos.covered})))
    os.replace(tmp, path)
    demos.meta["key"] = key
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
    from acworld_env.wrappers.menu import _Menus
    from acworld_env.wrappers.menu_coverage import task_coverage

    started = time.perf_counter()
    rows: dict[str, list[Any]] = {k: [] for k in ("obs", "masks", "actions", "episode", "score_before")}
    ends: list[tuple[int, float, bool, str]] = []  # (steps, final score, solved, family) per demonstration
    tasks = covered = 0
    for seed in seeds:
        for task in pick_families(list(generated(int(seed))), families):
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
    from acworld_env.wrappers.menu import N_ACTIONS, n_features

    n = len(rows["actions"])
    return Demos(obs=np.array(rows["obs"], dtype=np.float32).reshape(n, n_features(featuriser)),
                 masks=np.array(rows["masks"], dtype=bool).reshape(n, N_ACTIONS),
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


def _batches(n: int, seed: int, epochs: int) -> Any:
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, BC_BATCH):
            yield order[start:start + BC_BATCH]


def _fit(params: list[Any], loss_of: Callable[[Any], Any], n: int, *, seed: int, epochs: int) -> float:
    """Adam on ``params`` over ``epochs`` shuffled passes of ``n`` examples; the last epoch's mean loss."""
    import torch

    optimiser = torch.optim.Adam(params, lr=BC_LR)
    total, count, per_epoch = 0.0, 0, -(-n // BC_BATCH)
    for i, idx in enumerate(_batches(n, seed, epochs)):
        if i % per_epoch == 0:
            total, count = 0.0, 0
        loss = loss_of(torch.as_tensor(idx))
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimiser.step()
        total, count = total + loss.item() * len(idx), count + len(idx)
    return total / max(1, count)


def _actor_params(policy: Any) -> list[Any]:
    return [*policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]


def _critic_params(policy: Any) -> list[Any]:
    return [*policy.mlp_extractor.value_net.parameters(), *policy.value_net.parameters()]


def _tensors(demos: Demos) -> tuple[dict[str, Any], Any, Any]:
    import torch

    masks = torch.as_tensor(demos.masks)
    obs = {"observation": torch.as_tensor(demos.obs), "action_mask": masks.float()}
    return obs, masks, torch.as_tensor(demos.actions)


def clone_actor(model: Any, demos: Demos, *, seed: int, epochs: int = BC_EPOCHS) -> dict[str, float]:
    """Fit ``model``'s actor to the demonstrated slots by cross-entropy under the masked distribution.

    ``epochs`` passes, or more when the demonstrations are few (at least :data:`MIN_BC_UPDATES`
    gradient steps); the report says how many.

    The result depends only on the demonstrations, the seed and the settings, so it is cached on
    disk (``actor-KEY.npz`` beside the demonstrations) and shared by runs that differ only in reward.
    """
    import torch

    epochs = max(epochs, -(-MIN_BC_UPDATES // -(-len(demos) // BC_BATCH)))
    policy = model.policy
    key = hashlib.sha256(json.dumps([demos.meta.get("key"), seed, epochs, BC_LR, BC_BATCH, list(NET_ARCH)])
                         .encode()).hexdigest()[:16]
    path = cache_dir() / f"actor-{key}.npz"
    names = [n for n, _ in policy.named_parameters() if n.startswith(("mlp_extractor.policy_net.", "action_net."))]
    if demos.meta.get("key") and path.is_file():
        with np.load(path, allow_pickle=False) as z:
            state = {n: torch.as_tensor(z[n]) for n in names}
            report = json.loads(str(z["report"]))
        policy.load_state_dict(state, strict=False)
        return report
    obs, masks, actions = _tensors(demos)
    policy.set_training_mode(True)

    def loss_of(idx: Any) -> Any:
        batch = {k: v[idx] for k, v in obs.items()}
        return -policy.get_distribution(batch, action_masks=masks[idx]).log_prob(actions[idx]).mean()

    ce = _fit(_actor_params(policy), loss_of, len(demos), seed=seed, epochs=epochs)
    policy.set_training_mode(False)
    with torch.no_grad():
        picks = [policy.get_distribution({k: v[i:i + 2048] for k, v in obs.items()},
                                         action_masks=masks[i:i + 2048]).distribution.logits.argmax(dim=1)
                 for i in range(0, len(demos), 2048)]
    accuracy = float((torch.cat(picks) == actions).float().mean())
    report = {"epochs": epochs, "cross_entropy": round(ce, 4), "train_accuracy": round(accuracy, 4),
              "pairs": len(demos), "tasks": demos.tasks}
    if demos.meta.get("key"):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        params = dict(policy.named_parameters())
        np.savez(tmp, report=np.array(json.dumps(report)), **{n: params[n].detach().numpy() for n in names})
        os.replace(tmp, path)
    return report


def fit_critic(model: Any, demos: Demos, *, reward: str, seed: int, epochs: int = CRITIC_EPOCHS) -> float:
    """Fit ``model``'s value head to the discounted return each demonstrated step earned under ``reward``."""
    import torch

    policy = model.policy
    obs, _, _ = _tensors(demos)
    targets = torch.as_tensor(demos.returns(reward))
    policy.set_training_mode(True)

    def loss_of(idx: Any) -> Any:
        return torch.nn.functional.mse_loss(policy.predict_values({k: v[idx] for k, v in obs.items()}).flatten(),
                                            targets[idx])

    mse = _fit(_critic_params(policy), loss_of, len(demos), seed=seed + 1, epochs=epochs)
    policy.set_training_mode(False)
    return mse


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


    torch.set_num_threads(1)
    torch.manual_seed(seed)
    started = time.perf_counter()
    tasks = pick_families([t for s in train_seeds for t in generated(int(s))], families)
    if not tasks:
        raise SystemExit(f"no generated tasks of families {list(families or [])}")
    env = Monitor(menu_env(tasks, hints=hints, featuriser=featuriser, reward=reward))
    settings = dict(PPO)
    if 0 < steps < settings["n_steps"]:  # a short run still learns from one rollout of its own length
        settings.update(n_steps=steps, batch_size=min(settings["batch_size"], steps))
    model = MaskablePPO("MultiInputPolicy", env, seed=seed, verbose=0, device="cpu",
                        policy_kwargs={"net_arch": {"pi": list(NET_ARCH), "vf": list(CRITIC_ARCH)}}, **settings)
    model.bc_report = None
    if bc:
        if demos is None:
            demos = demonstrations(hints=hints, featuriser=featuriser, families=families, seeds=train_seeds)
        if len(demos):
            model.bc_report = clone_actor(model, demos, seed=seed)
            model.bc_report["value_mse"] = round(fit_critic(model, demos, reward=reward, seed=seed), 4)
        else:  # no reference step of these tasks is expressible in the menu: nothing to clone
            model.bc_report = {"epochs": 0, "pairs": 0, "tasks": demos.tasks}
    if callback is not None:
        callback(0, model)

    class Every(BaseCallback):
        """Calls ``callback`` every ``callback_every`` env steps."""

        def _on_step(self) -> bool:
            if callback is not None and self.num_timesteps % callback_every == 0:
                callback(self.num_timesteps, self.model)
            # stop at exactly ``steps``: SB3 would finish a rollout past it (a last partial rollout is not trained on)
            return self.num_timesteps < steps or steps % self.model.n_steps == 0

    if steps > 0:
        model.learn(total_timesteps=steps, callback=Every())
    model.train_s = round(time.perf_counter() - started, 1)
    env.close()
    return model


def warm_actor(*, hints: str, featuriser: str | None, seed: int, families: Sequence[str] | None = None,
               train_seeds: Sequence[int] = DEFAULT_TRAIN_SEEDS) -> dict[str, float]:
    """Clone the actor of ``seed`` into the disk cache (what :func:`train` would), so that runs differing
    only in reward mode, started at once, do not all clone it; the cloning report."""
    model = train(reward="potential", seed=seed, hints=hints, featuriser=featuriser, steps=0, families=families,
                  train_seeds=train_seeds)
    return model.bc_report


def save(model: Any, path: str | Path, *, hints: str, featuriser: str | None) -> Path:
    """Save ``model`` as ``path`` (``.zip``) with the sidecar ``acworld eval --policy sb3:PATH`` reads."""
    from acworld_env.wrappers.trained import write_sidecar

    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_name(path.name + ".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    optimiser = model.policy.optimizer
    state = optimiser.state_dict()
    optimiser.state.clear()  # Adam's moments (twice the weights) are not saved: the file stays small
    try:
        model.save(path)
    finally:
        optimiser.load_state_dict(state)
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
    from acworld_env.wrappers.trained import TrainedMenuPolicy

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(model_or_path) if isinstance(model_or_path, str | Path) else \
            save(model_or_path, Path(tmp) / "model.zip", hints=hints, featuriser=featuriser)
        policy = TrainedMenuPolicy(path)
    if policy.hints != hints or policy.meta["featuriser"] != featuriser:
        raise SystemExit(f"{model_or_path}: trained with hints={policy.hints!r}, featuriser="
                         f"{policy.meta['featuriser']!r}, asked for hints={hints!r}, featuriser={featuriser!r}")
    by_family: dict[str, list[float]] = {}
    for task in pick_families(suite_tasks(split, seed), families):
        by_family.setdefault(task.family, []).append(float(run_episode(task, policy, seed=seed).score.score))
    out = {f: round(mean(s), 4) for f, s in sorted(by_family.items(), key=lambda kv: int(kv[0].split("_")[0][1:]))}
    out["all"] = round(mean(x for s in by_family.values() for x in s), 4)
    return out


# -- why a family stays low ---------------------------------------------------------------------
def _greedy(model: Any, demos: Demos) -> np.ndarray:
    import torch

    obs, masks, _ = _tensors(demos)
    with torch.no_grad():
        return np.concatenate([
            model.policy.get_distribution({k: v[i:i + 2048] for k, v in obs.items()},
                                          action_masks=masks[i:i + 2048]).distribution.logits.argmax(dim=1).numpy()
            for i in range(0, len(demos), 2048)]) if len(demos) else np.zeros(0, dtype=np.int64)


def ambiguous(demos: Demos) -> np.ndarray:
    """Per demonstrated step: whether the very same input (features and mask) was demonstrated with
    another slot too, so that no policy reading this input can take both (the observation lacks the fact)."""
    keys = [hashlib.sha1(o.tobytes() + m.tobytes()).digest() for o, m in zip(demos.obs, demos.masks, strict=True)]
    slots: dict[bytes, set[int]] = {}
    for key, action in zip(keys, demos.actions.tolist(), strict=True):
        slots.setdefault(key, set()).add(action)
    return np.array([len(slots[k]) > 1 for k in keys], dtype=bool)


WHY = ("menu lacks the action", "observation lacks the fact", "too little data or budget",
       "errors compound over the episode")
"""The reasons :func:`diagnose` names, in the order it tests them."""


def diagnose(model: Any, *, hints: str, featuriser: str | None, scores: dict[str, float] | None = None,
             train: Demos | None = None, seed: int = 1,
             families: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """Per family of the held-out split (generation ``seed``), the measured reasons a score stays low.

    ``menu_covered``: share of tasks whose reference the menu expresses to its full score
    (:mod:`acworld_env.wrappers.menu_coverage`; below 1, the menu lacks an action);
    ``ambiguous``: share of the training demonstrations whose exact input was also demonstrated with
    another slot (the observation lacks the fact); ``train_accuracy`` / ``heldout_accuracy``: how
    often the greedy policy takes the demonstrated slot on training and held-out demonstrations
    (low on training data: the policy cannot fit what it reads; low only held out: too little data
    or budget). ``why`` names the first of these that falls short (thresholds 0.9 / 0.05 / 0.8).
    """
    from acworld_env.wrappers.menu_coverage import menu_coverage

    coverage = menu_coverage(pick_families(list(generated(seed)), families), hints=hints).by_family()
    held = demonstrations(hints=hints, featuriser=featuriser, seeds=[seed], families=families)
    held_ok = _greedy(model, held) == held.actions
    if train is not None:
        train_ok, unclear = _greedy(model, train) == train.actions, ambiguous(train)
    out: dict[str, dict[str, Any]] = {}
    for family, row in coverage.items():
        sel = held.families == family
        entry: dict[str, Any] = {"menu_covered": row["share"], "missing": row["missing"],
                                 "heldout_accuracy": round(float(held_ok[sel].mean()), 3) if sel.any() else None}
        if train is not None:
            tsel = train.families == family
            entry["train_accuracy"] = round(float(train_ok[tsel].mean()), 3) if tsel.any() else None
            entry["ambiguous"] = round(float(unclear[tsel].mean()), 3) if tsel.any() else None
        if scores is not None:
            entry["score"] = scores.get(family)
        entry["why"] = (WHY[0] if row["share"] < 0.9 else
                        WHY[1] if (entry.get("ambiguous") or 0) > 0.05 or (entry.get("train_accuracy") or 1) < 0.8
                        else WHY[2] if (entry["heldout_accuracy"] or 0) < 0.8 else WHY[3])
        out[family] = entry
    return out


if __name__ == "__main__":
    sys.exit("import this module (see examples/bc_ppo.py for the command line)")
