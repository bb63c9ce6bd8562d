"""Validation results: accept, or reject with a stable code and a readable message."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class Reject(Exception):  # noqa: N818  (a control-flow signal, not an error)
    """Raised by a check to reject a proposal. ``code`` is stable; ``message`` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def require(condition: bool, code: str, message: str) -> None:
    """Reject with ``code`` unless ``condition`` holds."""
    if not condition:
        raise Reject(code, message)


@dataclass
class Outcome:
    """What the platform decided for one proposal."""

    accepted: bool
    code: str = "ok"
    message: str = ""
    events: list[dict] = field(default_factory=list)
    """World events to commit (accepted business actions only)."""
    result: Any = None
    """Data returned to the actor (query results, created ids)."""
    evidence: list[str] = field(default_factory=list)
    """Ids of the records the actor read (queries) or relied on."""
    notices: list[dict] = field(default_factory=list)
    """Inbox deliveries (messages and notices) caused by the action."""
