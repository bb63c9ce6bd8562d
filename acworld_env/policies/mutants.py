"""Mutation policies: a reference policy with one targeted wrong decision spliced in."""

from __future__ import annotations

from typing import Any


class PrependPolicy:
    """Plays ``prepend`` actions first (e.g. a leaking message), then the ``base`` policy.

    Inbox messages seen while the spliced actions play are handed to the base policy later,
    so the only change from the reference is the spliced decision.
    """

    def __init__(self, base: dict, prepend: list[dict]) -> None:
        from .make import make_policy

        self.base = make_policy(base)
        self.prepend = list(prepend)
        self.i = 0
        self.held_inbox: list[dict] = []

    def reset(self, seed: int | None = None) -> None:
        """Rewind both parts."""
        self.i = 0
        self.held_inbox = []
        self.base.reset(seed)

    def act(self, obs: dict[str, Any]) -> Any:
        """Next spliced action, then the base policy's."""
        if self.i < len(self.prepend):
            self.i += 1
            self.held_inbox += obs.get("inbox", [])
            return self.prepend[self.i - 1]
        if self.held_inbox:
            obs = {**obs, "inbox": self.held_inbox + obs.get("inbox", [])}
            self.held_inbox = []
        return self.base.act(obs)


class AppendPolicy:
    """Plays the ``base`` policy but swaps its terminal action for ``extra`` actions first."""

    def __init__(self, base: dict, extra: list[dict]) -> None:
        from .make import make_policy

        self.base = make_policy(base)
        self.extra = list(extra)
        self.pending: list[Any] = []
        self.done_extra = False

    def reset(self, seed: int | None = None) -> None:
        """Rewind."""
        self.base.reset(seed)
        self.pending, self.done_extra = [], False

    def act(self, obs: dict[str, Any]) -> Any:
        """Base actions; before the base's terminal action, the extra ones."""
        if self.pending:
            return self.pending.pop(0)
        action = self.base.act(obs)
        if isinstance(action, dict) and action.get("kind") in {"finish", "submit_answer", "abstain"} \
                and not self.done_extra:
            self.done_extra = True
            self.pending = self.extra[1:] + [action]
            return self.extra[0]
        return action
