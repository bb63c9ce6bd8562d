"""Sessions each server holds at once, and their step latency: HTTP, MCP and OpenEnv on 127.0.0.1.

Each server is started by its own command (``acworld serve``, ``acworld mcp --transport http``,
``acworld serve --openenv``) as a child process on a free loopback port; this process is the client.
K sessions are opened first and all held at once (a barrier: none steps before every one is open),
then they are stepped concurrently through to the end of their episodes; every step is timed from
request to reply. Client and server share the machine's cores.

* HTTP: K threads, each on its own kept-alive connection, each playing one task's reference
  (:class:`~acworld_env.remote.load.ReferencePlay`); the server's ``/v1/health`` counts the
  episodes held while all K are open; each episode ends scored; each session then plays its task
  again for the remaining rounds.
* MCP: one server hosts one episode (its design); K MCP sessions (the official SDK's client over
  streamable HTTP) are initialised and list their tools; then one plays the episode's reference
  through the VCP tools while the others read the observation (``acworld_observe``) as often.
* OpenEnv: K WebSocket sessions (:class:`~acworld_env.integrations.openenv.AcworldEnv`) each reset
  to a task and replay its reference (again for the remaining rounds, on the same session); each
  episode must end with the local run's score and trace digest.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .measure import ENV_ID

BARRIER_TIMEOUT = 180.0


@contextlib.contextmanager
def served(args: list[str], *, startup_timeout: float = 90.0) -> Iterator[tuple[str, str]]:
    """``acworld ARGS --port P`` in a child process on a free loopback port: ``(its URL, the command shown)``
    once it accepts connections; ended on exit."""
    from ..remote.serve import free_port

    port = free_port()
    args = [*args, "--port", str(port)]
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen([sys.executable, "-m", "acworld_env.cli", *args], stdout=subprocess.DEVNULL,
                                stderr=log)
        try:
            deadline = time.monotonic() + startup_timeout
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        log.seek(0)
                        tail = log.read()[-600:].decode("utf-8", "replace").strip().splitlines()
                        raise RuntimeError(f"acworld {' '.join(args)} did not start: "
                                           f"{tail[-1] if tail else 'no output'}") from None
                    time.sleep(0.05)
            yield f"http://127.0.0.1:{port}", "acworld " + " ".join(args[:-2] + ["--port", "PORT"])
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def reference_plan(task_id: str) -> dict[str, Any]:
    """A task's reference actions (episode seed 0) as JSON objects, with the local run's score and trace digest."""
    import acworld_env

    from ..envs.spaces import decode_observation
    from ..policies.make import make_policy
    from ..vcp.union import IDLE_ACTION

    env = acworld_env.make(ENV_ID)
    raw = env.unwrapped
    env.reset(seed=0, options={"task_id": task_id})
    policy = make_policy(raw.task.reference)
    policy.reset(0)
    actions: list[dict[str, Any]] = []
    for _agent in env.agent_iter(max_iter=1000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = policy.act(decode_observation(obs))
        action = IDLE_ACTION if action is None else action
        if hasattr(action, "model_dump"):
            action = action.model_dump(mode="json", exclude_none=True)
        action = json.loads(json.dumps(action))
        actions.append(action)
        env.step(action)
    return {"task_id": task_id, "actions": actions, "score": raw.score.score,
            "trace_digest": raw.episode.market.trace.digest}


def _latency(name: str, command: str, k: int, latencies: list[float], wall: float, **extra: Any) -> dict[str, Any]:
    from ..remote.probes import percentile

    ms = 1000.0
    return {"server": name, "command": command, "sessions": k, "steps": len(latencies),
            "p50_ms": round(percentile(latencies, 0.50) * ms, 2), "p99_ms": round(percentile(latencies, 0.99) * ms, 2),
            "max_ms": round(max(latencies, default=0.0) * ms, 2), "wall_s": round(wall, 3),
            "steps_per_s": round(len(latencies) / wall, 1) if wall else 0.0, **extra}


def http_sessions(k: int, task_ids: list[str], rounds: int = 1) -> dict[str, Any]:
    """K HTTP episodes held at once by ``acworld serve``, then played to the end concurrently; each session
    then plays ``rounds - 1`` more episodes in turn."""
    import httpx

    from ..remote.load import API, ReferencePlay
    from ..remote.wire import Wire
    from ..tasks.suites import load_suite

    specs = {t.task_id: t for t in load_suite(ENV_ID, "frozen", 0)}
    opened, released = threading.Barrier(k + 1, timeout=BARRIER_TIMEOUT), threading.Barrier(k + 1,
                                                                                               timeout=BARRIER_TIMEOUT)
    latencies: list[float] = []
    with served(["serve"]) as (url, command):
        def one(i: int) -> dict[str, Any]:
            wire = Wire(url)

            def call(method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
                status, _, data = wire.request(method, API + path, json_body=body, headers=headers)
                if status >= 400:
                    raise RuntimeError(f"{method} {path}: {status} {data[:200]!r}")
                return json.loads(data)

            spec = specs[task_ids[i % len(task_ids)]]
            summaries = []
            try:
                for r in range(rounds):
                    play = ReferencePlay(spec)
                    if r == 0:
                        try:
                            play.begin(call("POST", "/episodes", play.start))
                            opened.wait()
                            released.wait()
                        except BaseException:
                            opened.abort()
                            released.abort()
                            raise
                    else:
                        play.begin(call("POST", "/episodes", play.start))
                    while (request := play.next_action()) is not None:
                        t0 = time.perf_counter()
                        state = call("POST", *request)
                        latencies.append(time.perf_counter() - t0)
                        play.reply(state)
                    summaries.append(call("POST", play.end[0], None, play.end[1]))
                return summaries
            finally:
                wire.close()

        with ThreadPoolExecutor(max_workers=k) as pool:
            futures = [pool.submit(one, i) for i in range(k)]
            try:
                opened.wait()
                held = httpx.get(f"{url}{API}/health", timeout=30).json()["episodes"]
                t0 = time.perf_counter()
                released.wait()
            except threading.BrokenBarrierError:
                _raise_first(futures)
                raise
            summaries = [s for f in futures for s in f.result()]
            wall = time.perf_counter() - t0
    scored = sum(s.get("status") == "scored" for s in summaries)
    return _latency("HTTP", command, k, latencies, wall, held=held, episodes=len(summaries), completed=scored,
                    check="every episode ended with status scored")


def _raise_first(futures: list[Any]) -> None:
    """Raise the error of the session that broke the barrier (not the others' broken-barrier errors)."""
    errors = [f.exception() for f in futures]
    for exc in errors:
        if exc is not None and not isinstance(exc, threading.BrokenBarrierError):
            raise exc


def openenv_sessions(k: int, plans: list[dict[str, Any]], rounds: int = 1) -> dict[str, Any]:
    """K OpenEnv WebSocket sessions reset at once by ``acworld serve --openenv``, then stepped concurrently;
    each session then resets and replays ``rounds - 1`` more times."""
    from ..integrations.openenv import AcworldEnv

    latencies: list[float] = []

    async def main(url: str) -> tuple[int, int, float]:
        clients = [AcworldEnv(base_url=url, message_timeout_s=BARRIER_TIMEOUT) for _ in range(k)]
        try:
            await asyncio.gather(*(c.connect() for c in clients))
            await asyncio.gather(*(c.reset(task_id=plans[i % len(plans)]["task_id"]) for i, c in enumerate(clients)))
            states = await asyncio.gather(*(c.state() for c in clients))
            held = len({s.episode_id for s in states if s.episode_id})

            async def play(i: int, client: AcworldEnv) -> int:
                plan, matched = plans[i % len(plans)], 0
                for r in range(rounds):
                    if r:
                        await client.reset(task_id=plan["task_id"])
                    result = None
                    for action in plan["actions"]:
                        t0 = time.perf_counter()
                        result = await client.step(action)
                        latencies.append(time.perf_counter() - t0)
                    obs = result.observation if result is not None else None
                    matched += bool(result is not None and result.done and obs is not None
                                    and obs.score == plan["score"] and obs.trace_digest == plan["trace_digest"])
                return matched

            t0 = time.perf_counter()
            done = await asyncio.gather(*(play(i, c) for i, c in enumerate(clients)))
            return held, sum(done), time.perf_counter() - t0
        finally:
            await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)

    with served(["serve", "--openenv"]) as (url, command):
        held, matched, wall = asyncio.run(main(url))
    return _latency("OpenEnv", command, k, latencies, wall, held=held, episodes=k * rounds, completed=matched,
                    check="every episode ended done with the local run's score and trace digest")


def mcp_sessions(k: int, plan: dict[str, Any], reads: int = 10) -> dict[str, Any]:
    """K MCP sessions on one ``acworld mcp --transport http`` server: one plays the episode's reference while
    the others each read the observation ``reads`` times; then the player ends the episode."""
    import anyio
    from mcp import Client

    from ..remote.mcp_server import END_TOOL, OBSERVE_TOOL

    latencies: list[float] = []
    errors: list[str] = []

    async def timed(client: Any, name: str, args: dict[str, Any]) -> Any:
        t0 = time.perf_counter()
        result = await client.call_tool(name, args)
        latencies.append(time.perf_counter() - t0)
        if result.is_error:
            errors.append(f"{name}: {result.content[0].text[:120] if result.content else ''}")
        return result

    async def main(url: str) -> tuple[int, dict[str, Any], float]:
        async with contextlib.AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(Client(f"{url}/mcp")) for _ in range(k)]
            listed = [len((await c.list_tools()).tools) for c in clients]
            held = sum(n > 0 for n in listed)
            summary: dict[str, Any] = {}

            async def player(client: Any) -> None:
                for action in plan["actions"]:
                    result = await timed(client, action["kind"], {a: v for a, v in action.items() if a != "kind"})
                    if (result.structured_content or {}).get("done"):
                        break

            async def reader(client: Any) -> None:
                for _ in range(reads):
                    await timed(client, OBSERVE_TOOL, {})

            t0 = time.perf_counter()
            async with anyio.create_task_group() as group:
                group.start_soon(player, clients[0])
                for c in clients[1:]:
                    group.start_soon(reader, c)
            wall = time.perf_counter() - t0
            summary.update((await clients[0].call_tool(END_TOOL, {})).structured_content or {})
            return held, summary, wall

    with served(["mcp", ENV_ID, "--task-id", plan["task_id"], "--transport", "http"]) as (url, command):
        held, summary, wall = anyio.run(main, url)
    ok = (summary.get("status") == "scored" and summary.get("trace_digest") == plan["trace_digest"]
          and summary.get("score") == plan["score"])
    return _latency("MCP", command, k, latencies, wall, held=held, completed=int(ok) if not errors else 0,
                    episodes=1, errors=errors[:3],
                    check="one episode per server: it ends scored with the local run's trace digest; "
                          "no tool call is an error")


def sessions(quick: bool) -> dict[str, Any]:
    """All three servers, with K sessions each (smaller K in ``quick``)."""
    from .measure import sample_ids

    task_ids = sample_ids(True, per_family=1)
    plans = [reference_plan(t) for t in task_ids]
    longest = max(plans, key=lambda p: len(p["actions"]))
    k_http, k_mcp, k_openenv = (16, 8, 16) if quick else (64, 32, 64)
    rounds, reads = (1, 5) if quick else (3, 20)
    rows = []
    for name, run in (("HTTP", lambda: http_sessions(k_http, task_ids, rounds)),
                      ("MCP", lambda: mcp_sessions(k_mcp, longest, reads)),
                      ("OpenEnv", lambda: openenv_sessions(k_openenv, plans, rounds))):
        try:
            rows.append(run())
        except ImportError as exc:
            rows.append({"server": name, "skipped": f"not installed here: {exc.name}"})
    return {"tasks": task_ids, "rounds": rounds, "mcp_reads": reads, "rows": rows}
