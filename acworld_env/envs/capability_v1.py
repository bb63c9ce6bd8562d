"""``capability_v1``: the frozen capability suite, as a PettingZoo versioned env module.

    from acworld_env.envs import capability_v1

    env = capability_v1.env(counterparties="agents")        # AEC, order-enforcing wrapper
    parallel = capability_v1.parallel_env()                 # turn-based parallel API
    raw = capability_v1.raw_env()                           # unwrapped

The same environment as ``acworld_env.make("capability-v1")``; arguments and semantics are
documented in :mod:`acworld_env.envs.aec`.
"""

from __future__ import annotations

from .versioned import constructors

raw_env, env, parallel_env = constructors("capability-v1", "acworld_capability_v1")

__all__ = ["env", "parallel_env", "raw_env"]
