"""The baselines table (issue 18 §8): every baseline per family, on the frozen suite and on a generated split.

    python examples/baselines_table.py                       # writes baselines/capability-v1-baselines.json
    python examples/baselines_table.py --learned-only        # only refresh its learned rows from their files

Rows: the null baselines (``idle``, ``finish``, ``abstain``), ``random`` (mean over seeds), every
family's shortcut scripts, and the task's reference policy: run here with
:func:`acworld_env.eval.baseline_gate.run_baselines` (the same runs ``acworld validate`` gates) and
:func:`acworld_env.eval.rollout.run_episode`. The learned baselines (SB3 MaskablePPO, RLlib PPO)
need ``torch``; when a results file of theirs is present (``--learned FILE``, written by their
example scripts) its figures are added, otherwise their rows say "not run here" and give the
command that produces them. A second table per split is self-play (``counterparties="agents"``): the
reference as the evaluated actor and the other actors played by the task's scripted policies, by
nobody (idle) or by the random policy, each agent scored by its own rubric (``counterparty_rubrics``).
Prints the tables as markdown and writes them as JSON (and ``.md``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from statistics import mean
from typing import Any

from acworld_env.core.sides import rubric_actors
from acworld_env.envs.aec import AcworldAECEnv
from acworld_env.eval.baseline_gate import RANDOM_SEEDS, run_baselines
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy
from acworld_env.policies.random_policy import RandomPolicy
from acworld_env.tasks.spec import TaskSpec
from acworld_env.tasks.suites import load_suite

ROOT = Path(__file__).resolve().parents[1]
LEARNED = {
    "MaskablePPO (SB3)": "pip install 'acworld-env[rl]' && python examples/sb3_maskable_ppo.py "
                         "--out baselines/sb3_maskable_ppo.json",
    "PPO (RLlib, self-play)": "pip install 'acworld-env[rl]' && python examples/rllib_ppo.py "
                              "--out baselines/rllib_ppo.json",
}
"""Learned baselines: the command that produces each row (they need torch)."""


def reference_scores(tasks: list[TaskSpec]) -> dict[str, tuple[float, bool, float]]:
    """The reference policy's score, full credit and safe score, by task."""
    out = {}
    for task in tasks:
        s = run_episode(task, make_policy(task.reference), seed=0).score
        out[task.task_id] = (s.score, s.full_credit, s.safe_score)
    return out


OTHERS = ("scripted", "idle", "random")
"""Who plays the other actors in the self-play table: the task's scripted policies (idle where it has none),
nobody (every other agent idles), or the random policy."""


def self_play(tasks: list[TaskSpec], others: str) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """``counterparties="agents"``: the reference plays the evaluated actor, ``others`` every other actor;
    each agent is scored by its own rubric. Scores by family: the evaluated actor's, the others'."""
    evaluated: dict[str, list[float]] = {}
    sides: dict[str, list[float]] = {}
    for task in tasks:
        env = AcworldAECEnv(task=task, counterparties="agents")
        env.reset(seed=0)
        players: dict[str, Any] = {task.actor: make_policy(task.reference)}
        if others == "scripted":
            players.update({c.actor: make_policy(c.policy) for c in task.counterparties})
        elif others == "random":
            players.update({a: RandomPolicy(seed=i) for i, a in enumerate(env.agents) if a != task.actor})
        for player in players.values():
            player.reset(0)
        for agent in env.agent_iter(max_iter=50_000):
            _, _, termination, truncation, _ = env.last()
            player = players.get(agent)
            done = termination or truncation or player is None
            env.step(None if done else player.act(env.raw_observation(agent)))
        evaluated.setdefault(task.family, []).append(env.score.score)
        sides.setdefault(task.family, []).extend(env.score_of(a).score for a in rubric_actors(task))
    return evaluated, sides


def self_play_table(tasks: list[TaskSpec]) -> dict[str, dict[str, float]]:
    """Family means of the evaluated actor (reference) and of the other agents, for each choice of ``OTHERS``."""
    rows: dict[str, dict[str, float]] = {}
    for others in OTHERS:
        evaluated, sides = self_play(tasks, others)
        for name, scores in ((f"evaluated (reference), others {others}", evaluated),
                             (f"other agents ({others})", sides)):
            rows[name] = {f: round(mean(v), 3) for f, v in scores.items() if v}
            rows[name]["all"] = round(mean(x for v in scores.values() for x in v), 3)
    return rows


def split_table(tasks: list[TaskSpec], seeds: int) -> dict[str, Any]:
    """Family means (and the mean over all tasks a baseline ran on) of every baseline on ``tasks``."""
    family = {t.task_id: t.family for t in tasks}
    families = sorted(set(family.values()), key=lambda f: (len(f.split("_")[0]), f))
    by: dict[str, dict[str, dict[str, float]]] = {}
    safe: dict[str, dict[str, dict[str, float]]] = {}
    full: dict[str, dict[str, int]] = {}
    for run in run_baselines(tasks, seeds=seeds):
        by.setdefault(run.baseline, {})[run.family] = dict(run.scores)
        safe.setdefault(run.baseline, {})[run.family] = dict(run.safe)
        full.setdefault(run.baseline, {})[run.family] = sum(run.full.values())
    for tid, (score, is_full, safe_score) in reference_scores(tasks).items():
        by.setdefault("reference", {}).setdefault(family[tid], {})[tid] = score
        safe.setdefault("reference", {}).setdefault(family[tid], {})[tid] = safe_score
        full.setdefault("reference", {})[family[tid]] = full.get("reference", {}).get(family[tid], 0) + is_full
    return {"families": families, "tasks": len(tasks), "means": _means(by), "safe_means": _means(safe),
            "full_credit_tasks": full}


def _means(by: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Per baseline, the mean of each family's task figures and of all its tasks (``all``)."""
    rows: dict[str, dict[str, float]] = {}
    for name, fams in by.items():
        rows[name] = {f: round(mean(s.values()), 3) for f, s in fams.items()}
        rows[name]["all"] = round(mean(x for s in fams.values() for x in s.values()), 3)
    return rows


def markdown(title: str, table: dict[str, Any], learned: dict[str, Any]) -> str:
    """One split's table: a row per baseline, a column per family, the mean over its tasks, then the mean
    ``safe_score`` over its tasks (0 for a run where a critical predicate failed)."""
    fams = table["families"]
    safe = table.get("safe_means") or {}
    head = ["baseline", *[f.split("_")[0] for f in fams], "all", "safe all"]
    lines = [f"### {title} ({table['tasks']} tasks)", "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    order = ["reference", "idle", "finish", "abstain", "random"]
    names = [n for n in order if n in table["means"]] + sorted(n for n in table["means"] if n not in order)
    for name in names:
        row = table["means"][name]
        safe_all = safe.get(name, {}).get("all")
        lines.append("| " + " | ".join([name, *(f"{row[f]:.3f}" if f in row else "-" for f in [*fams, "all"]),
                                        "-" if safe_all is None else f"{safe_all:.3f}"]) + " |")
    for name, entry in learned.items():
        row = entry.get("means") or {}
        if row:
            lines.append("| " + " | ".join([name, *(f"{row[f]:.3f}" if f in row else "-"
                                                   for f in [*fams, "all"]), "-"]) + " |")
        else:
            lines.append(f"| {name} | " + " | ".join(["not run here"] + ["-"] * (len(fams) + 1)) + " |")
    return "\n".join(lines)


def learned_rows(files: list[Path], split: str) -> dict[str, Any]:
    """Figures of the learned baselines from their results files, or a "not run here" entry with the command."""
    out: dict[str, Any] = {name: {"status": "not run here (needs torch)", "command": cmd}
                           for name, cmd in LEARNED.items()}
    for path in files:
        if path.is_file():
            data = json.loads(path.read_text())
            name = data.get("baseline")
            if name in out and split in data.get("splits", {}):
                out[name] = {"status": "run", "command": data.get("command", out[name]["command"]),
                             "means": data["splits"][split]}
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run every baseline on both splits, print the markdown tables, write JSON and markdown files."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="capability-v1")
    ap.add_argument("--generated-seed", type=int, default=1, help="Seed of the generated split (held out).")
    ap.add_argument("--seeds", type=int, default=RANDOM_SEEDS, help="Seeds of the random baseline.")
    ap.add_argument("--tasks", default=None, help="Only tasks whose id contains this text (e.g. /T4/).")
    ap.add_argument("--learned", type=Path, nargs="*",
                    default=[ROOT / "baselines" / "sb3_maskable_ppo.json", ROOT / "baselines" / "rllib_ppo.json"])
    ap.add_argument("--out", type=Path, default=ROOT / "baselines" / "capability-v1-baselines.json")
    ap.add_argument("--learned-only", action="store_true",
                    help="Only refresh the learned rows of the existing --out file from the --learned files "
                         "(nothing else is rerun).")
    args = ap.parse_args(argv)
    if args.learned_only:
        record = json.loads(args.out.read_text())
        for split, entry in record["splits"].items():
            entry["learned"] = learned_rows(args.learned, split)
        return write(record, args.out)
    started = time.perf_counter()
    splits = {"frozen": load_suite(args.suite, "frozen", 0),
              "generated": load_suite(args.suite, "generated", args.generated_seed)}
    record: dict[str, Any] = {
        "command": "python examples/baselines_table.py" + (f" --tasks {args.tasks}" if args.tasks else ""),
        "suite": args.suite, "generated_seed": args.generated_seed, "random_seeds": args.seeds, "splits": {},
    }
    for split, tasks in splits.items():
        if args.tasks:
            tasks = [t for t in tasks if args.tasks in t.task_id]
        table = split_table(tasks, args.seeds)
        record["splits"][split] = {**table, "learned": learned_rows(args.learned, split),
                                   "self_play": self_play_table(tasks)}
    record["wall_s"] = round(time.perf_counter() - started, 1)
    return write(record, args.out)


def render(record: dict[str, Any]) -> str:
    """The markdown of a table record: per split, the baselines (learned rows last), then self-play."""
    text = [f"## Baselines on {record['suite']} (mean score per family)", "",
            "`safe all`: the mean `safe_score` over all tasks, 0 for a run where a critical predicate failed "
            "(docs/critical-predicates.md).", ""]
    for split, entry in record["splits"].items():
        title = "frozen suite" if split == "frozen" else f"generated split (seed {record['generated_seed']})"
        text += [markdown(title, entry, entry["learned"]), ""]
        text += [markdown(f"{title}, self-play: every side scored by its own rubric",
                          {**entry, "means": entry["self_play"]}, {}), ""]
    text += ["Learned baselines need torch; " + "; ".join(f"{n}: `{c}`" for n, c in LEARNED.items()) + ".",
             "", f"Produced by `{record['command']}`."]
    return "\n".join(text) + "\n"


def write(record: dict[str, Any], out: Path) -> dict[str, Any]:
    """Write ``record`` as JSON and its markdown beside it; print the markdown."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    out.with_suffix(".md").write_text(render(record))
    print(render(record))
    print(f"wrote {out} and {out.with_suffix('.md')} ({record['wall_s']} s)")
    return record


if __name__ == "__main__":
    main()
