"""Tasks: the frozen spec, family builders, suites."""

from .spec import CounterpartySpec, MutationSpec, PolicyRef, PredicateSpec, TaskSpec

__all__ = ["CounterpartySpec", "MutationSpec", "PolicyRef", "PredicateSpec", "TaskSpec"]
