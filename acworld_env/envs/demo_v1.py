"""``demo_v1``: the demo negotiation ($80 -> $100 -> $95), as a PettingZoo versioned env module.

``demo_v1.env()``, ``demo_v1.raw_env()`` and ``demo_v1.parallel_env()`` build the environment of
``acworld_env.make("demo-v1")`` (see :mod:`acworld_env.envs.aec`).
"""

from __future__ import annotations

from .versioned import constructors

raw_env, env, parallel_env = constructors("demo", "acworld_demo_v1", "demo-v1")

__all__ = ["env", "parallel_env", "raw_env"]
