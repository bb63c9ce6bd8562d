"""The lineage trace: one hash-chained record per decision, accepted or rejected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .world.digest import GENESIS, chain


class Trace:
    """Ordered lineage records. Each record carries ``prev`` and ``hash`` links of a chain."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.head = GENESIS

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Seal and store a record; return it."""
        record = {**record, "n": len(self.records) + 1, "prev": self.head}
        record["hash"] = chain(self.head, record)
        self.head = record["hash"]
        self.records.append(record)
        return record

    @property
    def digest(self) -> str:
        """Head of the trace chain."""
        return self.head

    def write(self, path: str | Path) -> None:
        """Write as JSONL."""
        with open(path, "w", encoding="utf-8") as fh:
            for rec in self.records:
                fh.write(json.dumps(rec, sort_keys=True, ensure_ascii=False) + "\n")


class TraceError(ValueError):
    """A trace file is unreadable or its chain is broken."""


def read_trace(path: str | Path) -> list[dict[str, Any]]:
    """Read a JSONL trace, naming the line of any corruption."""
    records = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise TraceError(f"{path}: line {lineno}: not JSON ({exc.msg})") from exc
            except RecursionError:
                raise TraceError(f"{path}: line {lineno}: nested too deeply to be a trace record") from None
            if not isinstance(records[-1], dict):
                raise TraceError(f"{path}: line {lineno}: not a JSON object")
    return records


def verify_trace(records: list[dict[str, Any]]) -> str:
    """Check the chain; return its head digest or raise :class:`TraceError` naming the record."""
    head = GENESIS
    for i, rec in enumerate(records, start=1):
        body = {k: v for k, v in rec.items() if k != "hash"}
        if rec.get("n") != i or rec.get("prev") != head or chain(head, body) != rec.get("hash"):
            raise TraceError(f"trace record {i}: changed, dropped, reordered or inserted")
        head = rec["hash"]
    return head
