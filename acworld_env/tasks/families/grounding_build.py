"""T2 Grounding task assembly: the plan of capabilities and one :class:`TaskSpec` from each draft."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from ..spec import MutationSpec, PolicyRef, TaskSpec
from . import grounding_buyer as buyer
from . import grounding_merchant as merchant
from .grounding_draft import Draft

FAMILY = "T2_grounding"
Builder = Callable[[np.random.Generator, int], Draft]
PLAN: list[tuple[str, str, int, Builder]] = [
    ("buyer", "authoritative_attribute_read", 2, lambda rng, i: buyer.attribute_read(rng, i, normalize=False)),
    ("buyer", "conflict_and_normalization", 2, lambda rng, i: buyer.attribute_read(rng, i, normalize=True)),
    ("buyer", "grounded_comparison", 2, buyer.comparison),
    ("buyer", "unsupported_claim_detection", 2, buyer.detection),
    ("merchant", "comparative_claim_limits", 3, merchant.comparatives),
    ("merchant", "correction_and_retraction", 2, merchant.correction),
    ("merchant", "evidence_backed_response", 3, merchant.evidence_reply),
    ("merchant", "truthful_listing_update", 4, merchant.listing_update),
]


def task(task_id: str, role: str, capability: str, d: Draft) -> TaskSpec:
    """The task of one draft: reference and mutations replay their plans (``grounded_plan``)."""
    total = round(sum(p.weight for p in d.predicates), 6)
    assert total == 1.0, f"{task_id}: weights sum to {total}"
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=capability, role=role,
        actor="buyer_0" if role == "buyer" else "merchant_0", difficulty=d.difficulty, request=d.request,
        mandate=d.mandate, initial_state=d.state, catalog="capability-v1", schedule=d.schedule,
        max_steps=max(len(d.plan), *(len(p) for p, _ in d.mutations.values())) + 10, predicates=d.predicates,
        oracle=d.oracle, reference=PolicyRef(name="grounded_plan", params={"plan": d.plan}),
        mutations=[MutationSpec(id=f"{task_id}/{name}", description=f"reference with {name.replace('_', ' ')}",
                                policy=PolicyRef(name="grounded_plan", params={"plan": plan}), lowers=lowers)
                   for name, (plan, lowers) in d.mutations.items()],
    )


@cache
def _frozen_requests() -> frozenset[str]:
    """Requests of the frozen tasks (a generated task never repeats one)."""
    return frozenset(t.request for t in build_all(0, True))


def build_all(seed: int, frozen: bool) -> list[TaskSpec]:
    """Every task of the plan; frozen ids and rng, or fresh ones drawn from ``seed`` (a draw that
    repeats a frozen request is drawn again)."""
    rng = np.random.default_rng([2, 2026] if frozen else [2, seed, 7])
    prefix = "capability-v1/T2" if frozen else f"generated-{seed}/T2"
    taken = frozenset() if frozen else _frozen_requests()
    out = []
    for role, cap, count, make in PLAN:
        for i in range(count):
            d = make(rng, i)
            while d.request in taken:
                d = make(rng, i)
            out.append(task(f"{prefix}/{role}/{cap}/{i + 1:02d}", role, cap, d))
    return out
