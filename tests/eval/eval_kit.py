"""Helpers of the evaluation tests: the CLI runner, test policies, a tiny fake chat endpoint."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from acworld_env.cli import app
from acworld_env.policies.registry import make_policy

RUN_FILES = ("commits.sqlite", "run.json", "score.json", "task.json", "trace.jsonl")


def cli(*args: str | Path) -> Any:
    """Invoke ``acworld ARGS`` in-process; the result has ``exit_code`` and ``output``."""
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


class OutageError(RuntimeError):
    """Stands in for a provider error: carries a machine-friendly ``reason``."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class ScriptedFailure:
    """Wraps a task's reference policy; raises ``exc`` on the first decision."""

    def __init__(self, inner: Any, exc: BaseException) -> None:
        self.inner = inner
        self.exc = exc

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, observation: dict[str, Any]) -> Any:
        raise self.exc


def reference_unless(predicate: Any, make_exc: Any, calls: list[str] | None = None) -> Any:
    """A factory: the reference policy, except for tasks where ``predicate(task)`` holds."""
    lock = threading.Lock()

    def factory(task: Any, seed: int) -> Any:
        if calls is not None:
            with lock:
                calls.append(task.task_id)
        policy = make_policy(task.reference)
        return ScriptedFailure(policy, make_exc(task)) if predicate(task) else policy

    return factory


def files_of(root: Path) -> dict[str, bytes]:
    """Every file under ``root``, by relative path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def summary_of(out: Path) -> dict[str, Any]:
    """The ``summary.json`` of an evaluation folder."""
    return json.loads((out / "summary.json").read_text())


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default backlog of 5 delays simultaneous connects by a SYN retry
    daemon_threads = True


class FakeChat:
    """A minimal OpenAI-compatible endpoint: every request answers ``finish`` (or a fixed error status)
    after ``delay`` seconds; records the peak number of requests in flight."""

    def __init__(self, *, status: int = 200, delay: float = 0.0) -> None:
        self.status, self.delay = status, delay
        self.requests = self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length") or 0))
                with fake.lock:
                    fake.requests += 1
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    time.sleep(fake.delay)
                    body = fake.body()
                    data = json.dumps(body).encode()
                    self.send_response(fake.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    with fake.lock:
                        fake.in_flight -= 1

            def log_message(self, *args: Any) -> None:
                pass

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def body(self) -> dict[str, Any]:
        if self.status != 200:
            return {"error": {"type": "server_error", "message": "scripted outage", "code": None}}
        call = {"id": "call_0", "type": "function", "function": {"name": "finish", "arguments": "{}"}}
        return {"id": "chatcmpl-0", "object": "chat.completion", "created": 0, "model": "fake",
                "choices": [{"index": 0, "finish_reason": "tool_calls",
                             "message": {"role": "assistant", "content": None, "tool_calls": [call]}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
