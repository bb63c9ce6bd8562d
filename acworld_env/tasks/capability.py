"""The ``capability-v1`` suite: frozen capability tasks of every landed family.

Frozen tasks load from the checked-in ``data/tasks/capability-v1.jsonl``; generated tasks are
built fresh from a seed by each family's builder. Until a family lands, the demo negotiation
stands in so the suite is never empty.
"""

from __future__ import annotations

from .families import FAMILY_BUILDERS
from .spec import TaskSpec
from .suites import register_suite


@register_suite("capability-v1")
def capability_suite(split: str, seed: int) -> list[TaskSpec]:
    """Frozen: the published tasks; generated: fresh tasks of every family from ``seed``."""
    from .frozen import load_frozen

    if split == "frozen":
        tasks = load_frozen("capability-v1")
        if tasks:
            return tasks
    if not FAMILY_BUILDERS:
        from .families.demo import build_demo_task

        return [build_demo_task()]
    return [t for build in FAMILY_BUILDERS.values() for t in build(seed=seed, frozen=False)]
