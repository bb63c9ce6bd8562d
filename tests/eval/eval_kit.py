"""Helpers of the evaluation tests: the CLI runner, test policies; the fake endpoint is ``fake_chat``."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from fake_chat import FakeChat  # noqa: F401  (re-exported for the evaluation tests)
from typer.testing import CliRunner

from acworld_env.cli import app
from acworld_env.policies.make import make_policy

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


def _default_sigint() -> None:
    """In the child before it starts: SIGINT handled by default (Python then raises KeyboardInterrupt)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_after_runs(args: list[str], out: Path, runs: int, *, endpoint: FakeChat,
                         timeout: float = 60.0) -> tuple[Any, str]:
    """Start an evaluation process (``args``, no real endpoint in its environment), press Ctrl-C
    once ``runs`` runs under ``out`` have a score; the ended process and its output.

    ``endpoint`` must hold its replies after a few requests (``FakeChat(hold_after=...)``): the
    evaluation then waits for it, so the interrupt arrives before the end on any machine, busy or
    not. It is released once the signal is sent, so the runs in flight can stop."""
    assert endpoint.hold_after is not None and endpoint.hold_after >= runs, "the endpoint must hold replies"
    import os
    import signal
    import subprocess
    import time

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    # A shell starts background jobs with SIGINT ignored, and children inherit that: the evaluation (like one a
    # user starts from a terminal) gets Ctrl-C's default, however this test run itself was started.
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            preexec_fn=_default_sigint)
    deadline = time.time() + timeout
    while len(list(out.glob("runs/*/score.json"))) < runs and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    endpoint.release()
    output, _ = proc.communicate(timeout=timeout)
    return proc, output
