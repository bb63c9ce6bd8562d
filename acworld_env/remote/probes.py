"""Probes of the server's limits, for the tests and ``benchmarks/bench_remote_limits.py``.

* :class:`ServerProcess`: ``acworld serve`` in a child process, whose memory (resident set and
  its peak, from ``/proc``) can be read without counting the client's own.
* :func:`send_body`: one request with a large body sent as the hostile client would (chunked, or
  with a ``Content-Length``), streamed from a generator so the client holds one chunk at a time.
* :func:`action_latencies`: actions played on open episodes, one after another, timed each, until
  told to stop (to watch other episodes while something slow happens on the server).
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .serve import free_port
from .wire import Wire

CHUNK = 64 * 1024


class ServerProcess:
    """``serve()`` in a child process on 127.0.0.1 (``with ServerProcess(token=...) as proc: proc.url``)."""

    def __init__(self, *, token: str | None = None, startup_timeout: float = 60.0) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        code = (f"from acworld_env.remote.serve import serve; serve(port={self.port}, log_level='warning', "
                f"admin_token={token!r})")
        self.log = tempfile.TemporaryFile()  # noqa: SIM115  (closed in stop(); not a pipe: a chatty server never blocks on a full one)
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + startup_timeout
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    self.log.seek(0)
                    tail = self.log.read()[-2000:].decode("utf-8", "replace")
                    raise RuntimeError(f"the server process on {self.url} did not start:\n{tail}") from None
                time.sleep(0.05)

    def status(self) -> dict[str, int]:
        """``VmRSS`` and ``VmHWM`` (peak) of the server process, in kB."""
        out: dict[str, int] = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
        return out

    def reset_peak(self) -> bool:
        """Set the process's peak resident set to its current one (Linux ``clear_refs``); False if not allowed."""
        try:
            Path(f"/proc/{self.proc.pid}/clear_refs").write_text("5")
            return True
        except OSError:
            return False

    def stop(self) -> None:
        """End the child process."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def growth_kb(proc: ServerProcess, request: Any) -> tuple[int, Any]:
    """``(kB the server's resident set grew to at its peak while request() ran, request()'s result)``.

    With ``clear_refs`` the kernel's own peak is used; otherwise the resident set is sampled
    every millisecond from another thread.
    """
    before = proc.status()["VmRSS"]
    exact = proc.reset_peak()
    top = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            top[0] = max(top[0], proc.status()["VmRSS"])
            time.sleep(0.001)

    watcher = None if exact else threading.Thread(target=sample, daemon=True)
    if watcher is not None:
        watcher.start()
    try:
        result = request()
        time.sleep(0.2)  # let the server finish with the connection
    finally:
        done.set()
        if watcher is not None:
            watcher.join()
    peak = proc.status()["VmHWM"] if exact else top[0]
    return max(0, peak - before), result


def send_body(url: str, path: str, total: int, *, headers: dict[str, str] | None = None,
              chunked: bool = True, timeout: float = 60.0) -> int:
    """Send ``POST path`` with a ``total``-byte body (``x`` bytes) as fast as the server takes it;
    the response status, or 0 when the server closed the connection without one.

    The body is written from one thread while the response is read from another, as a client
    that does not wait would: the server may answer (and close) long before the body's end.
    """
    host, port = url.split("//", 1)[1].split(":")
    sock = socket.create_connection((host, int(port)), timeout=timeout)
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", "Content-Type: application/json"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    lines.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}")
    status = [0]

    def read() -> None:
        try:
            resp = http.client.HTTPResponse(sock)
            resp.begin()
            status[0] = resp.status
        except (OSError, http.client.HTTPException):
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        piece = b"x" * CHUNK
        framed = f"{CHUNK:x}\r\n".encode() + piece + b"\r\n" if chunked else piece
        sent = 0
        while sent < total and reader.is_alive():
            sock.sendall(framed)
            sent += CHUNK
        if chunked and reader.is_alive():
            sock.sendall(b"0\r\n\r\n")
    except OSError:
        pass  # the server closed the connection: what a refusal before the body looks like
    reader.join(timeout)
    sock.close()
    return status[0]


def action_latencies(url: str, stop: threading.Event, *, task_id: str, out: list[float],
                     token: str | None = None) -> None:
    """Play ``get_balance`` actions on episodes of ``task_id`` (a new one when one ends) until ``stop``
    is set; append the seconds of each request (the actions, and the creation of each episode) to ``out``."""
    wire = Wire(url)
    admin = {"Authorization": f"Bearer {token}"} if token else {}

    def call(method: str, path: str, body: Any, headers: dict[str, str]) -> dict[str, Any]:
        t0 = time.perf_counter()
        status, _, data = wire.request(method, path, json_body=body, headers=headers)
        out.append(time.perf_counter() - t0)
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {data[:200]!r}")
        return json.loads(data)

    try:
        while not stop.is_set():
            started = call("POST", "/v1/episodes", {"task_id": task_id}, admin)
            actor = started["state"]["agent_selection"]
            cred = {"Authorization": f"Bearer {started['credentials'][actor]}"}
            path = f"/v1/episodes/{started['episode_id']}/actions"
            state = started["state"]
            while not stop.is_set() and not (state["terminations"][actor] or state["truncations"][actor]):
                state = call("POST", path, {"action": {"kind": "get_balance"}}, cred)
    finally:
        wire.close()


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (nearest rank); 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q * len(ordered) + 0.5)) - 1))]


def latencies_during(url: str, slow: Any, *, task_id: str, token: str | None = None,
                     warmup: float = 0.5) -> tuple[list[float], float]:
    """``(seconds of each request of other episodes while slow() ran, seconds slow() took)``.

    Requests run from their own thread and connection (:func:`action_latencies`) from ``warmup``
    seconds before ``slow()`` starts until it returns; those that ended meanwhile count (one that
    waited behind ``slow()`` ends after it and is counted too: it holds up the others).
    """
    stop, out = threading.Event(), []
    player = threading.Thread(target=action_latencies, args=(url, stop),
                              kwargs={"task_id": task_id, "out": out, "token": token}, daemon=True)
    player.start()
    time.sleep(warmup)
    first = len(out)
    t0 = time.perf_counter()
    try:
        slow()
    finally:
        took = time.perf_counter() - t0
        stop.set()
        player.join(timeout=30)
    return out[first:], took
