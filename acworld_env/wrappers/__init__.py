"""Wrappers: LLM chat view, discrete action menu with masks, trace recording, parallel conversion.

The RLlib adapter, :mod:`acworld_env.wrappers.rllib` (``AcworldRLlibEnv``), is imported on its own
(it tries to import ``ray.rllib``).
"""

from .llm import LLMView, tool_call_to_action
from .menu import LABELS, N_ACTIONS, ActionMenu, GymActionMenu, InvalidMenuAction
from .parallel import parallel_env, to_parallel
from .recorder import GymRecordTrace, RecordTrace, save_episode

__all__ = ["LABELS", "N_ACTIONS", "ActionMenu", "GymActionMenu", "GymRecordTrace", "InvalidMenuAction", "LLMView",
           "RecordTrace", "parallel_env", "save_episode", "to_parallel", "tool_call_to_action"]
