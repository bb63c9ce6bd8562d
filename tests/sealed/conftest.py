"""One sealed round for the module's tests: 10 tasks of capability-v1, served on loopback.

Generating the round's tasks costs seconds, so the round is opened once per session; each test
plays as its own participant (one submission each). Every reply the host sends is recorded (for
the test that no secret, token or seed reaches a participant).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("cryptography")
pytest.importorskip("fastapi")

PARTICIPANTS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"]
N_TASKS = 10


@dataclass
class Round:
    """The session's round."""

    state_dir: Path
    secret_file: Path
    url: str
    sealed: Any
    replies: list[bytes] = field(default_factory=list)

    def token_file(self, name: str) -> Path:
        return self.state_dir / "tokens" / f"{name}.token"

    def token(self, name: str) -> str:
        return self.token_file(name).read_text().strip()

    @property
    def secret(self) -> bytes:
        return self.secret_file.read_bytes().strip()


class Recorder:
    """ASGI wrapper keeping every response's headers and body bytes."""

    def __init__(self, app: Any, sink: list[bytes]) -> None:
        self.app, self.sink = app, sink
        self.state = getattr(app, "state", None)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def keep(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                self.sink.append(b"".join(k + b": " + v for k, v in message.get("headers", [])))
            elif message["type"] == "http.response.body":
                self.sink.append(bytes(message.get("body", b"")))
            await send(message)

        await self.app(scope, receive, keep)


@pytest.fixture(scope="session")
def sealed_round(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from acworld_env.remote.serve import ServerThread
    from acworld_env.sealed.cli import open_round
    from acworld_env.sealed.host import SealedHost
    from acworld_env.sealed.routes import create_sealed_app

    root = tmp_path_factory.mktemp("sealed")
    state_dir, secret_file = root / "D", root / "secret.txt"
    secret_file.write_text("correct horse battery staple sealed round 35\n")
    _, generated = open_round(state_dir, secret_file=secret_file, suite=None, n_tasks=N_TASKS, participants=PARTICIPANTS,
               submissions=1, rate=10_000.0, burst=10_000, min_family_tasks=1)
    sealed = SealedHost.start(state_dir, generated=generated)
    replies: list[bytes] = []
    server = ServerThread(app=Recorder(create_sealed_app(sealed), replies))
    url = server.start()
    yield Round(state_dir, secret_file, url, sealed, replies)
    server.stop()
