"""What an evaluation runs: the selected tasks, their repeats, run folders, and which runs can be kept.

A *run* is one episode of one task with one seed. With ``repeats == 1`` (the default) a run's
folder is named after its task id; with ``repeats > 1`` every run of a task gets its own
folder ``<task>__r<k>`` and the episode seed ``seed + k``.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..artifacts import LOG_FILE, RUN_FILE, TRACE_FILE, read_json_file
from ..tasks.spec import TaskSpec, unsafe_task_id
from ..tasks.suites import load_suite

UNSCORED_FILE = "unscored.json"
"""Written into the folder of a run that could not be scored, with its reason."""


@dataclass(frozen=True)
class RunSpec:
    """One planned run: a task, which repeat of it, the episode seed and the folder name."""

    task: TaskSpec
    repeat: int
    seed: int
    name: str

    @property
    def key(self) -> str:
        """Unique id of the run within an evaluation (its folder name)."""
        return self.name


def suite_name(env_id: str) -> str:
    """The task suite behind an environment id (an unversioned id means its latest version)."""
    from ..tasks import families  # noqa: F401  (registers the suites)
    from ..tasks.suites import SUITES

    if env_id in SUITES:
        return env_id
    versions = sorted((k for k in SUITES if k.rsplit("-v", 1)[0] == env_id and k.rsplit("-v", 1)[1].isdigit()),
                      key=lambda k: int(k.rsplit("-v", 1)[1]))
    return versions[-1] if versions else env_id


def run_dir_name(task_id: str) -> str:
    """A task id as a folder name; an id that is not safe (``..``, ``/abs``, ``a\\b``) raises ValueError."""
    problem = unsafe_task_id(task_id)
    if problem:
        raise ValueError(problem)
    return task_id.replace("/", "__")


def run_extra(env_id: str, policy: str, split: str, seed: int, *,
              policies: dict[str, str] | None = None) -> dict[str, Any]:
    """What every run of an evaluation records in ``run.json`` beside its digests: the policy, and the suite,
    split and seed its task came from (so verification can find the published task); for a two-sided
    evaluation also ``policies`` (role -> spec: which policy played which role)."""
    extra: dict[str, Any] = {"policy": policy, "env_id": env_id, "suite": suite_name(env_id), "split": split,
                             "suite_seed": seed}
    if policies is not None:
        extra["policies"] = dict(policies)
    return extra


def config_extra(config: Any) -> dict[str, Any]:
    """:func:`run_extra` of an :class:`~acworld_env.eval.config.EvalConfig`."""
    return run_extra(config.env_id, config.policy, config.split, config.seed, policies=config.policies)


def select_tasks(env_id: str, split: str, seed: int, pattern: str | None) -> list[TaskSpec]:
    """The tasks of an environment id, optionally filtered by a glob over task ids."""
    tasks = load_suite(suite_name(env_id), split, seed)
    if pattern:
        tasks = [t for t in tasks if fnmatch.fnmatch(t.task_id, pattern)]
    return tasks


def plan_runs(tasks: list[TaskSpec], *, seed: int, repeats: int = 1) -> list[RunSpec]:
    """Every run of an evaluation, task-major (all repeats of a task, then the next task)."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    runs = []
    for task in tasks:
        for k in range(repeats):
            name = run_dir_name(task.task_id) + (f"__r{k}" if repeats > 1 else "")
            runs.append(RunSpec(task, k, seed + k, name))
    return runs


def read_kept(run: RunSpec, run_dir: Path, policy: str) -> dict[str, Any] | None:
    """A finished, scored run's ``score.json`` content (for ``--resume``), or None to rerun it.

    A run is kept only when all its artifacts are present, its score is valid and for this task,
    and ``run.json`` names the same policy and seed; a folder left by another policy is an error.
    """
    files = [run_dir / f for f in (RUN_FILE, TRACE_FILE, LOG_FILE, "score.json")]
    if not all(f.is_file() for f in files):
        return None
    try:
        meta = read_json_file(run_dir / RUN_FILE)
        score = read_json_file(run_dir / "score.json")
    except (ValueError, OSError):
        return None
    if not isinstance(meta, dict) or not isinstance(score, dict):
        return None
    if meta.get("policy") not in (None, policy):
        raise ValueError(f"{run_dir} holds a run of policy {meta.get('policy')!r}, not {policy!r}: "
                         "resume into the folder of the same policy, or choose another --out")
    if meta.get("seed") != run.seed or score.get("task_id") != run.task.task_id or not score.get("valid"):
        return None
    return score
