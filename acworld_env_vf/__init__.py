"""The acworld verifiers taskset under a top-level name, so ``vf-eval`` loads it by id.

verifiers resolves a taskset id to a top-level module (``id = "acworld_env_vf"``); the taskset
itself lives in :mod:`acworld_env.integrations.vf_acworld`. Importing this imports verifiers.
"""

from acworld_env.integrations.vf_acworld import (
    AcworldConfig,
    AcworldTask,
    AcworldTaskset,
    AcworldVerifiersEnv,
)

__all__ = ["AcworldConfig", "AcworldTask", "AcworldTaskset", "AcworldVerifiersEnv"]
