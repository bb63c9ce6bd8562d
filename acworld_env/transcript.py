"""Readable transcripts of a trace: one line per proposal, validation and commit.

:func:`transcript_lines` is the host's transcript (every record, refusals with their text);
:func:`transcript_for` is one actor's: its own records (a refusal with its code, shown to its
sender only) and the messages delivered to it, never another actor's proposals as such.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .core.money import format_money
from .trace import TraceRecord

_MONEY_FIELDS = ("unit_price", "amount", "total", "price")


def describe_action(action: dict[str, Any]) -> str:
    """A short human description of an action dict."""
    kind = action.get("kind") or "unparsed"
    parts = []
    for key, value in action.items():
        if key in {"kind", "actor"} or value in (None, [], {}):
            continue
        shown = format_money(value) if key in _MONEY_FIELDS and isinstance(value, int) else value
        parts.append(f"{key}={shown}")
    return f"{kind}({', '.join(parts)})"


def record_line(r: TraceRecord) -> str:
    """One lineage record as a transcript line: who proposed what, the verdict, the commit."""
    v = r.validation
    verdict = "accepted" if v.accepted else f"REJECTED {v.code}: {v.message}"
    if r.replayed:
        verdict = "replayed (idempotent)"
    commit = f" -> commit #{r.commit}" if r.commit is not None else ""
    return f"[round {r.round:>2}] {r.actor:<12} {describe_action(r.action)}  {verdict}{commit}"


def transcript_lines(records: list[TraceRecord]) -> list[str]:
    """One line per lineage record (the host's view: everything)."""
    return [record_line(r) for r in records]


def delivered_line(message: dict[str, Any]) -> str:
    """A message as its recipient received it."""
    extra = "".join(f" {k}={message[k]}" for k in ("thread_id", "in_reply_to", "listing_id", "order_id")
                    if message.get(k))
    return (f"[round {message.get('round', 0):>2}] {message.get('from', '?'):<12} -> {message.get('to')}: "
            f"{message.get('kind', 'message')}{extra} {message.get('text', '')!r}")


def transcript_for(records: list[TraceRecord], actor: str,
                   delivered: Callable[[str], list[dict[str, Any]]]) -> list[str]:
    """``actor``'s transcript: its own records (refused ones with their code) and what was delivered to it.

    ``delivered(validation_id)`` gives the messages a record's accepted proposal delivered (the
    market's ``deliveries``). Another actor's refused or undelivered proposal never appears.
    """
    lines = []
    for r in records:
        if r.actor == actor:
            lines.append(record_line(r))
        elif r.accepted and not r.replayed:
            lines += [delivered_line(m) for m in delivered(r.validation.validation_id) if m.get("to") == actor]
    return lines
