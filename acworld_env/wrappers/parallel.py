"""The parallel API: :func:`to_parallel` and :func:`parallel_env`.

The conversion is turn-based (see :class:`acworld_env.envs.parallel.TurnParallelEnv`): each
parallel ``step(actions)`` submits the action of the agent whose turn it is
(``infos[agent]["active_agent"]`` names it) and ignores the others. When every agent has ended,
``agents`` is empty and a further step returns five empty dicts.
"""

from __future__ import annotations

from typing import Any

from ..envs.parallel import TurnParallelEnv


def to_parallel(env: Any) -> TurnParallelEnv:
    """A parallel view of an acworld AEC env (wrapped or not, e.g. an :class:`ActionMenu`)."""
    return TurnParallelEnv(env)


def parallel_env(env_id: str = "capability-v1", **kwargs: Any) -> TurnParallelEnv:
    """``make(env_id, **kwargs)`` as a parallel env."""
    from ..env_registry import make

    return to_parallel(make(env_id, **kwargs))
