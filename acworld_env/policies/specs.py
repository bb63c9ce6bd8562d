"""Policy specs as users type them: ``reference``, ``random``, ``openai:MODEL``, ``anthropic:MODEL``,
``openai-compatible:MODEL`` or any registered policy name (``sb3:PATH``, a trained menu policy, is
resolved by the evaluation app: it plays through the menu, a layer above this one). A spec resolves to a factory that
builds a fresh policy for each task (reference policies are per task).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import AcworldError
from ..core.taskspec import TaskSpec
from ..tasks.names import POLICIES
from .llm.spec import is_llm_spec
from .make import make_policy

PolicyFactory = Callable[[TaskSpec, int], Any]
"""Builds a fresh policy for one run: ``factory(task, seed) -> policy`` (the one policy-factory type)."""


class PolicySpecError(AcworldError, ValueError):
    """A policy spec that names nothing we know."""


def resolve_policy(spec: str, **options: Any) -> PolicyFactory:
    """A factory ``(task, seed) -> policy`` for ``spec``; ``options`` go to LLM policies (base_url, ...)."""
    if spec == "reference":
        return lambda task, seed: make_policy(task.reference)
    if spec == "random":
        from .random_policy import RandomPolicy

        return lambda task, seed: RandomPolicy(seed=seed)
    if is_llm_spec(spec):
        from .llm import policy_from_spec

        opts = {k: v for k, v in options.items() if v is not None}
        return lambda task, seed: policy_from_spec(spec, **opts)
    if spec in POLICIES or _known_after_families(spec):
        return lambda task, seed: make_policy(spec)
    raise PolicySpecError(
        f"unknown policy {spec!r}: use reference, random, openai:MODEL, anthropic:MODEL, "
        f"openai-compatible:MODEL (with --base-url), sb3:PATH (a trained menu policy), or a registered name ({', '.join(sorted(POLICIES))})")


def _known_after_families(name: str) -> bool:
    from ..tasks import families  # noqa: F401
    from . import baselines  # noqa: F401

    return name in POLICIES
