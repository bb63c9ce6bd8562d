"""Environments: the PettingZoo AEC market, its Gymnasium single-agent view, spaces and agent memory."""

from .aec import AcworldAECEnv, env, raw_env
from .gym_env import AcworldGymEnv
from .known import Known
from .spaces import VCPActionSpace, decode_observation, observation_space

__all__ = ["AcworldAECEnv", "AcworldGymEnv", "Known", "VCPActionSpace", "decode_observation", "env",
           "observation_space", "raw_env"]
