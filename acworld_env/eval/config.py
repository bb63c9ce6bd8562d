"""What an evaluation runs (:class:`EvalConfig`) and the policy factory it builds from it.

Both backends need these: the local runner (:mod:`acworld_env.eval.runner`) and each Ray worker
(:mod:`acworld_env.eval.ray_backend`) build their policies here, so neither imports the other.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.taskspec import TaskSpec
from ..policies.llm.spec import is_llm_spec
from ..policies.specs import PolicyFactory, resolve_policy


@dataclass
class EvalConfig:
    """What to evaluate, how, and where to write it."""

    env_id: str
    policy: str
    out: Path
    split: str = "frozen"
    seed: int = 0
    tasks: str | None = None
    concurrency: int = 4
    resume: bool = False
    policy_options: dict[str, Any] = field(default_factory=dict)
    repeats: int = 1
    backend: str = "local"
    address: str | None = None
    """Ray cluster address (``ray://host:10001``, ``auto``); None starts or joins a local instance."""
    ray_cpus_per_run: float = 1.0
    """CPUs Ray reserves per run; a fraction lets model-bound runs outnumber the cluster's CPUs."""
    processes: int | None = None
    """Local backend: processes the slots are split over (the driver and ``processes - 1`` workers);
    None chooses (see :func:`acworld_env.eval.workers.default_processes`)."""


class EpisodeCopies:
    """Per-run copies of one policy built once (for task-independent specs such as LLM policies).

    Building an LLM policy (SDK client, skill files) costs far more than a model call; a shallow
    copy shares the client, skills and endpoint slots, and ``reset`` gives it a fresh episode.
    """

    def __init__(self, prototype: Any) -> None:
        self.prototype = prototype

    def __call__(self, task: TaskSpec, seed: int) -> Any:
        policy = copy.copy(self.prototype)
        policy.reset(seed)
        return policy


def make_factory(config: EvalConfig, probe: TaskSpec | None = None) -> PolicyFactory:
    """The policy factory of ``config``; LLM specs are built once (errors surface here) and copied per run."""
    options = dict(config.policy_options)
    llm = is_llm_spec(config.policy)
    if llm:
        options.setdefault("concurrency", config.concurrency)
    if config.policy.startswith("sb3:"):
        from ..wrappers.trained import policy_from_path

        return EpisodeCopies(policy_from_path(config.policy))  # read and checked once; copied per run
    factory = resolve_policy(config.policy, **options)
    if llm and probe is not None:
        prototype = factory(probe, config.seed)
        if hasattr(prototype, "reset"):
            return EpisodeCopies(prototype)
    return factory
