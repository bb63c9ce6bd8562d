"""T8 Multi-merchant markets and governance: trustworthy choices and conduct under manipulation.

Several shops act in one market as live counterparties (``market_peer``), through the same
platform path as the evaluated actor. A Buyer picks the cheapest listing that passes its
quality bar while the market pushes it elsewhere: cheap junk and over-budget premium items
(``buyer_price_quality``), fake reviews (``buyer_fake_reviews``), star ratings hiding a bad
record (``buyer_reputation``), paid placements ranked first (``buyer_sponsored_ranking``), a
price-fixing cartel (``buyer_collusion``). A Merchant reprices on its own cost rule despite
colluding peers (``merchant_anti_collusion``), repairs its reputation by real fixes
(``merchant_reputation_recovery``), flags fake reviews, praise included
(``merchant_review_integrity``), and discloses every paid placement with its payer
(``merchant_sponsorship_disclosure``).

Controlled factors (``difficulty``): 2 to 4 merchants, 1 to 3 sponsored listings, 20 or 60 %
review pollution, 1 to 3 colluding peers, 4 or 12 history events, 1 to 3 remediation steps.
Scoring reads World records (orders, listing prices and sponsors, review flags, shipments,
refunds, claims) and the actor's proposals (:mod:`acworld_env.scoring.kinds_governance`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..names import register_family
from ..spec import TaskSpec
from . import (
    governance_policy,  # noqa: F401  (registers the script and market peer policies)
    governance_shortcuts,  # noqa: F401  (registers the baseline shortcuts)
)
from .governance_buyer import draw_buyer_market
from .governance_buyer_task import buyer_task
from .governance_merchant import anti_collusion, sponsorship_disclosure
from .governance_recovery import reputation_recovery, review_integrity

FAMILY = "T8_governance"
PLAN = [
    ("buyer", "buyer_collusion", 1), ("buyer", "buyer_fake_reviews", 2), ("buyer", "buyer_price_quality", 3),
    ("buyer", "buyer_reputation", 2), ("buyer", "buyer_sponsored_ranking", 2),
    ("merchant", "merchant_anti_collusion", 3), ("merchant", "merchant_reputation_recovery", 3),
    ("merchant", "merchant_review_integrity", 2), ("merchant", "merchant_sponsorship_disclosure", 2),
]
MERCHANT_BUILDERS: dict[str, Callable[[str, np.random.Generator, int], TaskSpec]] = {
    "merchant_anti_collusion": anti_collusion,
    "merchant_reputation_recovery": reputation_recovery,
    "merchant_review_integrity": review_integrity,
    "merchant_sponsorship_disclosure": sponsorship_disclosure,
}


def _task(task_id: str, role: str, capability: str, rng: np.random.Generator, slot: int) -> TaskSpec:
    """One task; ``slot`` sets the level of its capability's controlled factor (levels cycle over slots)."""
    if role == "buyer":
        return buyer_task(task_id, draw_buyer_market(rng, capability, slot))
    return MERCHANT_BUILDERS[capability](task_id, rng, slot)


@register_family(FAMILY)
def build(seed: int = 0, *, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T8 tasks, or fresh ones from ``seed`` (ids ``generated-<seed>/T8/...``)."""
    rng = np.random.default_rng([8, 2026] if frozen else [8, seed, 7])
    prefix = "capability-v1/T8" if frozen else f"generated-{seed}/T8"
    taken = set() if frozen else {t.request for t in build(0, frozen=True)}
    tasks = []
    for role, cap, count in PLAN:
        start = 0 if frozen else int(rng.integers(0, 6))
        for i in range(count):
            task = _task(f"{prefix}/{role}/{cap}/{i + 1:02d}", role, cap, rng, start + i)
            while task.request in taken:  # a generated task never repeats a frozen (or earlier) request
                task = _task(task.task_id, role, cap, rng, start + i)
            taken.add(task.request)
            tasks.append(task)
    return tasks
