"""A loopback OpenAI-compatible chat endpoint that replays scripted actions (plain and streamed replies).

``ReplayChat({marker: [action, ...], ...})``: a request whose conversation contains ``marker``
(e.g. a task's request text) gets that script's action number ``k``, where ``k`` is the number of
assistant turns already in the conversation, so concurrent conversations each get their own
script in order. Each reply is an action: sent as the assistant message's text (a JSON object,
what verifiers' OpenEnv engines read) or, with ``as_tool_calls=True``, as one tool call. Past its
script's end (or with no marker found) a conversation gets ``{"kind": "finish"}``. Every
request's body is kept in ``requests``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    request_queue_size = 128
    daemon_threads = True


class ReplayChat:
    """Replays each conversation's script (action dicts), one action per chat completion request."""

    def __init__(self, scripts: dict[str, list[dict[str, Any]]], *, as_tool_calls: bool = False) -> None:
        self.scripts, self.as_tool_calls = {k: list(v) for k, v in scripts.items()}, as_tool_calls
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        replay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802  (model listings)
                self._send({"object": "list", "data": [{"id": "replay", "object": "model", "owned_by": "test"}]})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                reply = replay.reply(body)
                if body.get("stream"):
                    self._stream(reply)
                else:
                    self._send(reply)

            def _stream(self, reply: dict[str, Any]) -> None:
                """The completion as server-sent chunks: the message as one delta, then the usage."""
                choice = reply["choices"][0]
                delta = {k: v for k, v in choice["message"].items() if v is not None}
                for call_index, call in enumerate(delta.get("tool_calls", [])):
                    call["index"] = call_index
                base = {k: reply[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
                chunks = [{**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                          {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
                          {**base, "choices": [], "usage": reply["usage"]}]
                data = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _send(self, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        """The conversation's next scripted action as a chat completion."""
        messages = request.get("messages") or []
        text = json.dumps(messages)
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        script = next((v for k, v in self.scripts.items() if k in text or json.dumps(k)[1:-1] in text), [])
        action = script[turn] if turn < len(script) else {"kind": "finish"}
        with self.lock:
            self.requests.append(request)
        if self.as_tool_calls:
            name = action["kind"]
            args = {k: v for k, v in action.items() if k != "kind"}
            call = {"id": f"call_{len(self.requests)}", "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)}}
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": json.dumps(action)}, "stop"
        return {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0, "model": "replay",
                "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}

    @property
    def url(self) -> str:
        """The OpenAI-style base URL (``.../v1``)."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()
