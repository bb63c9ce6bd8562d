"""Request bodies of the HTTP API, and its OpenAPI action schema built from the VCP union itself.

An action's body is ``{"action": <VCP action>, "meta": {...}, "seen": n, "actor": "..."}``. The
``action`` field is documented with the union's own JSON schema (:data:`acworld_env.vcp.union.ACTION_ADAPTER`),
but it is not rejected by the HTTP layer when it does not fit: like a local env, the server hands
it to ``Market.submit``, which records an unreadable or invalid action as a rejection with a code.
Only a body that is not JSON, too large, not an object with ``action``, or holding a number no
route can use (an integer of more than :data:`~acworld_env.remote.bodies.MAX_INT_DIGITS` digits,
``NaN``, an overflowing float) is refused (400/413/422) before anything reaches the market.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..vcp.union import ACTION_ADAPTER, MAX_ACTION_BYTES
from .bodies import parse_json
from .records import RemoteError

MAX_BODY_BYTES = 4 * MAX_ACTION_BYTES + 16_384
"""Largest action request body; reading stops there with a 413."""
MAX_CONFIG_BYTES = 2 * 1024 * 1024
"""Largest body creating an env or an episode, or resetting one (tasks sent as data fit: a task is ~4 KB)."""
API_PREFIX = "/v1"
ENV_CREDENTIAL_HEADER = "X-Env-Credential"
"""Header of an action request that also carries the env's credential: the reply is then the host's view."""


class EnvConfig(BaseModel):
    """Arguments of the hosted env: the same as ``acworld_env.make(env_id, ...)`` takes."""

    model_config = ConfigDict(extra="forbid")

    suite: str = Field("capability-v1", description="Task suite, e.g. capability-v1 or demo.")
    split: str = Field("frozen", description="frozen (published tasks) or generated (fresh from seed).")
    seed: int | None = Field(None, description="Task-generation seed of the generated split.")
    tasks: str | list[Any] | None = Field(None, description="Glob over task ids, or task specs (TaskSpec objects).")
    task_id: str | None = Field(None, description="Always play this task.")
    task: dict[str, Any] | None = Field(None, description="Always play this task spec.")
    catalog: str | None = Field(None, description="A catalog the server offers (acworld serve --catalog NAME=PATH): "
                                                   "the large-catalog track's tasks generated over it from seed.")
    counterparties: str = Field("scripted", description="scripted, or agents (every actor is an agent).")
    reward: str = Field("potential", description="potential, terminal or success.")
    score: str = Field("score", description="The figure rewards pay: score (weighted) or safe (safe_score).")
    hints: str = Field("off", description="off or structured.")
    max_cycles: int | None = Field(None, ge=1, description="Cap on each agent's actions.")
    name: str | None = Field(None, description="metadata name of the env.")


class ResetRequest(BaseModel):
    """A reset: the episode seed, and options (``task_id`` or ``task``) as the env's ``reset`` takes."""

    model_config = ConfigDict(extra="forbid")

    seed: int | None = None
    options: dict[str, Any] | None = None


class EpisodeRequest(EnvConfig):
    """Create an env and start its first episode in one call (a task id, or a generated split's seed)."""

    episode_seed: int | None = Field(None, description="The episode seed (reset seed); default 0.")


def parse_action_body(body: bytes) -> dict[str, Any]:
    """The JSON object of an action request, or a :class:`RemoteError` (400 malformed, 422 not an action request)."""
    if len(body) > MAX_BODY_BYTES:
        raise RemoteError(413, "body_too_large", f"request body of {len(body)} bytes; the limit is {MAX_BODY_BYTES}")
    data = parse_json(body)
    if not isinstance(data, dict) or "action" not in data:
        raise RemoteError(422, "bad_request", 'an action request is a JSON object {"action": {...}, "meta": {...}}')
    unknown = sorted(set(data) - {"action", "meta", "seen", "actor", "observe"})
    if unknown:
        raise RemoteError(422, "bad_request", f"unknown field(s) {unknown} in the action request")
    if data.get("meta") is not None and not isinstance(data["meta"], dict):
        raise RemoteError(422, "bad_request", "meta must be a JSON object")
    seen = data.get("seen")
    if seen is not None and (not isinstance(seen, int) or isinstance(seen, bool) or not 0 <= seen <= 10_000):
        raise RemoteError(422, "bad_request", "seen must be a number of messages (0 to 10000)")
    if data.get("actor") is not None and not isinstance(data["actor"], str):
        raise RemoteError(422, "bad_request", "actor must be a string")
    return data


@cache
def request_schemas() -> dict[str, Any]:
    """OpenAPI component schemas of the creation and reset bodies (``EnvConfig``, ``EpisodeRequest``, ``ResetRequest``)."""
    out: dict[str, Any] = {}
    for model in (EnvConfig, EpisodeRequest, ResetRequest):
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        out.update(schema.pop("$defs", {}))
        out[model.__name__] = schema
    return out


@cache
def action_schemas() -> dict[str, Any]:
    """OpenAPI component schemas: every VCP action class, ``VCPAction`` (their union) and ``ActionRequest``."""
    schema = ACTION_ADAPTER.json_schema(ref_template="#/components/schemas/{model}")
    components = dict(schema.pop("$defs", {}))
    components["VCPAction"] = schema
    components["ActionRequest"] = {
        "type": "object", "title": "ActionRequest", "required": ["action"],
        "properties": {
            "action": {"anyOf": [{"$ref": "#/components/schemas/VCPAction"}, {"type": "null"}],
                       "description": "One VCP action (null: idle, read the unread inbox). An action that "
                                      "does not validate is recorded as a rejection, as in a local run."},
            "meta": {"type": "object", "description": "Decision metadata stored with the lineage record."},
            "seen": {"type": "integer", "minimum": 0,
                     "description": "Inbox messages the observation acted on showed (default: the last GET)."},
            "actor": {"type": "string", "description": "The actor you act as; must be your credential's."},
            "observe": {"type": "boolean", "description": "Return your next observation with the reply."},
        },
    }
    return components
