"""The lineage trace: one hash-chained record per decision, accepted or rejected.

A record is a :class:`TraceRecord` (its validation a :class:`Validation`), built in one
place, :meth:`Trace.append`, and read by typed attribute. Its JSON form
(:meth:`TraceRecord.to_dict`) is what ``trace.jsonl`` holds and what the chain hashes:
canonical JSON with sorted keys, so the type changes no byte of any saved run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .core.errors import AcworldError
from .world.digest import GENESIS, chain

_VALIDATION_KEYS = ("validation_id", "envelope_id", "actor", "kind", "accepted", "code", "message")
_RECORD_KEYS = ("n", "round", "actor", "role", "envelope", "action", "validation", "evidence", "commit",
                "delta", "result", "replayed", "prev", "hash")
_OPTIONAL_KEYS = ("original_validation", "meta")
"""Keys written only when set: a replay's ``original_validation``, a decision's ``meta``."""
_BODY_KEYS = _RECORD_KEYS[:-1]
"""What the chain hashes: every key but ``hash`` (and the optional keys that are set)."""


def _json_form(value_of: Callable[[str], Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """A record's JSON form from its values: ``keys``, then the optional keys that are set, the
    validation as JSON. The one definition, for the written line and for what the chain hashes."""
    out = {k: value_of(k) for k in keys}
    out["validation"] = out["validation"].to_dict()
    for k in _OPTIONAL_KEYS:
        value = value_of(k)
        if value is not None:
            out[k] = value
    return out


@dataclass(frozen=True, slots=True)
class Validation:
    """The platform's verdict on one proposal (also stored, as JSON, beside the commit it allows)."""

    validation_id: str
    envelope_id: str
    actor: str
    kind: str | None
    accepted: bool
    code: str
    message: str

    def __init__(self, validation_id: str, envelope_id: str, actor: str, kind: str | None, accepted: bool, code: str,
                 message: str) -> None:
        """The fields in order, each set through its slot's descriptor (as :meth:`TraceRecord.__init__`)."""
        s_validation_id, s_envelope_id, s_actor, s_kind, s_accepted, s_code, s_message = _VALIDATION_SLOTS
        s_validation_id(self, validation_id)
        s_envelope_id(self, envelope_id)
        s_actor(self, actor)
        s_kind(self, kind)
        s_accepted(self, accepted)
        s_code(self, code)
        s_message(self, message)

    def to_dict(self) -> dict[str, Any]:
        """JSON form, as written in the trace and the commit log (keys in :data:`_VALIDATION_KEYS` order)."""
        return {"validation_id": self.validation_id, "envelope_id": self.envelope_id, "actor": self.actor,
                "kind": self.kind, "accepted": self.accepted, "code": self.code, "message": self.message}

    def refused(self, code: str, message: str) -> Validation:
        """The same validation, turned into a rejection."""
        return replace(self, accepted=False, code=code, message=message)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Validation:
        """From JSON; missing keys take empty defaults (hand-built test records name only what they need)."""
        return cls(validation_id=data.get("validation_id", ""), envelope_id=data.get("envelope_id", ""),
                   actor=data.get("actor", ""), kind=data.get("kind"), accepted=data.get("accepted", False),
                   code=data.get("code", ""), message=data.get("message", ""))


_VALIDATION_SLOTS = tuple(vars(Validation)[f.name].__set__ for f in fields(Validation))
"""Each field's slot setter, in field order, for :meth:`Validation.__init__`."""


@dataclass(frozen=True, slots=True)
class TraceRecord:
    """One sealed lineage record: who proposed what, the verdict, what it committed, and its chain links.

    ``envelope`` and ``action`` are the JSON forms of the VCP envelope and the proposed action
    (``{"unparsed": ...}`` for input that did not parse; ``None`` envelope for a scheduled market
    event). ``commit`` is the seq of the commit it caused, ``delta`` that commit's state delta.
    ``original_validation`` is set on idempotent replays only, ``meta`` (model usage) only when given.
    """

    n: int
    round: int
    actor: str
    role: str | None
    envelope: dict[str, Any] | None
    action: dict[str, Any]
    validation: Validation
    evidence: list[str]
    commit: int | None
    delta: list[Any]
    result: Any
    replayed: bool
    prev: str
    hash: str
    original_validation: str | None = None
    meta: dict[str, Any] | None = None
    kind: str | None = field(init=False, repr=False, compare=False)
    """The proposed action's kind (None for input that did not parse): read from ``action`` once, when the
    record is made (predicates ask for it ~10 times per step); not part of the JSON form."""

    def __init__(self, n: int, round: int, actor: str, role: str | None, envelope: dict[str, Any] | None,
                 action: dict[str, Any], validation: Validation, evidence: list[str], commit: int | None,
                 delta: list[Any], result: Any, replayed: bool, prev: str, hash: str,
                 original_validation: str | None = None, meta: dict[str, Any] | None = None) -> None:
        """The fields in order, and ``kind`` from ``action``. Written out (the dataclass keeps it) to set each
        slot through its descriptor: the generated ``__init__`` calls ``object.__setattr__`` per field, which
        looks each one up again by name, and a record is made per decision (about a third quicker)."""
        (s_n, s_round, s_actor, s_role, s_envelope, s_action, s_validation, s_evidence, s_commit, s_delta, s_result,
         s_replayed, s_prev, s_hash, s_original, s_meta, s_kind) = _RECORD_SLOTS
        s_n(self, n)
        s_round(self, round)
        s_actor(self, actor)
        s_role(self, role)
        s_envelope(self, envelope)
        s_action(self, action)
        s_validation(self, validation)
        s_evidence(self, evidence)
        s_commit(self, commit)
        s_delta(self, delta)
        s_result(self, result)
        s_replayed(self, replayed)
        s_prev(self, prev)
        s_hash(self, hash)
        s_original(self, original_validation)
        s_meta(self, meta)
        s_kind(self, action.get("kind") if isinstance(action, dict) else None)

    @property
    def accepted(self) -> bool:
        """Whether the platform accepted the proposal."""
        return bool(self.validation.accepted)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the line written to ``trace.jsonl`` (optional keys only when set)."""
        return _json_form(lambda k: getattr(self, k), _RECORD_KEYS)

    def body(self) -> dict[str, Any]:
        """What the chain hashes: the JSON form without ``hash``."""
        return _json_form(lambda k: getattr(self, k), _BODY_KEYS)

    def __getitem__(self, key: str) -> Any:
        """The JSON form's value (for readers of the written shape, such as tests); code reads attributes."""
        return self.to_dict()[key]

    def __contains__(self, key: object) -> bool:
        """Whether the JSON form has ``key`` (``"meta" in record``)."""
        return key in self.to_dict()

    def get(self, key: str, default: Any = None) -> Any:
        """The JSON form's value, or ``default``."""
        return self.to_dict().get(key, default)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TraceRecord:
        """From JSON; missing keys take empty defaults (see :func:`read_trace` for the strict form)."""
        val = data.get("validation")
        return cls(
            n=data.get("n", 0), round=data.get("round", 0), actor=data.get("actor", ""), role=data.get("role"),
            envelope=data.get("envelope"), action=data.get("action", {}),
            validation=val if isinstance(val, Validation) else Validation.from_dict(val or {}),
            evidence=data.get("evidence", []), commit=data.get("commit"), delta=data.get("delta", []),
            result=data.get("result"), replayed=data.get("replayed", False), prev=data.get("prev", ""),
            hash=data.get("hash", ""), original_validation=data.get("original_validation"), meta=data.get("meta"),
        )


_RECORD_SLOTS = tuple(vars(TraceRecord)[f.name].__set__ for f in fields(TraceRecord))
"""Each field's slot setter, in field order (``kind`` last), for :meth:`TraceRecord.__init__`."""


def as_record(record: TraceRecord | Mapping[str, Any]) -> TraceRecord:
    """A record as :class:`TraceRecord` (a JSON-shaped dict is converted)."""
    return record if isinstance(record, TraceRecord) else TraceRecord.from_dict(record)


def as_records(records: Iterable[TraceRecord | Mapping[str, Any]]) -> list[TraceRecord]:
    """Every record as :class:`TraceRecord`."""
    return [r if type(r) is TraceRecord else as_record(r) for r in records]


class Trace:
    """Ordered lineage records. Each record carries ``prev`` and ``hash`` links of a chain."""

    def __init__(self) -> None:
        self.records: list[TraceRecord] = []
        self.head = GENESIS

    def append(self, *, round: int, actor: str, role: str | None, envelope: dict[str, Any] | None,
               action: dict[str, Any], validation: Validation, evidence: list[str] | None = None,
               commit: int | None = None, delta: list[Any] | None = None, result: Any = None,
               replayed: bool = False, original_validation: str | None = None,
               meta: dict[str, Any] | None = None) -> TraceRecord:
        """Build, seal and store the next record; return it. The one constructor of lineage records.

        The chain hashes the record's JSON form without ``hash`` (:meth:`TraceRecord.body`); it is
        built here once from the same values, and the record is made once, sealed.
        """
        evidence = evidence if evidence is not None else []
        delta = delta if delta is not None else []
        meta = meta or None
        body: dict[str, Any] = {  # the JSON form without ``hash`` (as :func:`_json_form` builds it), built directly
            "n": len(self.records) + 1, "round": round, "actor": actor, "role": role, "envelope": envelope,
            "action": action, "validation": validation.to_dict(), "evidence": evidence, "commit": commit,
            "delta": delta, "result": result, "replayed": replayed, "prev": self.head,
        }
        if original_validation is not None:
            body["original_validation"] = original_validation
        if meta is not None:
            body["meta"] = meta
        record = TraceRecord(body["n"], round, actor, role, envelope, action, validation, evidence, commit, delta,
                             result, replayed, self.head, chain(self.head, body), original_validation, meta)
        self.head = record.hash
        self.records.append(record)
        return record

    def action_of(self, validation_id: str) -> dict[str, Any]:
        """The recorded action of the proposal validated as ``validation_id`` (the latest such record)."""
        for record in reversed(self.records):
            if record.validation.validation_id == validation_id:
                return record.action
        raise KeyError(f"no record with validation {validation_id!r}")

    @property
    def digest(self) -> str:
        """Head of the trace chain."""
        return self.head

    def write(self, path: str | Path) -> None:
        """Write as JSONL."""
        with open(path, "w", encoding="utf-8") as fh:
            for rec in self.records:
                fh.write(json.dumps(rec.to_dict(), sort_keys=True, ensure_ascii=False) + "\n")


class TraceError(AcworldError, ValueError):
    """A trace file is unreadable or its chain is broken."""


def read_trace(path: str | Path) -> list[TraceRecord]:
    """Read a JSONL trace, naming the line of any corruption or of a line that is not a lineage record."""
    records = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TraceError(f"{path}: line {lineno}: not JSON ({exc.msg})") from exc
            except RecursionError:
                raise TraceError(f"{path}: line {lineno}: nested too deeply to be a trace record") from None
            if not isinstance(data, dict):
                raise TraceError(f"{path}: line {lineno}: not a JSON object")
            records.append(_strict_record(data, f"{path}: line {lineno}"))
    return records


def _strict_record(data: dict[str, Any], where: str) -> TraceRecord:
    """A record read back exactly: every key known and present, so its JSON form is the line read."""
    val = data.get("validation")
    keys, need = set(data), set(_RECORD_KEYS)
    if not need <= keys or not keys <= need | set(_OPTIONAL_KEYS) or not isinstance(val, dict) \
            or set(val) != set(_VALIDATION_KEYS):
        raise TraceError(f"{where}: not a lineage record (keys {', '.join(sorted(keys))})")
    record = TraceRecord.from_dict(data)
    if record.to_dict() != data:
        raise TraceError(f"{where}: not a lineage record (an optional key is present but null)")
    return record


def verify_trace(records: list[TraceRecord]) -> str:
    """Check the chain; return its head digest or raise :class:`TraceError` naming the record."""
    head = GENESIS
    for i, rec in enumerate(records, start=1):
        if rec.n != i or rec.prev != head or chain(head, rec.body()) != rec.hash:
            raise TraceError(f"trace record {i}: changed, dropped, reordered or inserted")
        head = rec.hash
    return head
