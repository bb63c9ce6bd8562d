"""Environments: the PettingZoo AEC market, its parallel and Gymnasium single-agent views, spaces, state.

Versioned modules in PettingZoo's convention: :mod:`acworld_env.envs.capability_v1` and
:mod:`acworld_env.envs.demo_v1` (``env``, ``raw_env``, ``parallel_env``).
"""

from . import capability_v1, demo_v1
from .aec import AcworldAECEnv, env, raw_env
from .gym_env import AcworldGymEnv
from .known import Known
from .parallel import TurnParallelEnv
from .spaces import VCPActionSpace, decode_observation, observation_space

__all__ = ["AcworldAECEnv", "AcworldGymEnv", "Known", "TurnParallelEnv", "VCPActionSpace", "capability_v1",
           "decode_observation", "demo_v1", "env", "observation_space", "raw_env"]
