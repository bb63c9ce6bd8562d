"""Provider-neutral conversation memory of one episode.

A :class:`Conversation` is the system prompt plus one :class:`Turn` per step: the
observation text the model saw, its :class:`Reply`, and (filled in at the next step)
what became of the tool calls it made. Provider adapters render it into their own
message format; keeping the memory neutral means both wire formats replay the same
episode the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolCall:
    """One tool call in a reply. ``arguments`` is a dict, or the raw text when it was not JSON."""

    id: str
    name: str
    arguments: dict[str, Any] | str
    raw_arguments: str | None = None


@dataclass
class Reply:
    """A model reply, normalised.

    Attributes:
        text: Concatenated text content ("" when none).
        tool_calls: Tool calls in order.
        input_tokens / output_tokens: Usage, when the provider reported it.
        model: The model that actually served the call, when reported.
        stop_reason: Provider's finish or stop reason.
        assistant: The provider-specific assistant message, replayed verbatim in history.
    """

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None
    stop_reason: str | None = None
    assistant: Any = None


@dataclass
class Turn:
    """One step: what the model saw and said, and what happened to its tool calls."""

    user: str
    reply: Reply | None = None
    results: list[tuple[str, bool]] = field(default_factory=list)
    """(content, is_error) per tool call of ``reply``, filled in at the next step."""


@dataclass
class Conversation:
    """System prompt and turns; :meth:`window` bounds what is sent each call."""

    system: str = ""
    turns: list[Turn] = field(default_factory=list)
    max_turns: int | None = None
    """Turns sent per call (the first turn is always kept); None keeps everything."""

    def window(self) -> tuple[list[Turn], int]:
        """The turns to send and how many were left out after the first."""
        if self.max_turns is None or len(self.turns) <= self.max_turns:
            return list(self.turns), 0
        keep = max(1, self.max_turns - 1)
        tail = self.turns[-keep:]
        return [self.turns[0], *tail], len(self.turns) - 1 - len(tail)


def omitted_note(count: int) -> str:
    """The line that stands in for left-out steps."""
    return f"({count} earlier step(s) omitted to save space.)\n\n"
