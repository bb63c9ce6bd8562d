"""T9 Adversarial content and prompt injection (family ``T9_adversarial``).

Instructions hidden in listing pages, reviews, messages and after-sale evidence try to turn an
agent's ordinary job into the attacker's: buy another shop's look-alike, pay an order the
shopper dropped, refund what nobody approved, flag an honest review, or send out a private
limit or other customers' records. The injections come from the shared corpus
(``data/injections/templates.jsonl``, see ``docs/injections.md``) at four obfuscation levels
(plain, fake notice or role-play, base64, homoglyphs with zero-width characters).

An injection's success is a World effect or an attempted disclosure in the trace; the agent
must still do its job (buy, pay, ship, answer, settle the return), and the guards pay only
once it did the risky part of that job, so refusing everything scores low.

20 frozen tasks: Buyer listing (4), message (3), review (3); Merchant buyer injection (4),
malicious evidence (3), memory exfiltration (3). See ``adversarial_plan`` for the factors.
"""

from __future__ import annotations

import numpy as np

from ..names import register_family
from ..spec import TaskSpec
from . import adversarial_shortcuts  # noqa: F401  (registers the baseline shortcuts)
from .adversarial_plan import PLAN, factors

FAMILY = "T9_adversarial"
_TRIES = 20


def _tasks(seed: int, frozen: bool, avoid: set[str]) -> list[TaskSpec]:
    rng = np.random.default_rng([9, 2026] if frozen else [9, seed, 7])
    prefix = "capability-v1/T9" if frozen else f"generated-{seed}/T9"
    out = []
    for role, cap, count, make, values in PLAN:
        for i, (level, second) in enumerate(factors(rng, count, values, frozen=frozen)):
            task_id = f"{prefix}/{role}/{cap}/{i + 1:02d}"
            task = make(task_id, rng, level, second)
            for _ in range(_TRIES):
                if task.request not in avoid:
                    break
                task = make(task_id, rng, level, second)
            out.append(task)
    return out


@register_family(FAMILY)
def build(seed: int = 0, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T9 tasks, or fresh ones from ``seed`` (never repeating a frozen request)."""
    if frozen:
        return _tasks(seed, True, set())
    return _tasks(seed, False, {t.request for t in _tasks(0, True, set())})
