"""Wrappers: LLM chat view, discrete action menu with masks, trace recording, parallel conversion."""

from .llm import LLMView, tool_call_to_action
from .menu import LABELS, N_ACTIONS, ActionMenu, GymActionMenu
from .parallel import parallel_env, to_parallel
from .recorder import GymRecordTrace, RecordTrace, save_episode

__all__ = ["LABELS", "N_ACTIONS", "ActionMenu", "GymActionMenu", "GymRecordTrace", "LLMView", "RecordTrace",
           "parallel_env", "save_episode", "to_parallel", "tool_call_to_action"]
