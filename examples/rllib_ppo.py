"""Self-play with RLlib's PPO: a Buyer policy and a Merchant policy learn in one run (issue 18 §4).

    pip install 'acworld-env[rl]'        # torch, ray[rllib], ...
    python examples/rllib_ppo.py --iterations 20 --out baselines/rllib_ppo.json

Every actor of a task is an agent (``counterparties="agents"``), in RLlib's multi-agent
conventions through the shipped adapter :class:`acworld_env.wrappers.rllib.AcworldRLlibEnv`
(fixed ``possible_agents`` over the suite, float action masks, ``__all__``). Agents map to one
policy per role (:func:`~acworld_env.wrappers.rllib.policy_by_role`), each an RLlib action-masking
module. Every agent is paid by its own rubric (the evaluated actor by the task's predicates, the
others by ``counterparty_rubrics``), so both policies have a reward to learn from. The script
prints each policy's mean episode return per iteration (the two reward curves), plays the frozen
suite (evaluated actor's score, per family) and a held-out generated split with the trained
policies on both sides, and writes the figures as JSON in the shape ``examples/baselines_table.py``
reads, with the curves as a PNG. Without ``torch`` and ``ray[rllib]`` it exits with a message
saying what to install.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from statistics import mean
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
NEEDS = "torch and ray[rllib] (pip install 'acworld-env[rl]')"
ROLES = ("buyer", "merchant")


def missing_libraries() -> list[str]:
    """The training libraries that do not import here."""
    import importlib.util

    missing = [m for m in ("torch", "ray") if importlib.util.find_spec(m) is None]
    if not missing:
        try:
            import ray.rllib  # noqa: F401
        except Exception:  # noqa: BLE001 - any import failure means RLlib cannot train here
            missing.append("ray[rllib]")
    return missing


def play(env: Any, act: Any, task_ids: list[str], seed: int = 0) -> dict[str, float]:
    """Play each task once, every agent choosing with ``act(agent, obs) -> index``; the evaluated
    actor's mean final score per family and over all (``"all"``)."""
    raw = env.par.unwrapped
    by_family: dict[str, list[float]] = {}
    for task_id in task_ids:
        obs, _ = env.reset(seed=seed, options={"task_id": task_id})
        terms: dict[str, bool] = {"__all__": False}
        truncs: dict[str, bool] = {"__all__": False}
        while not (terms["__all__"] or truncs["__all__"]):
            (agent,) = [a for a in obs if not (terms.get(a) or truncs.get(a))]  # the one whose turn it is
            obs, _, terms, truncs, _ = env.step({agent: act(agent, obs[agent])})
        by_family.setdefault(raw.task.family, []).append(float(raw.score.score))
    out = {f: round(mean(s), 3) for f, s in sorted(by_family.items())}
    out["all"] = round(mean(x for s in by_family.values() for x in s), 3)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train both policies, report their curves and the evaluation figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--train-seed", type=int, default=2, help="Generation seed of the training tasks.")
    ap.add_argument("--eval-seed", type=int, default=1, help="Generation seed of the held-out generated split.")
    ap.add_argument("--tasks", default=None, help="Glob over task ids, e.g. '*/T4/*' (negotiation: both sides act).")
    ap.add_argument("--out", type=Path, default=ROOT / "baselines" / "rllib_ppo.json")
    ap.add_argument("--torch-threads", type=int, default=1,
                    help="Torch intra-op threads (1 is fastest for these small networks; "
                         "more threads only contend, badly so on a busy machine).")
    args = ap.parse_args(argv)
    missing = missing_libraries()
    if missing:
        sys.exit(f"rllib_ppo.py needs {NEEDS}; missing here: {', '.join(missing)}")

    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from acworld_env.tasks.suites import load_suite
    from acworld_env.wrappers.rllib import AcworldRLlibEnv, policy_by_role

    torch.set_num_threads(args.torch_threads)

    def tasks(split: str, seed: int) -> list[Any]:
        import fnmatch

        return [t for t in load_suite("capability-v1", split, seed)
                if args.tasks is None or fnmatch.fnmatch(t.task_id, args.tasks)]

    train, frozen, held_out = tasks("generated", args.train_seed), tasks("frozen", 0), tasks("generated", args.eval_seed)
    everything = [*train, *frozen, *held_out]  # one possible_agents over every task it will play
    env_config = {"counterparties": "agents", "tasks": train}
    probe = AcworldRLlibEnv({"counterparties": "agents", "tasks": everything})
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [64, 64]})
    config = (PPOConfig()
              .environment(AcworldRLlibEnv, env_config=env_config)
              .multi_agent(policies=set(ROLES), policy_mapping_fn=policy_by_role(probe))
              .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(ROLES, module)))
              .env_runners(num_env_runners=0)
              .training(train_batch_size=2000, minibatch_size=250, num_epochs=4, gamma=0.95, lr=3e-4))
    build = getattr(config, "build_algo", None) or config.build
    algo = build()
    started = time.perf_counter()
    curves: dict[str, list[float]] = {r: [] for r in ROLES}
    try:
        for i in range(args.iterations):
            result = algo.train()
            returns = result.get("env_runners", {}).get("module_episode_returns_mean", {})
            for role in ROLES:
                curves[role].append(round(float(returns.get(role, float("nan"))), 4))
            print(f"iteration {i + 1}: " + ", ".join(f"{r} {curves[r][-1]:.3f}" for r in ROLES))
        modules = {r: algo.get_module(r) for r in ROLES}
        roles = dict(probe.roles)

        def act(agent: str, obs: dict[str, np.ndarray]) -> int:
            batch = {"obs": {k: torch.as_tensor(v[None]) for k, v in obs.items()}}
            logits = modules[roles[agent]].forward_inference(batch)["action_dist_inputs"][0]
            return int(torch.argmax(logits).item())

        evaluation = {"frozen": play(probe, act, [t.task_id for t in frozen]),
                      "generated": play(probe, act, [t.task_id for t in held_out])}
    finally:
        algo.stop()
        import ray

        ray.shutdown()  # the local Ray instance RLlib started (a caller may start its own next)
    record = {"baseline": "PPO (RLlib, self-play)",
              "command": "python examples/rllib_ppo.py" + "".join(f" {a}" for a in (argv or sys.argv[1:])),
              "iterations": args.iterations, "train_seed": args.train_seed, "eval_seed": args.eval_seed,
              "splits": evaluation, "curves": curves, "wall_s": round(time.perf_counter() - started, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    plot_curves(curves, args.out.with_suffix(".png"))
    print(f"frozen {evaluation['frozen']['all']:.3f}, held-out generated {evaluation['generated']['all']:.3f}; "
          f"wrote {args.out}")
    return record


def plot_curves(curves: dict[str, list[float]], path: Path) -> None:
    """Each role's mean episode return per training iteration, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for role, ys in curves.items():
        ax.plot(range(1, len(ys) + 1), ys, marker="o", label=f"{role} policy")
    ax.set(xlabel="PPO iteration", ylabel="mean episode return (own score)", title="RLlib PPO self-play")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
