"""The typed OpenEnv client of the acworld server (``acworld serve --openenv``).

``AcworldEnv`` is an OpenEnv ``EnvClient``: async by default, ``.sync()`` for a blocking wrapper.
Actions may be :class:`~.openenv_models.AcworldAction` objects or plain dicts (a VCP action or a
tool call); results carry :class:`~.openenv_models.AcworldObservation` objects::

    from acworld_env.integrations.openenv import AcworldEnv

    with AcworldEnv(base_url="http://127.0.0.1:8765").sync() as env:
        result = env.reset(task_id="capability-v1/T4/buyer/private_value/01")
        result = env.step({"kind": "finish"})
        print(result.reward, result.observation.score, result.observation.credits)
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from .openenv_models import AcworldAction, AcworldObservation, AcworldState


class AcworldEnv(EnvClient[AcworldAction, AcworldObservation, AcworldState]):
    """Client of one acworld OpenEnv session (one WebSocket: one actor of one episode at a time)."""

    def _step_payload(self, action: AcworldAction | dict[str, Any]) -> dict[str, Any]:
        """The action as the server's JSON (a dict is sent as it is)."""
        if isinstance(action, dict):
            return action
        return action.model_dump(exclude_unset=True, exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[AcworldObservation]:
        """The server's reply as a step result with a typed observation."""
        obs = AcworldObservation.model_validate({**payload.get("observation", {}), "reward": payload.get("reward"),
                                                 "done": payload.get("done", False)})
        return StepResult(observation=obs, reward=payload.get("reward"), done=bool(payload.get("done", False)))

    def _parse_state(self, payload: dict[str, Any]) -> AcworldState:
        """The session's state."""
        return AcworldState.model_validate(payload)
