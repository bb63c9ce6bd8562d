"""T6 Inventory, fulfilment and supply changes (family ``T6_inventory``).

Supply changes (restocks, price and cost changes, supplier dates, carrier exceptions) arrive
as scheduled market events; the agent must act on the state after them, not the one it first
read. Factors: 1 to 6 unavailable units, 2 to 5 substitutes, 1 to 3 exception depth, 2 to 4
state changes, 1 to 4 SKUs, 2 to 4 competing Buyers, up to 8 partial-backorder requests.
Builders: ``inventory_buyer``, ``inventory_carrier``, ``inventory_merchant``,
``inventory_supply``; the plan runner (reference and mutations) is ``inventory_policy``,
the shortcut scripts ``inventory_shortcuts``, the predicate kinds ``scoring.kinds_inventory``.
"""

from __future__ import annotations

import numpy as np

from ..names import register_family
from ..spec import TaskSpec
from . import (
    inventory_policy,  # noqa: F401  (registers the plan runner)
    inventory_shortcuts,  # noqa: F401  (registers the baseline shortcuts)
)
from .inventory_tasks import PLAN, make

FAMILY = "T6_inventory"
REDRAWS = 20
"""Attempts to draw a generated task whose request no frozen task has."""


@register_family(FAMILY)
def build(seed: int = 0, *, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T6 tasks, or fresh ones drawn from ``seed`` (never repeating a frozen request).

    Within a capability, no two tasks are about the same product.
    """
    rng = np.random.default_rng([6, 2026] if frozen else [6, seed, 11])
    prefix = "capability-v1/T6" if frozen else f"generated-{seed}/T6"
    taken = set() if frozen else {t.request for t in build(0, frozen=True)}
    tasks: list[TaskSpec] = []
    used: dict[str, set[str]] = {}
    for role, cap, count in PLAN:
        for i in range(count):
            task_id = f"{prefix}/{role}/{cap}/{i + 1:02d}"
            task = make(task_id, cap, rng, i, frozen)
            for _ in range(REDRAWS):
                if task.request not in taken and _product(task) not in used.get(cap, set()):
                    break
                task = make(task_id, cap, rng, i, frozen)
            used.setdefault(cap, set()).add(_product(task))
            tasks.append(task)
    return tasks


def _product(task: TaskSpec) -> str:
    """The first listing's product, so two tasks of a capability are not about the same item."""
    return str(task.initial_state["listings"]["L-001"]["title"])
