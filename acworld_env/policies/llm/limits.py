"""Per-provider concurrency limits shared by every policy in the process.

Policies talking to the same provider at the same endpoint share one
``threading.BoundedSemaphore``, so an evaluation running many episodes in threads never
has more than ``limit`` calls in flight there. The first policy created for an endpoint
sets its limit; later ones with a different limit get a warning and share the first.
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger("acworld_env.policies.llm")

_LOCK = threading.Lock()
_SLOTS: dict[tuple[str, str], tuple[int, threading.BoundedSemaphore]] = {}


def provider_slots(provider: str, base_url: str, limit: int) -> threading.BoundedSemaphore:
    """The shared semaphore of ``(provider, base_url)``."""
    if limit < 1:
        raise ValueError(f"concurrency must be at least 1, got {limit}")
    key = (provider, base_url.rstrip("/"))
    with _LOCK:
        if key not in _SLOTS:
            _SLOTS[key] = (limit, threading.BoundedSemaphore(limit))
        elif _SLOTS[key][0] != limit:
            log.warning("%s at %s already limited to %d concurrent calls; ignoring %d",
                        provider, key[1], _SLOTS[key][0], limit)
        return _SLOTS[key][1]


def reset_limits() -> None:
    """Forget every limit (for tests)."""
    with _LOCK:
        _SLOTS.clear()
