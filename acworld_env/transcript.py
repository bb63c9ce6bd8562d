"""Readable transcripts of a trace: one line per proposal, validation and commit."""

from __future__ import annotations

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


def transcript_lines(records: list[TraceRecord]) -> list[str]:
    """One line per lineage record."""
    lines = []
    for r in records:
        v = r.validation
        verdict = "accepted" if v.accepted else f"REJECTED {v.code}: {v.message}"
        if r.replayed:
            verdict = "replayed (idempotent)"
        commit = f" -> commit #{r.commit}" if r.commit is not None else ""
        lines.append(f"[round {r.round:>2}] {r.actor:<12} {describe_action(r.action)}  {verdict}{commit}")
    return lines
