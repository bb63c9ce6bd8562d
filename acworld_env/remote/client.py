"""The client env: ``acworld_env.make("capability-v1", transport="http", url=...)``.

:class:`RemoteAECEnv` is a PettingZoo AEC env whose episodes run on an ``acworld serve`` server.
Spaces, observations, rewards, infos, terminations and truncations are the local env's: the
server steps the very same env class, the client mirrors its AEC state from each reply, and
observations are encoded here from the same structured observation with the same functions.
Each step carries an ``Idempotency-Key``; a request that times out is retried with it, so a
retry never runs an action twice. Requests go over one kept-alive connection
(:class:`~acworld_env.remote.wire.Wire`, the standard library's ``http.client``).
"""

from __future__ import annotations

import contextlib
import itertools
import json as _json
import uuid
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..envs.known import Known
from ..envs.spaces import VCPActionSpace, encode_observation, observation_space
from ..envs.state import state_space
from ..observe import render_text
from ..vcp import VCPAction, parse_action
from ..vcp.union import IDLE_ACTION
from .hosted import RemoteError
from .protocol import ENV_CREDENTIAL_HEADER
from .wire import Wire, WireError

API = "/v1"


class RemoteEnvError(RemoteError):
    """The server refused a request or could not be reached."""


class RemoteAECEnv(AECEnv):
    """An acworld AEC env played on a remote server (see the module docstring)."""

    metadata: dict[str, Any] = {"name": "acworld_remote", "render_modes": ["ansi", "human"],
                                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, suite: str = "capability-v1", *, url: str, token: str | None = None,
                 timeout: float = 60.0, retries: int = 3, render_mode: str | None = None, **kwargs: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}")
        self.render_mode, self.retries = render_mode, retries
        self.url = url.rstrip("/")
        self.env_id: str | None = None
        self.http = Wire(self.url, timeout=timeout)
        if kwargs.get("tasks") is not None and not isinstance(kwargs["tasks"], str):
            kwargs["tasks"] = [t if isinstance(t, dict) else t.model_dump(mode="json") for t in kwargs["tasks"]]
        if kwargs.get("task") is not None and not isinstance(kwargs["task"], dict):
            kwargs["task"] = kwargs["task"].model_dump(mode="json")
        made = self._call("POST", f"{API}/envs", json={"suite": suite, **kwargs}, bearer=token)
        self.env_id, self._env_token = made["env_id"], made["env_token"]
        self.metadata = {**self.metadata, "name": made["name"]}
        self.possible_agents = list(made["possible_agents"])
        self._roles: dict[str, str] = dict(made["roles"])
        self._obs_space = observation_space()
        self.state_space = state_space()
        self._action_spaces: dict[str, VCPActionSpace] = {}
        self._keys = itertools.count(1)
        self._nonce = uuid.uuid4().hex[:12]
        self.episode_id: str | None = None
        self.credentials: dict[str, str] = {}
        self.summary: dict[str, Any] | None = None
        self.episode_count = 0
        self.version = 0

    # -- transport ------------------------------------------------------------------
    def _call(self, method: str, path: str, *, json: Any = None, bearer: str | None = None,
              key: str | None = None, as_host: bool = False) -> Any:
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        if key:
            headers["Idempotency-Key"] = key
        if as_host:  # this env created the episode: its replies may hold every agent's info, as locally
            headers[ENV_CREDENTIAL_HEADER] = self._env_token
        for attempt in range(self.retries + 1):
            try:
                status, ctype, data = self.http.request(method, path, json_body=json, headers=headers)
                break
            except WireError as exc:  # safe to retry an action: its Idempotency-Key dedupes it
                if attempt == self.retries or (key is None and path.endswith("/actions")):
                    raise RemoteEnvError(503, "unreachable", f"{self.url}: {exc}") from None
        if status >= 400:
            try:
                err = _json.loads(data)["error"]
            except Exception:
                err = {"code": "http_error", "message": data[:300].decode("utf-8", "replace")}
            raise RemoteEnvError(status, err.get("code", "http_error"), err.get("message", ""))
        return _json.loads(data) if ctype.startswith("application/json") else data.decode("utf-8")

    def _mirror(self, state: dict[str, Any]) -> None:
        self.agents = list(state["agents"])
        self.agent_selection = state["agent_selection"]
        self.rewards = dict(state["rewards"])
        self._cumulative_rewards = dict(state["cumulative_rewards"])
        self.terminations = dict(state["terminations"])
        self.truncations = dict(state["truncations"])
        self.infos = dict(state["infos"])
        self.version = state["version"]
        for a in state["possible_agents"]:
            if a not in self.possible_agents:
                self.possible_agents.append(a)
        self.task_id = state["task_id"]
        obs = state.get("observation")
        self._cached = (obs["agent"], self.version, obs["raw"]) if obs else None

    # -- spaces -----------------------------------------------------------------------
    def observation_space(self, agent: str) -> Any:
        """The same ``Dict`` space as the local env."""
        return self._obs_space

    def action_space(self, agent: str) -> VCPActionSpace:
        """The agent's action space, bound to its role and memory (as locally)."""
        if agent not in self._action_spaces:
            self._action_spaces[agent] = VCPActionSpace(self._roles.get(agent, "buyer"))
        return self._action_spaces[agent]

    # -- episode -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start the server env's next episode (as the local ``reset``)."""
        options = dict(options or {})
        if options.get("task") is not None and not isinstance(options["task"], dict):
            options["task"] = options["task"].model_dump(mode="json")
        started = self._call("POST", f"{API}/envs/{self.env_id}/reset", json={"seed": seed, "options": options},
                             bearer=self._env_token)
        self.episode_id, self.credentials = started["episode_id"], started["credentials"]
        self._roles.update(started["roles"])
        self.summary = None
        self.episode_count += 1
        self._seen: dict[str, int] = {}
        self._known: dict[str, Known] = {}
        for a, role in started["roles"].items():
            self._known[a] = Known(actor=a, role=role)
            self.action_space(a).bind(role, self._known[a])
        self._mirror(started["state"])
        self.actors = list(self.agents)

    def raw_observation(self, agent: str) -> dict[str, Any]:
        """The structured observation (as the local env's ``raw_observation``)."""
        if self.episode_id is None:
            raise RuntimeError("call reset() before observe()")
        if agent not in self._known:
            raise KeyError(f"{agent} is not an actor of this episode ({', '.join(self._known)})")
        cached = self._cached
        if cached is not None and cached[0] == agent and cached[1] == self.version:
            raw = cached[2]
        else:
            raw = self._call("GET", f"{API}/episodes/{self.episode_id}/observation",
                             bearer=self.credentials[agent])["raw"]
            self._cached = (agent, self.version, raw)
        self._known[agent].feed(raw)
        self._seen[agent] = len(raw["inbox"])
        return raw

    def observe(self, agent: str) -> dict[str, Any]:
        """The agent's observation, encoded exactly as the local env encodes it."""
        raw = self.raw_observation(agent)
        return encode_observation(raw, render_text(raw))

    def step(self, action: Any) -> None:
        """Send the selected agent's action; mirror the state the server returns."""
        agent = self.agent_selection
        if agent not in self.agents:
            from gymnasium import logger

            logger.warn("step() after the episode ended (no agents left) does nothing; call reset()")
            return
        live = not (self.terminations[agent] or self.truncations[agent])
        payload: Any = action
        if isinstance(action, VCPAction):
            payload = action.model_dump(mode="json", exclude_none=True)
        if live:
            parsed = parse_action(IDLE_ACTION if action is None else action)
            if isinstance(parsed, VCPAction):
                self._known[agent].feed(action=parsed.model_dump(mode="json", exclude_none=True))
        body: dict[str, Any] = {"action": payload, "seen": self._seen.pop(agent, 0), "observe": True}
        meta, self._meta = getattr(self, "_meta", None), None
        if meta:
            body["meta"] = meta
        key = f"{self._nonce}-{next(self._keys)}"
        reply = self._call("POST", f"{API}/episodes/{self.episode_id}/actions", json=body,
                           bearer=self.credentials[agent], key=key, as_host=True)
        self._mirror(reply)
        if self.render_mode == "human":
            self.render()

    def annotate(self, meta: dict[str, Any]) -> None:
        """Decision metadata for the next action's lineage record (as locally)."""
        self._meta = dict(meta)

    def known(self, agent: str) -> Known:
        """What the agent has seen so far (as locally)."""
        return self._known[agent].sync()

    # -- ending -------------------------------------------------------------------------
    def end(self) -> dict[str, Any]:
        """End the episode on the server; its summary (status, score, trace and event digests)."""
        if self.summary is None and self.episode_id is not None:
            self.summary = self._call("POST", f"{API}/episodes/{self.episode_id}/end", bearer=self._env_token)
        return self.summary or {}

    def render(self) -> str | None:
        """The transcript, from the server (``ansi``: returned; ``human``: printed)."""
        if self.render_mode is None or self.episode_id is None:
            return None
        text = self._call("GET", f"{API}/episodes/{self.episode_id}/transcript", bearer=self._env_token)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def state(self) -> Any:
        """The global state vector for centralised critics (``state_space``), as the local env's."""
        import numpy as np

        if self.episode_id is None:
            return np.zeros(self.state_space.shape, dtype=np.float32)
        data = self._call("GET", f"{API}/episodes/{self.episode_id}/state", bearer=self._env_token)
        return np.asarray(data["state"], dtype=np.float32)

    def close(self) -> None:
        """Close the server env (an open episode ends unscored) and the HTTP client."""
        if getattr(self, "env_id", None) is not None:
            with contextlib.suppress(RemoteEnvError):
                self._call("DELETE", f"{API}/envs/{self.env_id}", bearer=self._env_token)
            self.env_id = None
        if hasattr(self, "http"):
            self.http.close()


def env(**kwargs: Any) -> AECEnv:
    """The remote env with PettingZoo's order-enforcing wrapper (as the local ``env()``)."""
    return wrappers.OrderEnforcingWrapper(RemoteAECEnv(**kwargs))
