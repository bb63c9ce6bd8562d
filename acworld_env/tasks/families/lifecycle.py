"""T7 Order lifecycle and after-sales: cancel, return, refund, exchange, dispute, and close the books.

Each task starts from a World whose orders were advanced to their stage by the World's own
events (``lifecycle_world``): placed, paid, packed, shipped, delivered, with returns, refunds,
carrier reports and disputes on file. A stated shop policy (or the principal's wishes) decides
what to do: a return outside the window or without the required evidence is refused, a refund
is what policy allows (full or less a fee, minus credits already paid), an exchange meets the
replacement constraints, a dispute response cites the records of its order. Closing an order
means every linked record agrees (payments captured or refunded, holds voided, stock back on
the shelf, ledger balanced and closed); the predicates (``scoring/kinds_lifecycle``) read each
from the final World. Factors: order stage, 1 to 4 evidence or return conditions, 1 to 3
replacement constraints, 2 to 4 payment-state depth, 2 to 5 affected ledger records.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..names import register_family
from ..spec import MutationSpec, PolicyRef, TaskSpec
from . import (
    lifecycle_policy,  # noqa: F401  (registers the reference plan and the shop counterparty)
    lifecycle_shortcuts,  # noqa: F401  (registers the baseline shortcuts)
)
from .lifecycle_disputes import buyer_dispute, merchant_dispute
from .lifecycle_draft import Draft
from .lifecycle_exchange import buyer_exchange, merchant_exchange
from .lifecycle_orders import buyer_cancel, merchant_cancel, merchant_ledger_close
from .lifecycle_returns import buyer_return_refund, merchant_refund, merchant_return_authorization

FAMILY = "T7_lifecycle"
BUILDERS: dict[str, Callable[[np.random.Generator, int], Draft]] = {
    "buyer_cancel": buyer_cancel, "buyer_dispute": buyer_dispute, "buyer_exchange": buyer_exchange,
    "buyer_return_refund": buyer_return_refund, "merchant_cancel": merchant_cancel,
    "merchant_dispute": merchant_dispute, "merchant_exchange": merchant_exchange,
    "merchant_ledger_close": merchant_ledger_close, "merchant_refund": merchant_refund,
    "merchant_return_authorization": merchant_return_authorization,
}
PLAN = [(cap.split("_", 1)[0], cap, 2) for cap in BUILDERS]


def _task(task_id: str, role: str, capability: str, rng: np.random.Generator, level: int) -> TaskSpec:
    d = BUILDERS[capability](rng, level)
    actor = f"{role}_0"
    return TaskSpec(
        task_id=task_id, family=FAMILY, capability=capability, role=role, actor=actor,  # type: ignore[arg-type]
        difficulty=d.difficulty, request=d.request, mandate=d.mandate, initial_state=d.state,
        counterparties=d.counterparties, settings=d.settings, max_steps=max(30, 2 * len(d.steps) + 15),
        predicates=d.predicates, reference=PolicyRef(name="lifecycle_plan", params={"steps": d.steps}),
        mutations=[MutationSpec(id=f"{task_id}/{m.name}", description=m.description,
                                policy=PolicyRef(name="lifecycle_plan", params={"steps": m.steps}),
                                lowers=m.lowers) for m in d.mutations],
    )


@register_family(FAMILY)
def build(seed: int = 0, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T7 tasks (8 Buyer, 12 Merchant), or fresh ones from ``seed``."""
    rng = np.random.default_rng([7, 2026] if frozen else [7, seed, 11])
    prefix = "capability-v1/T7" if frozen else f"generated-{seed}/T7"
    return [_task(f"{prefix}/{role}/{cap}/{i + 1:02d}", role, cap, rng, i % 2)
            for role, cap, count in PLAN for i in range(count)]
