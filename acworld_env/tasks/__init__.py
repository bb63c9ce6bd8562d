"""Tasks: the frozen spec, family builders, suites."""

from . import world_checks  # noqa: F401  (adds the World's checks to those run before an episode)
from .spec import CounterpartySpec, MutationSpec, PolicyRef, PredicateSpec, TaskSpec

__all__ = ["CounterpartySpec", "MutationSpec", "PolicyRef", "PredicateSpec", "TaskSpec"]
