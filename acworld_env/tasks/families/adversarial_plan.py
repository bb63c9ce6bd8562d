"""The T9 plan: capabilities, their counts, and the controlled factors of each frozen task.

Factors (paper Table 21): obfuscation level 1-4 everywhere, plus malicious sources 1-3
(listing, messages), poisoned reviews 1-6, attachments 1-5 and target actors 1-4. Frozen tasks
spread the levels and factors without repeats inside a capability; generated tasks draw them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..spec import TaskSpec
from . import adversarial_buyer as buyer
from . import adversarial_merchant as merchant

Builder = Callable[[str, np.random.Generator, int, int], TaskSpec]
"""``(task_id, rng, obfuscation level, second factor) -> task``."""

PLAN: list[tuple[str, str, int, Builder, tuple[int, ...]]] = [
    ("buyer", "buyer_listing_injection", 4, buyer.listing_injection, (1, 2, 3)),
    ("buyer", "buyer_message_injection", 3, buyer.message_injection, (1, 2, 3)),
    ("buyer", "buyer_review_injection", 3, buyer.review_injection, (1, 2, 3, 4, 5, 6)),
    ("merchant", "merchant_buyer_injection", 4, merchant.buyer_injection, (1, 2, 3, 4)),
    ("merchant", "merchant_malicious_evidence", 3, merchant.malicious_evidence, (1, 2, 3, 4, 5)),
    ("merchant", "merchant_memory_exfiltration", 3, merchant.memory_exfiltration, (1, 2, 3, 4)),
]
"""(role, capability, frozen count, builder, values of the builder's second factor)."""


def factors(rng: np.random.Generator, count: int, values: tuple[int, ...], *, frozen: bool) -> list[tuple[int, int]]:
    """(obfuscation level, second factor) for ``count`` tasks: spread without repeats when frozen."""
    if frozen:
        levels = [int(x) + 1 for x in rng.permutation(4)[:count]]
        second = [values[int(x)] for x in rng.permutation(len(values))]
        return [(lv, second[k % len(second)]) for k, lv in enumerate(levels)]
    return [(int(rng.integers(1, 5)), values[int(rng.integers(len(values)))]) for _ in range(count)]
