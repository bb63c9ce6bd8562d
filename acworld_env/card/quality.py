"""What the card measures about the suite itself: its counts, the baseline gate, and safety.

* counts: every task of each env's task list (``acworld_env.make(ID).unwrapped.tasks``) by family,
  capability and evaluated role, with predicates, critical predicates and mutations;
* the baseline gate: :func:`acworld_env.eval.baseline_gate.run_baselines` and its thresholds, per
  family (what ``acworld validate`` runs);
* safety: the critical predicate kinds (the scoring registry); the rubric's critical predicates
  as guards (false alarms on the reference runs, misses on the mutations designed to do harm); the
  platform's privacy guard on the labelled corpus (``tests/foundation/privacy_corpus.jsonl``).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

from .measure import ENV_ID, ROOT, sample_ids

COUNTED_ENVS = ("capability-v1", "large-catalog-v1", "demo-v1")
PRIVACY_CORPUS = ROOT / "tests" / "foundation" / "privacy_corpus.jsonl"


def _critical_kinds() -> dict[str, str]:
    import acworld_env.scoring  # noqa: F401  (registers every predicate kind)
    from acworld_env.scoring.kinds import CRITICAL

    return dict(CRITICAL)


def suite_counts() -> dict[str, Any]:
    """Tasks of every env with a task list, from the env itself: by family, capability and evaluated role."""
    import acworld_env

    critical = _critical_kinds()
    envs: dict[str, Any] = {}
    for env_id in COUNTED_ENVS:
        tasks = list(acworld_env.make(env_id).unwrapped.tasks)
        families: dict[str, dict[str, Any]] = {}
        for task in tasks:
            fam = families.setdefault(task.family, {"tasks": 0, "buyer": 0, "merchant": 0, "capabilities": Counter(),
                                                    "predicates": 0, "critical_predicates": 0, "mutations": 0})
            fam["tasks"] += 1
            fam[task.role] += 1
            fam["capabilities"][task.capability] += 1
            fam["predicates"] += len(task.predicates)
            fam["critical_predicates"] += sum(p.kind in critical for p in task.predicates)
            fam["mutations"] += len(task.mutations)
        for fam in families.values():
            fam["capabilities"] = dict(sorted(fam["capabilities"].items()))
        envs[env_id] = {"tasks": len(tasks), "families": families,
                        "capabilities": len({t.capability for t in tasks}),
                        "roles": dict(sorted(Counter(t.role for t in tasks).items())),
                        "predicates": sum(len(t.predicates) for t in tasks),
                        "mutations": sum(len(t.mutations) for t in tasks)}
    others = [e for e in acworld_env.list_envs() if e not in envs]
    return {"envs": envs, "without_task_list": others}


# -- the baseline gate -----------------------------------------------------------------------------

def baseline_gate(quick: bool) -> dict[str, Any]:
    """Every baseline of the gate on the frozen tasks (a sample in ``quick``), per family against the ceilings."""
    from ..eval import baseline_gate as bg
    from ..policies.baselines import NULL_BASELINES
    from ..tasks.suites import load_suite

    wanted = set(sample_ids(quick))
    tasks = [t for t in load_suite(ENV_ID, "frozen", 0) if t.task_id in wanted]
    runs = bg.run_baselines(tasks)
    failures = bg.gate_failures(runs)
    by_family: dict[str, list[Any]] = defaultdict(list)
    for r in runs:
        by_family[r.family].append(r)
    families = {}
    for fam, rs in sorted(by_family.items(), key=lambda kv: _family_order(kv[0])):
        null = [r for r in rs if r.baseline in NULL_BASELINES]
        top_null = max(null, key=lambda r: r.mean)
        shortcuts = [r for r in rs if r.baseline.startswith("shortcut:")]
        top_short = max(shortcuts, key=lambda r: r.mean) if shortcuts else None
        named = {r.baseline: r for r in rs}
        families[fam] = {
            "tasks": len(top_null.scores),
            "no_op": {"mean": round(top_null.mean, 4), "baseline": top_null.baseline,
                      "task_max": round(max(max(r.scores.values()) for r in null), 4),
                      "means": {r.baseline: round(r.mean, 4) for r in null}},
            "random": round(named["random"].mean, 4),
            "menu_first": round(named["menu:first"].mean, 4),
            "menu_random": round(named["menu:random"].mean, 4),
            "shortcut": None if top_short is None else {
                "mean": round(top_short.mean, 4), "name": top_short.baseline.removeprefix("shortcut:"),
                "count": len(shortcuts),
                "full_share": round(max(sum(r.full.values()) / len(r.full) for r in shortcuts), 4)},
            "failures": [f for f in failures if f.startswith(f"{fam} /")],
        }
    followers = {f"{fam} / shortcut:{name}": round(r.safe_mean, 4) for fam, names in bg.INSTRUCTION_FOLLOWERS.items()
                 for name in names for r in by_family.get(fam, []) if r.baseline == f"shortcut:{name}"}
    return {"env": ENV_ID, "split": "frozen", "tasks": len(tasks), "random_seeds": bg.RANDOM_SEEDS,
            "ceilings": {"no_op_mean": bg.NULL_MEAN, "no_op_task": bg.NULL_TASK_MAX, "random_mean": bg.RANDOM_MEAN,
                         "menu_mean": bg.MENU_MEAN, "shortcut_mean": bg.SHORTCUT_MEAN,
                         "shortcut_full_share": bg.SHORTCUT_FULL_SHARE, "follower_safe_mean": bg.FOLLOWER_SAFE_MEAN},
            "families": families, "failures": failures, "passes": not failures,
            "instruction_followers_safe_mean": followers}


def _family_order(family: str) -> tuple[int, str]:
    """``T2_...`` before ``T10_...``."""
    head = family.split("_", 1)[0].lstrip("TL")
    return (int(head) if head.isdigit() else 99, family)


# -- safety ----------------------------------------------------------------------------------------

def rubric_guards(quick: bool) -> dict[str, Any]:
    """The critical predicates as guards over the frozen tasks: a reference run (the correct conduct) flagged
    is a false alarm; a mutation whose declared lowered predicates include a critical one is a designed harm,
    missed when that predicate is not among the run's ``critical_failed``."""
    from ..eval.rollout import run_episode
    from ..policies.make import make_policy
    from ..tasks.suites import load_suite

    critical = _critical_kinds()
    wanted = set(sample_ids(quick))
    tasks = [t for t in load_suite(ENV_ID, "frozen", 0) if t.task_id in wanted]
    refs = flagged_refs = harms = missed = benign = flagged_benign = 0
    examples: list[str] = []
    for task in tasks:
        kinds = {p.id: p.kind for p in task.predicates}
        ref = run_episode(task, make_policy(task.reference), seed=0).score
        refs += 1
        if ref.critical_failed:
            flagged_refs += 1
            examples.append(f"{task.task_id}: reference flagged {ref.critical_failed}")
        for mut in task.mutations:
            declared = sorted(p for p in mut.lowers if kinds.get(p) in critical)
            failed = set(run_episode(task, make_policy(mut.policy), seed=0).score.critical_failed)
            if declared:
                harms += 1
                if not set(declared) <= failed:
                    missed += 1
                    examples.append(f"{mut.id}: harm to {declared} not flagged")
            else:
                benign += 1
                if failed:
                    flagged_benign += 1
                    examples.append(f"{mut.id}: flagged {sorted(failed)} without a declared harm")
    return {"tasks": len(tasks), "references": refs, "references_flagged": flagged_refs,
            "harm_mutations": harms, "harms_missed": missed, "benign_mutations": benign,
            "benign_flagged": flagged_benign,
            "false_alarm_rate": _rate(flagged_refs + flagged_benign, refs + benign),
            "miss_rate": _rate(missed, harms), "examples": examples[:5]}


def privacy_guard() -> dict[str, Any]:
    """The platform's privacy guard (:func:`acworld_env.cip.privacy.reveals`) on the labelled corpus."""
    if not PRIVACY_CORPUS.is_file():
        return {"measured": False, "reason": f"the labelled corpus {PRIVACY_CORPUS.relative_to(ROOT)} is not here"}
    from ..cip.privacy import reveals

    examples = [json.loads(line) for line in PRIVACY_CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    leaks = [e for e in examples if e["leak"]]
    innocent = [e for e in examples if not e["leak"]]
    missed = [e for e in leaks if reveals(e["text"], [e["sealed"]]) is None]
    blocked = [e for e in innocent if reveals(e["text"], [e["sealed"]]) is not None]
    return {"measured": True, "corpus": str(PRIVACY_CORPUS.relative_to(ROOT)), "texts": len(examples),
            "leaks": len(leaks), "innocent": len(innocent), "sealed_amounts": len({e["sealed"] for e in examples}),
            "missed": len(missed), "miss_rate": _rate(len(missed), len(leaks)),
            "false_alarms": len(blocked), "false_alarm_rate": _rate(len(blocked), len(innocent)),
            "missed_examples": [e["text"] for e in missed[:3]], "false_alarm_examples": [e["text"] for e in blocked[:3]]}


def safety(quick: bool, gate: dict[str, Any] | None = None) -> dict[str, Any]:
    """Critical predicate kinds and their use in the suite; the guards' measured false-alarm and miss rates."""
    import acworld_env

    critical = _critical_kinds()
    tasks = list(acworld_env.make(ENV_ID).unwrapped.tasks)
    by_family: dict[str, dict[str, int]] = {}
    for task in tasks:
        n = sum(p.kind in critical for p in task.predicates)
        fam = by_family.setdefault(task.family, {"tasks": 0, "tasks_with_critical": 0, "critical_predicates": 0})
        fam["tasks"] += 1
        fam["tasks_with_critical"] += n > 0
        fam["critical_predicates"] += n
    return {"critical_kinds": dict(sorted(critical.items())),
            "by_harm": dict(sorted(Counter(critical.values()).items())),
            "suite": {"env": ENV_ID, "tasks": len(tasks),
                      "tasks_with_critical": sum(f["tasks_with_critical"] for f in by_family.values()),
                      "critical_predicates": sum(f["critical_predicates"] for f in by_family.values()),
                      "by_family": dict(sorted(by_family.items(), key=lambda kv: _family_order(kv[0])))},
            "rubric_guards": rubric_guards(quick), "privacy_guard": privacy_guard(),
            "instruction_followers_safe_mean": (gate or {}).get("instruction_followers_safe_mean", {})}


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
