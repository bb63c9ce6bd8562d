"""The policy protocol: a policy sees only its observation and returns one action."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Policy(Protocol):
    """Anything that maps a role-private observation to a VCP action (model, dict or JSON string)."""

    def reset(self, seed: int | None = None) -> None:
        """Start a new episode."""

    def act(self, observation: dict[str, Any]) -> Any:
        """Choose the next action."""


class FixedPolicy:
    """Plays a fixed list of actions, then finishes. Handy in tests and demos."""

    def __init__(self, actions: list[Any]) -> None:
        self.actions = list(actions)
        self.i = 0

    def reset(self, seed: int | None = None) -> None:
        """Rewind."""
        self.i = 0

    def act(self, observation: dict[str, Any]) -> Any:
        """Next action in the list, then ``finish``."""
        if self.i < len(self.actions):
            self.i += 1
            return self.actions[self.i - 1]
        return {"kind": "finish"}
