"""What a catalog build reports: problems with files, dropped records, per-file counts.

Every problem names its file and its position in it: ``line 7`` of a JSONL/CSV file,
``line 7, variants[1]`` for a variant of a JSONL product, ``products[3].variants[0]`` in a
JSON dump (0-based indexes, as in a JSON path), ``byte 12`` for undecodable text. A
:class:`SourceError` is a problem with a file or a line that could not be read at all
(``--strict`` aborts on those); a :class:`Drop` is one record left out of the catalog and
why. Drops are counted in full by reason; the first :data:`MAX_DROP_NOTES` of each file
are also kept with their position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_DROP_NOTES = 1000
"""Drops kept with their position per file (all drops are counted)."""


@dataclass
class SourceError:
    """A problem in one source file, with where it is."""

    file: str
    position: str
    message: str

    def __str__(self) -> str:
        where = f" at {self.position}" if self.position else ""
        return f"{self.file}{where}: {self.message}"


@dataclass
class Drop(SourceError):
    """A record left out of the catalog: where, and why (``reason`` is a drop-reason code)."""

    reason: str = "bad_record"

    def __str__(self) -> str:
        where = f" at {self.position}" if self.position else ""
        return f"{self.file}{where}: dropped ({self.reason}): {self.message}"


@dataclass
class FileReport:
    """What one file contributed, and what it lost."""

    file: str
    format: str = ""
    merchants: list[str] = field(default_factory=list)
    products: int = 0
    records: int = 0
    listings: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    errors: list[SourceError] = field(default_factory=list)
    drops: list[Drop] = field(default_factory=list)

    def drop(self, reason: str, position: str, message: str, *, n: int = 1, error: bool = False) -> Drop:
        """Record ``n`` dropped records (``error``: the record could not be read at all)."""
        note = Drop(self.file, position, message, reason)
        self.dropped[reason] = self.dropped.get(reason, 0) + n
        if len(self.drops) < MAX_DROP_NOTES:
            self.drops.append(note)
        if error:
            self.errors.append(note)
        return note

    def as_dict(self) -> dict[str, Any]:
        """JSON form, as stored in the catalog's metadata."""
        return {"file": self.file, "format": self.format, "merchants": self.merchants,
                "products": self.products, "records": self.records, "listings": self.listings,
                "dropped": self.dropped, "errors": [str(e) for e in self.errors],
                "drops": [str(d) for d in self.drops[:100]]}


@dataclass
class BuildReport:
    """Outcome of a build: per-file reports, totals and the written catalog's metadata."""

    files: list[FileReport]
    counts: dict[str, Any]
    metadata: dict[str, Any] | None = None

    @property
    def errors(self) -> list[SourceError]:
        """Every file-level problem and unreadable line, in file order."""
        return [e for f in self.files for e in f.errors]

    @property
    def drops(self) -> list[Drop]:
        """Every dropped record kept with its position, in file order."""
        return [d for f in self.files for d in f.drops]
