"""A scripted fake of the OpenAI Chat Completions and Anthropic Messages HTTP APIs.

The real ``openai`` and ``anthropic`` SDK clients talk to it on 127.0.0.1; each wire
format has its own queue of scripted replies, and every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_KEY = "sk-test-SECRET123"

DEMO_BUYER = [
    ("propose_offer", {"to": "merchant_0", "listing_id": "L-grinder", "quantity": 1, "unit_price": 8000}),
    ("counter_offer", {"thread_id": "thr-0001", "unit_price": 9500}),
    ("place_order", {"thread_id": "thr-0001"}),
    ("authorize_payment", {"order_id": "ord-0001", "amount": 9500}),
    ("finish", {"summary": "Bought the grinder at the agreed price; it has shipped."}),
]
"""The demo task's winning line, as tool calls."""


@dataclass
class Scripted:
    """One scripted HTTP reply."""

    body: dict[str, Any]
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


# -- reply builders --------------------------------------------------------------------

def oa_tool(name: str, args: dict[str, Any] | str, *, extra_calls: int = 0, text: str | None = None) -> Scripted:
    """A Chat Completion whose message calls ``name``."""
    raw = args if isinstance(args, str) else json.dumps(args)
    calls = [{"id": f"call_{name}_{i}", "type": "function", "function": {"name": name, "arguments": raw}}
             for i in range(1 + extra_calls)]
    return Scripted(_completion({"role": "assistant", "content": text, "tool_calls": calls}, "tool_calls"))


def oa_text(text: str) -> Scripted:
    """A Chat Completion with plain text."""
    return Scripted(_completion({"role": "assistant", "content": text}, "stop"))


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "finish_reason": finish, "message": message}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}}


def an_tool(name: str, args: dict[str, Any], *, text: str | None = None) -> Scripted:
    """An Anthropic message with a tool_use block."""
    content = ([{"type": "text", "text": text}] if text else []) + [
        {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": args}]
    return Scripted(_message(content, "tool_use"))


def an_text(text: str) -> Scripted:
    """An Anthropic message with text only."""
    return Scripted(_message([{"type": "text", "text": text}], "end_turn"))


def _message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 1200, "output_tokens": 60}}


def http_error(status: int, message: str = "scripted failure", **kw: Any) -> Scripted:
    """An error reply in both APIs' error shape."""
    return Scripted({"type": "error", "error": {"type": "error", "message": message, "code": None}},
                    status=status, **kw)


def slow(reply: Scripted, seconds: float) -> Scripted:
    """``reply`` sent after ``seconds``."""
    reply.delay = seconds
    return reply


# -- the server -------------------------------------------------------------------------

class FakeLLM:
    """The server: ``openai`` and ``anthropic`` reply queues, and a log of requests."""

    def __init__(self) -> None:
        self.queues: dict[str, deque[Scripted]] = {"openai": deque(), "anthropic": deque()}
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                wire = "anthropic" if self.path.rstrip("/").endswith("/messages") and "chat" not in self.path \
                    else "openai"
                with fake.lock:
                    fake.requests.append({"wire": wire, "path": self.path, "body": body,
                                          "auth": self.headers.get("authorization") or self.headers.get("x-api-key")})
                    reply = fake.queues[wire].popleft() if fake.queues[wire] else \
                        http_error(400, f"fake server: no scripted {wire} reply left")
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    if reply.delay:
                        time.sleep(reply.delay)
                    data = json.dumps(reply.body).encode()
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout test)
                finally:
                    with fake.lock:
                        fake.in_flight -= 1

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        """Root URL (Anthropic's base URL)."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def openai_url(self) -> str:
        """OpenAI-style base URL (with ``/v1``)."""
        return self.url + "/v1"

    def script(self, wire: str, *replies: Scripted) -> None:
        """Queue replies for ``wire`` (``openai`` or ``anthropic``)."""
        self.queues[wire].extend(replies)

    def count(self, wire: str | None = None) -> int:
        """Requests received (of one wire format)."""
        return sum(1 for r in self.requests if wire is None or r["wire"] == wire)

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


def files_containing(root: Any, needle: str) -> list[str]:
    """Every file under ``root`` whose bytes contain ``needle``."""
    from pathlib import Path

    hits = []
    for p in Path(root).rglob("*"):
        if p.is_file() and needle.encode() in p.read_bytes():
            hits.append(str(p))
    return hits
