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
    policies: dict[str, str] | None = None
    """Role -> spec: every actor is an agent (``counterparties="agents"``), played by its role's policy
    (:mod:`acworld_env.eval.two_sided`); ``policy`` is then their combined string. None: ``policy``
    plays the evaluated actor against the task's scripted counterparties."""

    def __post_init__(self) -> None:
        if self.policies is not None:
            from .two_sided import combined_policy

            self.policies = dict(sorted(self.policies.items()))
            self.policy = combined_policy(self.policies)

    @property
    def counterparties(self) -> str:
        """``agents`` for a two-sided evaluation, else ``scripted``."""
        return "scripted" if self.policies is None else "agents"

    @property
    def specs(self) -> list[str]:
        """Every distinct policy spec the evaluation plays."""
        return sorted(set(self.policies.values())) if self.policies is not None else [self.policy]


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
    """The policy factory of ``config``; LLM specs are built once (errors surface here) and copied per run.

    A two-sided ``config`` (``policies``) gives a :class:`~acworld_env.eval.two_sided.CastFactory`,
    whose factory builds the policies of every actor of a run."""
    if config.policies is not None:
        from .two_sided import CastFactory

        return CastFactory(config.policies, {spec: spec_factory(spec, config, probe) for spec in config.specs})
    return spec_factory(config.policy, config, probe)


def spec_factory(spec: str, config: EvalConfig, probe: TaskSpec | None = None) -> PolicyFactory:
    """The factory of one policy spec, with ``config``'s options (LLM options go to LLM specs only)."""
    llm = is_llm_spec(spec)
    options = dict(config.policy_options) if llm or config.policies is None else {}
    if llm:
        options.setdefault("concurrency", config.concurrency)
    if spec.startswith("sb3:"):
        from ..wrappers.trained import policy_from_path

        return EpisodeCopies(policy_from_path(spec))  # read and checked once; copied per run
    factory = resolve_policy(spec, **options)
    if llm and probe is not None:
        prototype = factory(probe, config.seed)
        if hasattr(prototype, "reset"):
            return EpisodeCopies(prototype)
    return factory
