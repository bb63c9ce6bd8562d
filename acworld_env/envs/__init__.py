"""Environments: the PettingZoo AEC market, its parallel and Gymnasium single-agent views, spaces, state.

Versioned modules in PettingZoo's convention: :mod:`acworld_env.envs.capability_v1` and
:mod:`acworld_env.envs.demo_v1` (``env``, ``raw_env``, ``parallel_env``).

The names below are imported on first use, so that making an env (``acworld_env.make``) does not
import the spaces and the action models it only needs once an episode is played.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import capability_v1, demo_v1
    from .aec import AcworldAECEnv, env, raw_env
    from .gym_env import AcworldGymEnv
    from .known import Known
    from .parallel import TurnParallelEnv
    from .spaces import VCPActionSpace, decode_observation, observation_space

_HOMES = {"capability_v1": None, "demo_v1": None, "AcworldAECEnv": "aec", "env": "aec", "raw_env": "aec",
          "AcworldGymEnv": "gym_env", "Known": "known", "TurnParallelEnv": "parallel", "VCPActionSpace": "spaces",
          "decode_observation": "spaces", "observation_space": "spaces"}
"""Each exported name -> the module of this package that defines it (None: the name is a module)."""

__all__ = ["AcworldAECEnv", "AcworldGymEnv", "Known", "TurnParallelEnv", "VCPActionSpace", "capability_v1",
           "decode_observation", "demo_v1", "env", "observation_space", "raw_env"]


def __getattr__(name: str) -> Any:
    """An exported name, imported from its module on first use."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    home = _HOMES[name]
    module = import_module(f".{home or name}", __name__)
    return module if home is None else getattr(module, name)
