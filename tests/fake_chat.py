"""A fake chat endpoint shared by the tests: OpenAI and Anthropic wire formats, always ``finish``."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default backlog of 5 delays simultaneous connects by a SYN retry
    daemon_threads = True


class FakeChat:
    """A minimal chat endpoint: every request answers a ``finish`` tool call (or a fixed error status)
    after ``delay`` seconds, in the OpenAI wire format, or the Anthropic one for ``.../messages``;
    records the number of requests and the peak number in flight.

    ``echo_key=True`` plays a provider that quotes the caller's API key back in a 200 reply: in the
    text content and in the ``finish`` tool call's ``summary`` argument; ``keys_seen`` collects them.

    ``hold_after=n``: the first ``n`` requests are answered; every later one waits until
    :meth:`release` (a test that interrupts an evaluation then cannot lose the race to a fast machine:
    the evaluation cannot finish before it is interrupted, however fast or slow the machine is)."""

    def __init__(self, *, status: int = 200, delay: float = 0.0, echo_key: bool = False,
                 hold_after: int | None = None) -> None:
        self.status, self.delay, self.echo_key = status, delay, echo_key
        self.hold_after = hold_after
        self.released = threading.Event()
        self.keys_seen: set[str] = set()
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
                    held = fake.hold_after is not None and fake.requests > fake.hold_after
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                key = self.headers.get("x-api-key") or (self.headers.get("authorization") or "")[len("Bearer "):]
                try:
                    if held:
                        fake.released.wait(120)
                    time.sleep(fake.delay)
                    if fake.echo_key:
                        with fake.lock:
                            fake.keys_seen.add(key)
                        body = fake.echo_body(key, anthropic=self.path.endswith("/messages"))
                    else:
                        body = fake.body(anthropic=self.path.endswith("/messages"))
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

    def body(self, *, anthropic: bool = False) -> dict[str, Any]:
        if self.status != 200:
            return {"error": {"type": "server_error", "message": "scripted outage", "code": None}}
        if anthropic:
            return {"id": "m0", "type": "message", "role": "assistant", "model": "fake", "stop_reason": "tool_use",
                    "content": [{"type": "tool_use", "id": "t0", "name": "finish", "input": {}}],
                    "usage": {"input_tokens": 10, "output_tokens": 2}}
        call = {"id": "call_0", "type": "function", "function": {"name": "finish", "arguments": "{}"}}
        return {"id": "chatcmpl-0", "object": "chat.completion", "created": 0, "model": "fake",
                "choices": [{"index": 0, "finish_reason": "tool_calls",
                             "message": {"role": "assistant", "content": None, "tool_calls": [call]}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}

    def echo_body(self, key: str, *, anthropic: bool = False) -> dict[str, Any]:
        """A 200 reply quoting ``key`` in its text and in the ``finish`` call's ``summary`` argument."""
        text, summary = f"Your key is {key}; keep it safe.", f"done (auth {key})"
        if anthropic:
            return {"id": "m0", "type": "message", "role": "assistant", "model": "fake", "stop_reason": "tool_use",
                    "content": [{"type": "text", "text": text},
                                {"type": "tool_use", "id": "t0", "name": "finish", "input": {"summary": summary}}],
                    "usage": {"input_tokens": 10, "output_tokens": 2}}
        call = {"id": "call_0", "type": "function",
                "function": {"name": "finish", "arguments": json.dumps({"summary": summary})}}
        return {"id": "chatcmpl-0", "object": "chat.completion", "created": 0, "model": "fake",
                "choices": [{"index": 0, "finish_reason": "tool_calls",
                             "message": {"role": "assistant", "content": text, "tool_calls": [call]}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}

    @property
    def root(self) -> str:
        """The server's base address (what ``ANTHROPIC_BASE_URL`` takes)."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def url(self) -> str:
        """The OpenAI-style base URL (``.../v1``)."""
        return f"{self.root}/v1"

    def release(self) -> None:
        """Answer the held requests, and every later one without holding."""
        self.released.set()

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()
