"""Turn-based AEC-to-parallel conversion.

The acworld AEC env updates the market after every single action, so PettingZoo's
``aec_to_parallel`` (which needs ``is_parallelizable``) does not apply. The turn-based
conversion does: each parallel ``step(actions)`` submits the action of the agent whose turn it
is (``infos[agent]["active_agent"]`` names it) and ignores the others. With scripted
counterparties there is one agent, so every step is that agent's.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import turn_based_aec_to_parallel


def to_parallel(env: Any) -> Any:
    """A parallel view of an acworld AEC env (wrapped or not)."""
    return turn_based_aec_to_parallel(env)


def parallel_env(env_id: str = "capability-v1", **kwargs: Any) -> Any:
    """``make(env_id, **kwargs)`` as a parallel env."""
    from ..env_registry import make

    return to_parallel(make(env_id, **kwargs))
