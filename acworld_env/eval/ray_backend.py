"""The Ray backend of ``acworld eval --backend ray``: every run is one Ray task.

A task receives the task spec as JSON, runs the episode on its worker into a temporary
folder with exactly the code path of the local backend (:func:`~.execute.execute_run`), and
returns the outcome with the artifact files as bytes; the driver writes them into the output
folder. Workers therefore need no shared file system, and the artifacts, scores and digests
are those of a local run, byte for byte.

At most ``concurrency`` runs are in flight; each reserves ``ray_cpus_per_run`` CPUs (use a
fraction for model-bound policies). Ray is an optional extra: ``pip install 'acworld-env[ray]'``.
Workers need ``acworld_env`` importable (installed on every node of a cluster).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import AcworldError
from ..tasks.spec import TaskSpec
from .execute import PolicyFactory, RunOutcome, execute_run, failure_reason, read_files
from .plan import UNSCORED_FILE, RunSpec, run_extra

if TYPE_CHECKING:
    from .config import EvalConfig

RAY_MISSING = "the ray backend needs Ray, an optional extra: pip install 'acworld-env[ray]'"

_FACTORIES: dict[str, PolicyFactory] = {}
"""Policy factories of this worker process, by policy spec and options (built once per worker)."""


class BackendUnavailable(AcworldError, RuntimeError):
    """The requested backend cannot run here (e.g. Ray is not installed)."""


def require_ray() -> Any:
    """The ``ray`` module, or :class:`BackendUnavailable` with the install command."""
    try:
        import ray
    except ImportError:
        raise BackendUnavailable(RAY_MISSING) from None
    return ray


def _worker_factory(config_json: str, task: TaskSpec) -> PolicyFactory:
    factory = _FACTORIES.get(config_json)
    if factory is None:
        from .config import EvalConfig, make_factory

        fields = json.loads(config_json)
        config = EvalConfig(out=Path("."), **fields)
        factory = _FACTORIES[config_json] = make_factory(config, task)
    return factory


def ray_run(task_json: str, repeat: int, seed: int, name: str, config_json: str) -> RunOutcome:
    """Body of one Ray task: run, and return the outcome with the artifacts as bytes."""
    task = TaskSpec.model_validate_json(task_json)
    fields = json.loads(config_json)
    run = RunSpec(task, repeat, seed, name)
    with tempfile.TemporaryDirectory(prefix="acworld-ray-") as tmp:
        run_dir = Path(tmp) / name
        try:
            factory = _worker_factory(config_json, task)
        except Exception as exc:  # noqa: BLE001  (a policy that cannot be built here: unscored, with why)
            outcome = RunOutcome(name, task.task_id, repeat, seed, "unscored", reason=failure_reason(exc))
            outcome.files = {UNSCORED_FILE: _unscored_json(run, outcome.reason)}
            return outcome
        extra = run_extra(fields["env_id"], fields["policy"], fields["split"], fields["seed"],
                          policies=fields.get("policies"))
        outcome = execute_run(run, run_dir=run_dir, factory=factory, extra=extra)
        outcome.files = read_files(run_dir) if run_dir.exists() else {}
    return outcome


def _unscored_json(run: RunSpec, reason: str) -> bytes:
    return (json.dumps({"task_id": run.task.task_id, "repeat": run.repeat, "seed": run.seed, "reason": reason},
                       sort_keys=True) + "\n").encode()


def _config_json(config: EvalConfig) -> str:
    """The settings a worker needs to build the policy, as JSON (the output folder stays with the driver)."""
    return json.dumps({"env_id": config.env_id, "policy": config.policy, "seed": config.seed, "split": config.split,
                       "concurrency": config.concurrency, "policy_options": config.policy_options,
                       "policies": config.policies},
                      sort_keys=True)


def run_on_ray(runs: list[RunSpec], config: EvalConfig, collect: Callable[[RunSpec, RunOutcome], None]) -> None:
    """Run ``runs`` as Ray tasks, at most ``config.concurrency`` in flight; ``collect`` each outcome.

    Joins the running Ray instance if there is one, else ``ray.init(address=config.address)``
    (a new local instance when the address is None), shut down again at the end.
    """
    ray = require_ray()
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"address": config.address, "log_to_driver": False}
        if config.address is None:
            kwargs["include_dashboard"] = False
        ray.init(**kwargs)
        started = True
    remote = ray.remote(num_cpus=config.ray_cpus_per_run, max_retries=2)(ray_run)
    config_json = _config_json(config)
    queue = list(reversed(runs))
    pending: dict[Any, RunSpec] = {}
    try:
        while queue or pending:
            while queue and len(pending) < config.concurrency:
                run = queue.pop()
                ref = remote.remote(run.task.model_dump_json(), run.repeat, run.seed, run.name, config_json)
                pending[ref] = run
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                run = pending.pop(ref)
                collect(run, _outcome(ray, ref, run))
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref)
        raise
    finally:
        if started:
            ray.shutdown()


def _outcome(ray: Any, ref: Any, run: RunSpec) -> RunOutcome:
    """The task's outcome; a Ray failure (worker died, task error) makes the run unscored."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayError as exc:
        reason = "ray: " + failure_reason(exc)[:300]
        outcome = RunOutcome(run.name, run.task.task_id, run.repeat, run.seed, "unscored", reason=reason)
        outcome.files = {UNSCORED_FILE: _unscored_json(run, reason)}
        return outcome
