"""One actor of a hosted episode, played from its own process with its own credential: a *seat*.

With every actor an agent (``counterparties="agents"``), an episode on an ``acworld serve`` server
hands out one credential per actor. :func:`open_seats` starts such an episode and returns them;
each goes to a separate process, which plays its actor with a :class:`Seat`::

    seats = open_seats("http://127.0.0.1:8765", task_id="capability-v1/T4/buyer/zopa/01")
    # in the Buyer's process, holding only seats.credentials["buyer_0"]:
    Seat(url, seats.episode_id, credential).play(policy)

:meth:`Seat.play` is the loop a local two-sided run plays (:func:`acworld_env.eval.two_sided.run_cast`)
with this actor's part of it done over HTTP: wait for its turn (one long-polling
``GET /v1/episodes/{id}?wait=S``), read its own observation, act with its own credential (the
observation's inbox count as ``seen``, as a local step takes it), and once it is done step out
with ``None``. The server runs every step through the same env class, so two seats give the
same trace digest as the same two policies in one process. A seat sees only what its
credential may (:mod:`acworld_env.remote.views`): its observation, its own info and reward, the
public turn state. Acting as another actor is refused (403 ``wrong_actor``), and nothing reaches
the World.

The module needs only the standard library (and :mod:`.wire`): a seat's process imports no env
stack of its own, and holds no task spec unless its policy needs one.
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import AcworldError
from .wire import Wire, WireError

API = "/v1"
TURN_WAIT_S = 10.0
"""Seconds one status request waits on the server for this actor's turn."""
PATIENCE_S = 600.0
"""Seconds a seat waits for the episode to move (another seat's turn) before it gives up."""


class SeatRefused(AcworldError, RuntimeError):
    """The server refused a seat's request (``status``, ``code``) or could not be reached (status 503)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


@dataclass
class Seats:
    """A started episode with every actor an agent: its ids and one credential per actor."""

    url: str
    episode_id: str
    env_id: str
    env_token: str
    task_id: str
    roles: dict[str, str]
    """Actor -> role."""
    credentials: dict[str, str]
    """Actor -> its credential (give each to its own process only)."""


@dataclass
class SeatResult:
    """What a seat did and how its episode ended."""

    actor: str
    role: str | None
    actions: int
    """Actions it took (its stepping out not counted)."""
    info: dict[str, Any] = field(default_factory=dict)
    """Its last info before it stepped out (its own score by its own rubric, credits, validation)."""
    summary: dict[str, Any] | None = None
    """The episode's summary as this seat may read it (None when the episode had not ended)."""

    @property
    def score(self) -> float | None:
        """Its own score: the info's, else the summary's (the evaluated actor's ``score``, another's ``side_scores``)."""
        if self.info.get("score") is not None:
            return float(self.info["score"])
        s = self.summary or {}
        own = (s.get("side_scores") or {}).get(self.actor)
        return float(own) if own is not None else None


def _call(wire: Wire, method: str, path: str, *, bearer: str | None, body: Any = None, key: str | None = None,
          retries: int = 3) -> Any:
    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
    if key:
        headers["Idempotency-Key"] = key
    for attempt in range(retries + 1):
        try:
            status, _ctype, data = wire.request(method, path, json_body=body, headers=headers)
            break
        except WireError as exc:  # an action is retried only with its Idempotency-Key (it never runs twice)
            if attempt == retries or (method == "POST" and path.endswith("/actions") and not key):
                raise SeatRefused(503, "unreachable", str(exc)) from None
            time.sleep(0.05 * (attempt + 1))
    try:
        doc = json.loads(data) if data else {}
    except ValueError:
        doc = {"error": {"code": "http_error", "message": data[:200].decode("utf-8", "replace")}}
    if status >= 400:
        err = doc.get("error") if isinstance(doc, dict) else None
        err = err if isinstance(err, dict) else {"code": "http_error", "message": str(doc)[:200]}
        raise SeatRefused(status, str(err.get("code", "http_error")), str(err.get("message", "")))
    return doc


def open_seats(url: str, *, task_id: str, episode_seed: int = 0, suite: str = "capability-v1",
               split: str = "frozen", seed: int | None = None, token: str | None = None,
               timeout: float = 120.0) -> Seats:
    """Start an episode of ``task_id`` with every actor an agent; its credentials, one per actor.

    ``token``: the server's admin credential, if it has one. ``seed``: the task-generation seed of
    a generated split. Refusals raise :class:`SeatRefused` with the server's code.
    """
    wire = Wire(url, timeout=timeout)
    try:
        body: dict[str, Any] = {"suite": suite, "split": split, "task_id": task_id, "counterparties": "agents",
                                "episode_seed": episode_seed}
        if seed is not None:
            body["seed"] = seed
        made = _call(wire, "POST", f"{API}/episodes", bearer=token, body=body)
    finally:
        wire.close()
    return Seats(url.rstrip("/"), made["episode_id"], made["env_id"], made["env_token"],
                 made["state"].get("task_id") or task_id, dict(made["roles"]), dict(made["credentials"]))


class Seat:
    """One actor's seat: its credential, and requests made with it only (see the module docstring)."""

    def __init__(self, url: str, episode_id: str, credential: str, *, timeout: float = 60.0) -> None:
        if not credential or not credential.strip():
            raise ValueError("a seat needs its actor's credential")
        self.url, self.episode_id, self.credential = url.rstrip("/"), episode_id, credential.strip()
        self.wire = Wire(self.url, timeout=timeout + 30.0)  # a long poll may hold a request for TURN_WAIT_S
        self.actor: str | None = None
        self._keys = itertools.count(1)
        self._nonce = uuid.uuid4().hex[:12]

    def _request(self, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
        return _call(self.wire, method, f"{API}/episodes/{self.episode_id}{path}", bearer=self.credential,
                     body=body, key=key)

    def status(self, wait: float = 0.0) -> dict[str, Any]:
        """The episode's state as this actor sees it; ``wait``: hold until its turn (or the end), up to that long."""
        state = self._request("GET", f"?wait={wait:g}" if wait else "")
        self.actor = state.get("actor") or self.actor
        return state

    def observe(self) -> dict[str, Any]:
        """This actor's own structured observation."""
        return self._request("GET", "/observation")["raw"]

    def act(self, action: Any, *, seen: int | None = None, meta: dict[str, Any] | None = None,
            claim: str | None = None) -> dict[str, Any]:
        """Submit one action as this actor (``None`` idles, or steps out a finished actor); the state after it.

        ``seen``: how many inbox messages the observation acted on showed. ``claim``: the actor the
        request says it acts as (the server refuses any but the credential's own: 403 ``wrong_actor``).
        """
        body: dict[str, Any] = {"action": action}
        if seen is not None:
            body["seen"] = seen
        if meta:
            body["meta"] = meta
        if claim is not None:
            body["actor"] = claim
        return self._request("POST", "/actions", body=body, key=f"{self._nonce}-{next(self._keys)}")

    def end(self) -> dict[str, Any]:
        """End the episode (scored once every actor is done) and return its summary as this actor may read it."""
        return self._request("POST", "/end")

    def play(self, policy: Any, *, on_observation: Callable[[dict[str, Any]], None] | None = None,
             turn_wait: float = TURN_WAIT_S, patience: float = PATIENCE_S) -> SeatResult:
        """Play this actor with ``policy`` (``act(observation) -> action``; reset it first) until it is out.

        ``on_observation`` sees every observation the policy is given. Once out, the seat waits for
        the episode to end (every other actor out too), ends it (an ended episode is scored: its
        summary has the trace digest and, with ``acworld serve --runs``, a verifiable run) and
        returns its result. :class:`SeatRefused` when the server refuses a request or the episode
        does not move for ``patience`` seconds.
        """
        state = self.status()
        me = self.actor
        assert me is not None
        role, info, actions = None, dict(state.get("infos", {}).get(me) or {}), 0
        role = info.get("role")
        moved, version = time.monotonic(), state.get("version")
        while state.get("summary") is None and me in state.get("agents", []):
            if state.get("version") != version:
                moved, version = time.monotonic(), state.get("version")
            elif time.monotonic() - moved > patience:
                raise SeatRefused(504, "no_progress", f"episode {self.episode_id} did not move for {patience:g} s")
            if state.get("agent_selection") != me:
                state = self.status(wait=turn_wait)
                continue
            if state["terminations"].get(me) or state["truncations"].get(me):
                state = self.act(None)  # finished: step out, as a local loop does
                continue
            raw = self.observe()
            if on_observation is not None:
                on_observation(raw)
            action = policy.act(raw)
            state = self.act(action, seen=len(raw.get("inbox") or []), meta=getattr(policy, "last_meta", None))
            actions += 1
            info = dict(state.get("infos", {}).get(me) or info)
        summary = state.get("summary") or self._await_end(patience)
        return SeatResult(me, role, actions, info, summary)

    def _await_end(self, patience: float) -> dict[str, Any] | None:
        """Once out: wait until no actor is left, then end the episode; its summary."""
        deadline, pause = time.monotonic() + patience, 0.01
        while time.monotonic() < deadline:
            state = self.status()
            if state.get("summary") is not None:
                return state["summary"]
            if state.get("done"):
                return self.end()
            time.sleep(pause)
            pause = min(0.5, pause * 1.5)  # the others may be slow (a model's turn): back off
        return None

    def close(self) -> None:
        """Close the connection."""
        self.wire.close()
