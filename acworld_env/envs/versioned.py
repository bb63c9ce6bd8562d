"""What the versioned environment modules share: the three PettingZoo constructors of one suite.

A module such as :mod:`acworld_env.envs.capability_v1` is PettingZoo's convention
(``pettingzoo.classic.rps_v2``): module-level ``env`` (the AEC env with the order-enforcing
wrapper), ``raw_env`` (unwrapped) and ``parallel_env`` (turn-based parallel view), each taking the
keyword arguments of :class:`~acworld_env.envs.aec.AcworldAECEnv`. ``env`` and ``parallel_env``
also take ``transport="http", url=..., token=...`` (as ``acworld_env.make``): the same env played
on an ``acworld serve`` server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .aec import AcworldAECEnv
from .parallel import TurnParallelEnv


def constructors(suite: str, name: str, env_id: str | None = None
                 ) -> tuple[Callable[..., AcworldAECEnv], Callable[..., AECEnv], Callable[..., TurnParallelEnv]]:
    """``(raw_env, env, parallel_env)`` for ``suite``, named ``name`` in ``metadata``; ``env_id`` (default
    ``suite``) is the registered id a remote transport asks the server for."""

    def raw_env(**kwargs: Any) -> AcworldAECEnv:
        return AcworldAECEnv(**{"suite": suite, "name": name, **kwargs})

    def env(**kwargs: Any) -> AECEnv:
        if kwargs.get("transport", "local") != "local":
            from ..env_registry import make

            return make(env_id or suite, **kwargs)
        kwargs.pop("transport", None)
        return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))

    def parallel_env(**kwargs: Any) -> TurnParallelEnv:
        return TurnParallelEnv(env(**kwargs))

    raw_env.__doc__ = f"The unwrapped AEC env of the {suite!r} suite (keyword arguments: see ``AcworldAECEnv``)."
    env.__doc__ = f"The AEC env of the {suite!r} suite with PettingZoo's order-enforcing wrapper."
    parallel_env.__doc__ = f"The turn-based parallel env of the {suite!r} suite."
    return raw_env, env, parallel_env
