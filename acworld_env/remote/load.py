"""Many HTTP episodes at once from one client process, for the load test and the benchmark.

Two clients: asyncio + httpx (:func:`run_load`), and threads each holding one kept-alive
standard-library connection (:func:`run_load_threads`, a lighter client, so the figures are more
the server's).

Each episode is a task's reference policy played over the plain HTTP API, one request per action
(``observe: true`` returns the next observation with the reply; ``seen`` says how much of it the
policy acted on), then ended; the server writes each scored run, which the caller can verify.
"""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..policies.make import make_policy
from ..tasks.spec import TaskSpec
from .wire import Wire

API = "/v1"


@dataclass
class LoadReport:
    """What a load run did: per-episode summaries, action latencies (seconds) and wall time."""

    summaries: list[dict[str, Any]] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    wall: float = 0.0

    @property
    def actions(self) -> int:
        """Actions submitted in all."""
        return len(self.latencies)


class ReferencePlay:
    """A task's reference policy played over the HTTP API, request by request, whatever the client.

    ``start`` is the body that creates the episode; feed the reply to :meth:`begin`, then send each
    request :meth:`next_action` gives (``None`` once the actor is done) and feed its reply to
    :meth:`reply`; finally send :attr:`end` (path and headers).
    """

    def __init__(self, task: TaskSpec, *, suite: str = "capability-v1", seed: int = 0) -> None:
        self.start = {"task_id": task.task_id, "suite": suite, "episode_seed": seed}
        self.policy = make_policy(task.reference)
        self.policy.reset(seed)
        self.n = 0

    def begin(self, started: dict[str, Any]) -> None:
        """Take the created episode: its id, the first state and the actor's credential."""
        self.eid, self.state = started["episode_id"], started["state"]
        self.actor = self.state["agent_selection"]
        self.headers = {"Authorization": f"Bearer {started['credentials'][self.actor]}"}
        self.host_headers = {"Authorization": f"Bearer {started['env_token']}"}

    def next_action(self) -> tuple[str, dict[str, Any], dict[str, str]] | None:
        """``(path, body, headers)`` of the policy's next action, or None when the episode is over for it."""
        state, actor = self.state, self.actor
        if state["terminations"][actor] or state["truncations"][actor]:
            return None
        obs = state["observation"]["raw"]
        action = self.policy.act(obs)
        if action is not None and not isinstance(action, dict):
            action = action.model_dump(mode="json", exclude_none=True)
        self.n += 1
        return (f"/episodes/{self.eid}/actions", {"action": action, "seen": len(obs["inbox"]), "observe": True},
                {**self.headers, "Idempotency-Key": f"{self.eid}-{self.n}"})

    def reply(self, state: dict[str, Any]) -> None:
        """The state an action's reply carries."""
        self.state = state

    @property
    def end(self) -> tuple[str, dict[str, str]]:
        """Path and headers of the request that ends the episode (as its host: the summary names the
        run folder's server path, for the caller to verify)."""
        return f"/episodes/{self.eid}/end", self.host_headers


async def play_http(client: Any, task: TaskSpec, *, suite: str = "capability-v1", seed: int = 0,
                    latencies: list[float] | None = None) -> dict:
    """Play ``task`` (of ``suite``)'s reference over HTTP with ``client`` (an ``httpx.AsyncClient``); the end summary."""
    play = ReferencePlay(task, suite=suite, seed=seed)

    async def call(path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        resp = await client.post(API + path, json=body, headers=headers)
        resp.raise_for_status()
        return resp.json()

    play.begin(await call("/episodes", play.start))
    while (request := play.next_action()) is not None:
        t0 = time.perf_counter()
        state = await call(*request)
        if latencies is not None:
            latencies.append(time.perf_counter() - t0)
        play.reply(state)
    return await call(play.end[0], None, play.end[1])


async def _run(url: str, tasks: list[TaskSpec], concurrent: bool, timeout: float) -> LoadReport:
    import ssl

    import httpx

    report = LoadReport()
    tls = ssl.create_default_context()  # built once: a client's own costs milliseconds

    async def episode(task: TaskSpec) -> dict:
        # One small client per episode: httpcore's pool scans every pooled connection for each
        # queued request, so one client with 64 connections spends most of its time in that scan.
        async with httpx.AsyncClient(base_url=url, timeout=timeout, verify=tls) as client:
            return await play_http(client, task, latencies=report.latencies)

    t0 = time.perf_counter()
    if concurrent:
        report.summaries = list(await asyncio.gather(*(episode(t) for t in tasks)))
    else:
        report.summaries = [await episode(t) for t in tasks]
    report.wall = time.perf_counter() - t0
    return report


def run_load(url: str, tasks: list[TaskSpec], *, concurrent: bool = True, timeout: float = 120.0) -> LoadReport:
    """Play every task of ``tasks`` against the server at ``url``: all at once (one coroutine each), or in turn."""
    return asyncio.run(_run(url, tasks, concurrent, timeout))


def play_wire(url: str, task: TaskSpec, *, suite: str = "capability-v1", seed: int = 0,
              latencies: list[float] | None = None) -> dict:
    """:func:`play_http` on its own kept-alive connection (:class:`~acworld_env.remote.wire.Wire`), blocking."""
    wire = Wire(url)

    def call(method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        status, _, data = wire.request(method, API + path, json_body=body, headers=headers)
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {data[:300]!r}")
        return json.loads(data)

    play = ReferencePlay(task, suite=suite, seed=seed)
    try:
        play.begin(call("POST", "/episodes", play.start))
        while (request := play.next_action()) is not None:
            t0 = time.perf_counter()
            state = call("POST", *request)
            if latencies is not None:
                latencies.append(time.perf_counter() - t0)
            play.reply(state)
        return call("POST", play.end[0], None, play.end[1])
    finally:
        wire.close()


def run_load_threads(url: str, tasks: list[TaskSpec], *, threads: int | None = None) -> LoadReport:
    """Play every task of ``tasks`` at once, one thread (and connection) each, against the server at ``url``."""
    report = LoadReport()
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads or max(1, len(tasks))) as pool:
        report.summaries = list(pool.map(lambda t: play_wire(url, t, latencies=report.latencies), tasks))
    report.wall = time.perf_counter() - t0
    return report
