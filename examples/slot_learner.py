"""A slot-scoring menu learner: behaviour cloning and PPO for a shared scorer over the menu's slots.

    pip install 'acworld-env[rl]'
    python examples/slot_learner.py --hints structured --steps 20000 --out /tmp/slot/structured.npz

:class:`~acworld_env.wrappers.menu.GymActionMenu` with ``slot_features=True`` describes every open
slot by its own facts (:mod:`acworld_env.wrappers.slot_features`). The network
(:mod:`acworld_env.wrappers.slot_scorer`) scores each open slot from the observation encoding, the
slot's feature row and its template, so "the cheaper cart after fees" or "the listing with most of
the shopper's points" is a direction in feature space, not a fact to memorise per slot index.

* :func:`demonstrations`: the verified reference episodes of generated tasks (training seeds only,
  never the frozen suite or the held-out seed) replayed through the menu, as
  ``examples/menu_learner.py`` builds them, with each step's open slots and their feature rows;
  cached on disk.
* :func:`train`: cloning (cross-entropy of the demonstrated slot among the open ones) when ``bc``, a
  critic fitted to the demonstrations' returns under the reward mode, then ``steps`` env steps of
  PPO (clipped surrogate, GAE) on the env's per-step rewards (``potential``: the verified
  per-predicate progress; ``terminal``: the final score; ``success``: solved or not), on the
  generated tasks of the training seeds. Torch runs on one thread; everything is seeded.
* :func:`save` writes plain ``.npz`` weights and the sidecar; ``acworld eval SUITE --policy
  sb3:PATH.npz`` plays them (:class:`~acworld_env.wrappers.trained.TrainedMenuPolicy`, numpy, no
  unpickling); :func:`evaluate` plays through that very path.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import acworld_env  # noqa: E402

for _where in (Path(acworld_env.__file__).resolve().parents[1] / "examples", Path(__file__).resolve().parent):
    sys.path.insert(0, str(_where))  # beside this file, else (a study's snapshot of it) the repository's examples
import menu_learner as ml  # noqa: E402  (the shared task splits, caches and evaluation)

HIDDEN = 128
"""Hidden units of the scorer (and of the training-only critic)."""
BC_EPOCHS = 20
BC_BATCH = 128
BC_LR = 2e-3
GAMMA = 0.99
LAMBDA = 0.95
PPO_SCRATCH = {"n_steps": 2048, "epochs": 4, "batch": 256, "lr": 3e-4, "clip": 0.2, "ent": 0.01, "vf": 0.5,
               "target_kl": 0.05}
"""PPO from scratch: the usual settings, some entropy to explore."""
PPO_TUNE = {"n_steps": 2048, "epochs": 4, "batch": 256, "lr": 5e-5, "clip": 0.1, "ent": 0.0, "vf": 0.5,
            "target_kl": 0.02}
"""PPO after cloning: small, KL-bounded steps (the cloned policy is already good)."""
CACHE_VERSION = 2
"""2: the demonstrations include the reference's waiting turns (the ``inbox`` slot)."""
SLOT_SOURCES = ("wrappers/slot_features.py", "wrappers/slot_records.py", "wrappers/action_signature.py",
                "wrappers/preferences.py", "scoring/multi_item_pricing.py", "wrappers/menu_coverage.py",
                "wrappers/menu_replay.py")
"""Sources the slot demonstrations also depend on (their digest is part of the cache key)."""
FEATURISER = "bow"


# -- demonstrations ------------------------------------------------------------------------------
@dataclass
class SlotDemos:
    """Demonstrated steps with their open slots: ragged rows, ``offsets[i]:offsets[i+1]`` per step."""

    obs: np.ndarray
    """(n, F) float32."""
    rows: np.ndarray
    """(M, S) float16: the feature rows of every step's open slots, step after step."""
    slots: np.ndarray
    """(M,) int32: the menu index of each open slot."""
    offsets: np.ndarray
    """(n + 1,) int64."""
    choice: np.ndarray
    """(n,) int64: the demonstrated slot's position among its step's open slots."""
    episode: np.ndarray
    score_before: np.ndarray
    final: np.ndarray
    solved: np.ndarray
    families: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(len(self.choice))

    def returns(self, reward: str) -> np.ndarray:
        """Discounted returns under ``reward`` (as :meth:`menu_learner.Demos.returns`)."""
        demo = ml.Demos(obs=self.obs, masks=np.zeros((len(self), 0), bool), actions=self.choice, episode=self.episode,
                        score_before=self.score_before, final=self.final, solved=self.solved, families=self.families)
        return demo.returns(reward, GAMMA)


def _demo_key(hints: str, families: Sequence[str] | None, seeds: Sequence[int]) -> str:
    from acworld_env.wrappers.slot_scorer import slot_signature
    from acworld_env.wrappers.trained import menu_signature

    text = json.dumps([CACHE_VERSION, menu_signature(), slot_signature(), ml.source_digest(ml.BUILDER_SOURCES),
                       ml.source_digest(ml.MENU_SOURCES),
                       ml.source_digest(SLOT_SOURCES), hints, sorted(families or []), list(seeds)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _featuriser(featuriser: str | None) -> None:
    if featuriser != FEATURISER:
        raise SystemExit(f"the slot learner reads featuriser {FEATURISER!r}, not {featuriser!r}")


def demonstrations(*, hints: str, featuriser: str | None = FEATURISER, families: Sequence[str] | None = None,
                   seeds: Sequence[int] = ml.DEFAULT_TRAIN_SEEDS, verbose: bool = False) -> SlotDemos:
    """The reference steps of generated tasks of ``seeds`` with their open slots (cached on disk)."""
    _featuriser(featuriser)
    ml._check(hints, FEATURISER)
    key = _demo_key(hints, families, seeds)
    path = ml.cache_dir() / f"slotdemos-{key}.npz"
    if path.is_file():
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            return SlotDemos(**{k: z[k] for k in z.files if k != "meta"}, meta=meta)
    demos = _build(hints, families, seeds, verbose)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = ml._scratch(path)
    with open(tmp, "wb") as fh:
        np.savez_compressed(fh, obs=demos.obs, rows=demos.rows, slots=demos.slots, offsets=demos.offsets,
                            choice=demos.choice, episode=demos.episode, score_before=demos.score_before,
                            final=demos.final, solved=demos.solved, families=demos.families,
                            meta=np.array(json.dumps(demos.meta)))
    os.replace(tmp, path)
    return demos


def _build(hints: str, families: Sequence[str] | None, seeds: Sequence[int], verbose: bool) -> SlotDemos:
    from acworld_env.wrappers.menu import _Menus
    from acworld_env.wrappers.menu_coverage import task_coverage

    started = time.perf_counter()
    obs, rows, slots, counts, choice, episode, before = [], [], [], [], [], [], []
    ends: list[tuple[int, float, bool, str]] = []
    tasks = 0
    for seed in seeds:
        for task in ml.pick_families(list(ml.generated(int(seed))), families):
            menus = _Menus(text=False, featuriser=FEATURISER, slot_features=True)
            count = [0]

            def hook(env: Any, agent: str, actions: list[Any], index: int, menus: Any = menus,
                     count: list[int] = count, ep: int = tasks) -> None:
                raw = env.raw_observation(agent)
                obs.append(menus.vector(env, agent, raw))
                table = menus.slot_rows(env, agent, raw)
                open_ = np.flatnonzero([a is not None for a in actions])
                rows.append(table[open_].astype(np.float16))
                slots.append(open_.astype(np.int32))
                counts.append(len(open_))
                choice.append(int(np.searchsorted(open_, index)))
                episode.append(ep)
                before.append(env.score.score if env.score is not None else 0.0)
                count[0] += 1

            cov = task_coverage(task, hints=hints, on_step=hook, reference_score=False, idle_steps=True)
            ends.append((count[0], cov.score, cov.score >= 1.0 - 1e-9, task.family))
            tasks += 1
        if verbose:
            print(f"slot demonstrations: seed {seed}, {len(choice)} steps, {time.perf_counter() - started:.0f} s",
                  flush=True)
    per_step = [(f, s, fam) for n, f, s, fam in ends for _ in range(n)]
    return SlotDemos(obs=np.array(obs, dtype=np.float32), rows=np.concatenate(rows).astype(np.float16),
                     slots=np.concatenate(slots), offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
                     choice=np.array(choice, dtype=np.int64), episode=np.array(episode, dtype=np.int32),
                     score_before=np.array(before, dtype=np.float32),
                     final=np.array([p[0] for p in per_step], dtype=np.float32),
                     solved=np.array([p[1] for p in per_step], dtype=bool),
                     families=np.array([p[2] for p in per_step], dtype=str),
                     meta={"hints": hints, "seeds": [int(s) for s in seeds], "tasks": tasks,
                           "build_s": round(time.perf_counter() - started, 1)})


# -- the network ---------------------------------------------------------------------------------
def _modules(n_features: int, hidden: int = HIDDEN) -> tuple[Any, Any]:
    import torch
    from torch import nn

    from acworld_env.wrappers.slot_features import N_SLOT_FEATURES
    from acworld_env.wrappers.slot_scorer import N_ACTIONS, N_TEMPLATES

    class Scorer(nn.Module):
        """The actor: :mod:`acworld_env.wrappers.slot_scorer`'s network in torch."""

        def __init__(self) -> None:
            super().__init__()
            self.obs = nn.Linear(N_ACTIONS + n_features, hidden)
            self.index = nn.Embedding(N_ACTIONS, hidden)
            nn.init.normal_(self.index.weight, std=0.01)
            self.ctx = nn.Linear(hidden, hidden, bias=False)
            self.slot = nn.Linear(N_SLOT_FEATURES, hidden, bias=False)
            self.template = nn.Embedding(N_TEMPLATES, hidden)
            self.hidden = nn.Parameter(torch.zeros(hidden))
            self.score = nn.Linear(hidden, 1, bias=False)
            self.template_bias = nn.Embedding(N_TEMPLATES, 1)
            nn.init.normal_(self.template.weight, std=0.1)
            nn.init.zeros_(self.template_bias.weight)
            nn.init.normal_(self.score.weight, std=0.01)

        def forward(self, x: Any, rows: Any, templates: Any, valid: Any, slots: Any) -> Any:
            mask = torch.zeros(x.shape[0], N_ACTIONS)
            mask.scatter_add_(1, slots, valid.float())  # padding adds 0 at slot 0
            o = torch.tanh(self.obs(torch.cat([mask, x], 1)))
            h = torch.tanh((self.ctx(o) + self.hidden)[:, None, :] + self.slot(rows) + self.template(templates))
            logits = self.score(h).squeeze(-1) + self.template_bias(templates).squeeze(-1)
            logits = logits + (self.index(slots) * o[:, None, :]).sum(-1)
            return logits.masked_fill(~valid, -1e9)

        def export(self) -> dict[str, np.ndarray]:
            """The weights by :func:`~acworld_env.wrappers.slot_scorer.scorer_shapes` name."""
            def arr(t: Any) -> np.ndarray:
                return t.detach().cpu().numpy().astype(np.float32)
            return {"obs.weight": arr(self.obs.weight), "obs.bias": arr(self.obs.bias),
                    "index.weight": arr(self.index.weight),
                    "ctx.weight": arr(self.ctx.weight), "slot.weight": arr(self.slot.weight),
                    "template.weight": arr(self.template.weight), "hidden.bias": arr(self.hidden),
                    "score.weight": arr(self.score.weight[0]), "template_bias.weight": arr(self.template_bias.weight[:, 0])}

    critic = nn.Sequential(nn.Linear(n_features, hidden), nn.Tanh(), nn.Linear(hidden, 64), nn.Tanh(), nn.Linear(64, 1))
    return Scorer(), critic


def _pad(rows_list: list[np.ndarray], slots_list: list[np.ndarray]) -> tuple[Any, Any, Any, Any]:
    """Ragged steps -> padded (rows, templates, valid, slots) tensors (padding points at slot 0, invalid)."""
    import torch

    from acworld_env.wrappers.slot_features import N_SLOT_FEATURES
    from acworld_env.wrappers.slot_scorer import TEMPLATES

    width = max(1, max(len(s) for s in slots_list))
    n = len(slots_list)
    rows = np.zeros((n, width, N_SLOT_FEATURES), dtype=np.float32)
    templates = np.zeros((n, width), dtype=np.int64)
    valid = np.zeros((n, width), dtype=bool)
    slots = np.zeros((n, width), dtype=np.int64)
    for i, (r, s) in enumerate(zip(rows_list, slots_list, strict=True)):
        rows[i, :len(s)] = r
        templates[i, :len(s)] = TEMPLATES[s]
        valid[i, :len(s)] = True
        slots[i, :len(s)] = s
    return torch.from_numpy(rows), torch.from_numpy(templates), torch.from_numpy(valid), torch.from_numpy(slots)


@dataclass
class Learner:
    """A scorer, its critic and what training recorded."""

    actor: Any
    critic: Any
    hints: str
    bc_report: dict[str, Any] | None = None
    train_s: float = 0.0
    steps: int = 0


def clone(learner: Learner, demos: SlotDemos, *, seed: int, reward: str, epochs: int = BC_EPOCHS) -> dict[str, Any]:
    """Cross-entropy of the demonstrated slot among the open ones, then the critic (:func:`fit_critic`)."""
    import torch

    rng = np.random.default_rng(seed)
    n = len(demos)
    params = list(learner.actor.parameters())
    opt = torch.optim.Adam(params, lr=BC_LR)
    rows = [demos.rows[demos.offsets[i]:demos.offsets[i + 1]].astype(np.float32) for i in range(n)]
    slots = [demos.slots[demos.offsets[i]:demos.offsets[i + 1]] for i in range(n)]
    obs, choice = torch.from_numpy(demos.obs), torch.from_numpy(demos.choice)
    epochs = max(epochs, int(np.ceil(300 * BC_BATCH / max(1, n))))
    for epoch in range(epochs):
        for g in opt.param_groups:
            g["lr"] = BC_LR * (0.5 * (1 + np.cos(np.pi * epoch / epochs)))
        order = rng.permutation(n)
        for start in range(0, n, BC_BATCH):
            idx = order[start:start + BC_BATCH]
            r, t, v, sl = _pad([rows[i] for i in idx], [slots[i] for i in idx])
            logits = learner.actor(obs[idx], r, t, v, sl)
            loss = torch.nn.functional.cross_entropy(logits, choice[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    correct = 0
    with torch.no_grad():
        for start in range(0, n, 512):
            idx = np.arange(start, min(n, start + 512))
            r, t, v, sl = _pad([rows[i] for i in idx], [slots[i] for i in idx])
            correct += int((learner.actor(obs[idx], r, t, v, sl).argmax(1) == choice[idx]).sum())
    fit_critic(learner, demos, seed=seed, reward=reward)
    return {"pairs": n, "epochs": epochs, "train_accuracy": round(correct / max(1, n), 4)}


def fit_critic(learner: Learner, demos: SlotDemos, *, seed: int, reward: str, epochs: int = 4) -> float:
    """Fit the critic to the discounted returns the demonstrated steps earned under ``reward``; the last MSE."""
    import torch

    rng = np.random.default_rng(seed + 1)
    obs, targets = torch.from_numpy(demos.obs), torch.from_numpy(demos.returns(reward))
    copt = torch.optim.Adam(learner.critic.parameters(), lr=1e-3)
    loss = torch.zeros(())
    for _ in range(epochs):
        order = rng.permutation(len(demos))
        for start in range(0, len(demos), 256):
            idx = order[start:start + 256]
            loss = ((learner.critic(obs[idx]).squeeze(-1) - targets[idx]) ** 2).mean()
            copt.zero_grad()
            loss.backward()
            copt.step()
    return float(loss.detach())


def _act(learner: Learner, x: np.ndarray, rows: np.ndarray, slots: np.ndarray, rng: np.random.Generator,
         greedy: bool = False) -> tuple[int, float, float]:
    """(position among the open slots, its log-probability, the critic's value) for one step."""
    import torch

    with torch.no_grad():
        xt = torch.from_numpy(x[None])
        r, t, v, sl = _pad([rows], [slots])
        logits = learner.actor(xt, r, t, v, sl)[0]
        logp = torch.log_softmax(logits, 0).numpy()
        value = float(learner.critic(xt)[0, 0])
    if greedy:
        pos = int(np.argmax(logp))
    else:
        p = np.exp(logp - logp.max())
        pos = int(rng.choice(len(p), p=p / p.sum()))
    return pos, float(logp[pos]), value


def ppo(learner: Learner, env: Any, *, steps: int, seed: int, settings: dict[str, Any],
        callback: Callable[[int, Learner], None] | None = None, callback_every: int = 8192) -> None:
    """``steps`` env steps of PPO on ``env`` (a :class:`GymActionMenu` with slot features)."""
    import torch

    rng = np.random.default_rng(seed)
    params = list(learner.actor.parameters()) + list(learner.critic.parameters())
    opt = torch.optim.Adam(params, lr=settings["lr"], eps=1e-5)
    obs, _ = env.reset(seed=seed)
    episode = 0
    done_steps = 0
    next_call = callback_every
    while done_steps < steps:
        n = min(settings["n_steps"], steps - done_steps)
        buf: dict[str, list[Any]] = {k: [] for k in ("x", "rows", "slots", "pos", "logp", "value", "reward", "done")}
        for _ in range(n):
            slots = np.flatnonzero(obs["action_mask"])
            if not len(slots):
                slots = np.array([0])
            rows = obs["slot_features"][slots]
            pos, logp, value = _act(learner, obs["observation"], rows, slots, rng)
            obs_next, reward, term, trunc, _ = env.step(int(slots[pos]))
            for k, v in (("x", obs["observation"]), ("rows", rows), ("slots", slots), ("pos", pos), ("logp", logp),
                         ("value", value), ("reward", float(reward)), ("done", bool(term or trunc))):
                buf[k].append(v)
            if term or trunc:
                episode += 1
                obs_next, _ = env.reset(seed=seed * 100_003 + episode)
            obs = obs_next
        done_steps += n
        with torch.no_grad():
            last_value = float(learner.critic(torch.from_numpy(obs["observation"][None]))[0, 0])
        rewards, values, dones = np.array(buf["reward"]), np.array(buf["value"]), np.array(buf["done"])
        adv = np.zeros(n, dtype=np.float32)
        gae = 0.0
        for i in range(n - 1, -1, -1):
            nxt = last_value if i == n - 1 else values[i + 1]
            nonterminal = 0.0 if dones[i] else 1.0
            delta = rewards[i] + GAMMA * nxt * nonterminal - values[i]
            gae = delta + GAMMA * LAMBDA * nonterminal * gae
            adv[i] = gae
        ret = torch.from_numpy(adv + values.astype(np.float32))
        x_all = torch.from_numpy(np.array(buf["x"], dtype=np.float32))
        pos_all, old_logp = torch.tensor(buf["pos"]), torch.tensor(buf["logp"], dtype=torch.float32)
        adv_t = torch.from_numpy(adv)
        stop = False
        for _ in range(settings["epochs"]):
            order = rng.permutation(n)
            for start in range(0, n, settings["batch"]):
                idx = order[start:start + settings["batch"]]
                r, t, v, sl = _pad([buf["rows"][i] for i in idx], [buf["slots"][i] for i in idx])
                logits = learner.actor(x_all[idx], r, t, v, sl)
                logp_all = torch.log_softmax(logits, 1)
                logp = logp_all.gather(1, pos_all[idx][:, None]).squeeze(1)
                ratio = torch.exp(logp - old_logp[idx])
                a = adv_t[idx]
                a = (a - a.mean()) / (a.std() + 1e-8) if len(idx) > 1 else a
                pg = -torch.min(ratio * a, torch.clamp(ratio, 1 - settings["clip"], 1 + settings["clip"]) * a).mean()
                probs = torch.exp(logp_all) * v
                entropy = -(probs * torch.where(v, logp_all, torch.zeros_like(logp_all))).sum(1).mean()
                vloss = ((learner.critic(x_all[idx]).squeeze(-1) - ret[idx]) ** 2).mean()
                loss = pg + settings["vf"] * vloss - settings["ent"] * entropy
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, 0.5)
                opt.step()
                with torch.no_grad():
                    kl = float((old_logp[idx] - logp).mean())
                if kl > 1.5 * settings["target_kl"]:
                    stop = True
                    break
            if stop:
                break
        learner.steps = done_steps
        while callback is not None and done_steps >= next_call:
            callback(next_call, learner)
            next_call += callback_every


def _clone_path(hints: str, families: Sequence[str] | None, seeds: Sequence[int], seed: int) -> Path:
    own = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    return ml.cache_dir() / f"slotclone-{_demo_key(hints, families, seeds)}-{own}-s{seed}.pt"


def warm_actor(*, hints: str, featuriser: str | None = FEATURISER, seed: int, families: Sequence[str] | None = None,
               train_seeds: Sequence[int] = ml.DEFAULT_TRAIN_SEEDS) -> dict[str, Any]:
    """Clone the actor of ``seed`` into the disk cache (runs that differ only in reward mode share it);
    the cloning report."""
    return train(reward="potential", seed=seed, hints=hints, featuriser=featuriser, steps=0, families=families,
                 train_seeds=train_seeds).bc_report or {}


def _cloned(learner: Learner, *, hints: str, families: Sequence[str] | None, seeds: Sequence[int], seed: int,
            reward: str) -> dict[str, Any]:
    """Clone the actor (or load the clone cached for these demonstrations and seed), then fit the critic."""
    import torch

    demos = demonstrations(hints=hints, families=families, seeds=seeds)
    if not len(demos):
        return {"pairs": 0}
    path = _clone_path(hints, families, seeds, seed)
    if path.is_file():
        saved = torch.load(path, map_location="cpu", weights_only=True)
        learner.actor.load_state_dict(saved["actor"])
        report = json.loads(saved["report"])
        fit_critic(learner, demos, seed=seed, reward=reward)
        return report
    report = clone(learner, demos, seed=seed, reward=reward)
    tmp = ml._scratch(path)
    torch.save({"actor": learner.actor.state_dict(), "report": json.dumps(report)}, tmp)
    os.replace(tmp, path)
    return report


def train(*, reward: str = "potential", seed: int = 0, hints: str = "structured", featuriser: str | None = FEATURISER,
          steps: int = 20_000, families: Sequence[str] | None = None,
          train_seeds: Sequence[int] = ml.DEFAULT_TRAIN_SEEDS, bc: bool = True,
          callback: Callable[[int, Learner], None] | None = None, callback_every: int = 8192,
          settings: dict[str, Any] | None = None) -> Learner:
    """Cloning (when ``bc``) then ``steps`` env steps of PPO under ``reward``; the trained learner.

    ``callback(step, learner)`` is called at step 0 and every ``callback_every`` env steps.
    """
    _featuriser(featuriser)
    import gymnasium
    import torch

    import acworld_env  # noqa: F401  (registers the Gymnasium id)
    from acworld_env.wrappers.menu import GymActionMenu, n_features

    ml._check(hints, FEATURISER)
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    started = time.perf_counter()
    actor, critic = _modules(n_features(FEATURISER))
    learner = Learner(actor=actor, critic=critic, hints=hints)
    if bc:
        learner.bc_report = _cloned(learner, hints=hints, families=families, seeds=train_seeds, seed=seed,
                                    reward=reward)
    if callback is not None:
        callback(0, learner)
    if steps > 0:
        tasks = ml.pick_families([t for s in train_seeds for t in ml.generated(int(s))], families)
        inner = gymnasium.make("acworld/capability-v1", tasks=tasks, hints=hints, reward=reward,
                               disable_env_checker=True)
        env = GymActionMenu(inner, featuriser=FEATURISER, slot_features=True)
        ppo(learner, env, steps=steps, seed=seed, settings=settings or (PPO_TUNE if bc else PPO_SCRATCH),
            callback=callback, callback_every=callback_every)
        env.close()
    learner.train_s = round(time.perf_counter() - started, 1)
    return learner


def save(learner: Learner, path: str | Path, *, hints: str | None = None, featuriser: str | None = FEATURISER,
         extra: dict[str, Any] | None = None) -> Path:
    """Write ``path`` (as ``.npz``: another suffix is replaced) and the sidecar ``acworld eval --policy sb3:PATH``
    reads."""
    from acworld_env.wrappers.slot_scorer import ARCHITECTURE, slot_signature
    from acworld_env.wrappers.trained import write_sidecar

    _featuriser(featuriser)
    if hints is not None and hints != learner.hints:
        raise SystemExit(f"the learner was trained with hints={learner.hints!r}, not {hints!r}")
    path = Path(path).with_suffix(".npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:  # np.savez on an open file: the name is kept as given
        np.savez(fh, **learner.actor.export())
    write_sidecar(path, hints=learner.hints, featuriser=FEATURISER, net_arch=[HIDDEN], activation="tanh",
                  algorithm="slot-scorer PPO", extra={"architecture": ARCHITECTURE, "slots": slot_signature(),
                                                      "bc": learner.bc_report, **(extra or {})})
    return path


def evaluate(learner_or_path: Any, *, split: str, seed: int = 0, hints: str, featuriser: str | None = FEATURISER,
             families: Sequence[str] | None = None) -> dict[str, float]:
    """Greedy scores per family and over all, played as ``acworld eval --policy sb3:PATH`` plays."""
    import tempfile

    _featuriser(featuriser)
    if isinstance(learner_or_path, str | Path):
        return ml.evaluate(learner_or_path, split=split, seed=seed, hints=hints, featuriser=FEATURISER,
                           families=families)
    with tempfile.TemporaryDirectory() as tmp:
        path = save(learner_or_path, Path(tmp) / "model.npz")
        return ml.evaluate(path, split=split, seed=seed, hints=hints, featuriser=FEATURISER, families=families)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train one learner and print its held-out and frozen scores."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hints", default="structured", choices=("off", "structured"))
    parser.add_argument("--reward", default="potential", choices=("potential", "terminal", "success"))
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scratch", action="store_true", help="no cloning: PPO from a random scorer")
    parser.add_argument("--families", nargs="*", default=None)
    parser.add_argument("--out", default=None, help="save the policy here (.npz)")
    args = parser.parse_args(argv)
    learner = train(reward=args.reward, seed=args.seed, hints=args.hints, steps=args.steps, families=args.families,
                    bc=not args.scratch)
    report = {"bc": learner.bc_report, "train_s": learner.train_s,
              "heldout": evaluate(learner, split="generated", seed=1, hints=args.hints, families=args.families),
              "frozen": evaluate(learner, split="frozen", hints=args.hints, families=args.families)}
    if args.out:
        report["saved"] = str(save(learner, args.out))
    print(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    main()
