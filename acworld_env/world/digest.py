"""Canonical JSON and SHA-256 digests: the same bytes on every machine."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..core.errors import AcworldError

GENESIS = "0" * 64
"""Previous-hash value of the first commit in a chain."""


class NonCanonicalValue(AcworldError, TypeError):
    """A value that canonical JSON refuses (floats, NaN, objects)."""


def _check(obj: Any, path: str = "$") -> None:
    if isinstance(obj, bool) or obj is None or isinstance(obj, int | str):
        return
    if isinstance(obj, float):
        raise NonCanonicalValue(f"float at {path}: state and events hold integers only")
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not isinstance(k, str):
                raise NonCanonicalValue(f"non-string key at {path}")
            _check(v, f"{path}.{k}")
        return
    if isinstance(obj, list | tuple):
        for i, v in enumerate(obj):
            _check(v, f"{path}[{i}]")
        return
    raise NonCanonicalValue(f"{type(obj).__name__} at {path}")


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""The canonical encoder, made once (``json.dumps`` with these options builds a new one per call)."""


def canonical(obj: Any, *, check: bool = False) -> bytes:
    """Canonical JSON bytes: sorted keys, no whitespace, UTF-8. ``check`` refuses floats."""
    if check:
        _check(obj)
    return _ENCODER.encode(obj).encode()


def sha256(data: bytes) -> str:
    """Hex SHA-256."""
    return hashlib.sha256(data).hexdigest()


def state_digest(state: dict) -> str:
    """Digest of a whole World state."""
    return sha256(canonical(state))


def chain(prev: str, body: dict) -> str:
    """Next link of a hash chain: ``H(prev || canonical(body))``."""
    return hashlib.sha256(prev.encode() + canonical(body)).hexdigest()
