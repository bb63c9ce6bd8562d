"""Canonical JSON and SHA-256 digests: the same bytes on every machine."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

try:  # a compiled encoder: the same bytes, several times faster (see :func:`canonical`)
    import orjson as _orjson
except ImportError:  # pragma: no cover - a declared dependency; the standard encoder gives the same bytes
    _orjson = None

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


_FLOAT_VIEW = bytes.maketrans(b"0123456789-+,[", b"000000000000::")
"""Digits and signs as ``0``, commas and brackets as ``:``: a float written as a value then reads ``:0.`` or
``:0e`` (see :func:`spelled_as_json`)."""
_FLOAT_TOKEN = re.compile(rb":00*[.eE]")
"""In that view, a number with a dot or an exponent right after a key, a comma or a bracket: possibly a float.
(``:00*`` is ``:0+`` spelled so that the pattern starts with two fixed bytes, which the regex engine finds
by a quicker search than the one byte ``:`` it would otherwise stop at after every key.)"""
_EXPONENT = re.compile(rb":00*(?:\.0*)?[eE]")
"""In that view, a number with an exponent right after a key, a comma or a bracket."""
_BELOW_1E_4 = (b":0.0000", b",0.0000", b"[0.0000", b"-0.0000")
"""A float below 1e-4 as the compiled encoder writes it (``0.00001``), after a key, a comma or a bracket."""


def spelled_as_json(encoded: bytes) -> bool:
    """Whether every float the compiled encoder wrote in compact JSON ``encoded`` reads as ``json`` writes it.

    Both write the shortest digits that read back exactly; they differ only where ``repr`` uses an
    exponent, at or above 1e16 (the compiled encoder writes ``1e16`` there, ``json`` ``1e+16``) and
    below 1e-4 (``0.00001`` against ``1e-05``). So an output with no float, or whose floats have no
    exponent and do not start ``0.0000``, is the same text. Numbers are found right after a key, a
    comma or a bracket (text such as ``"ratio:1.5"`` looks like one too: a false alarm only costs the
    standard encoder); a bare scalar is left to the standard encoder.
    """
    if encoded[:1] not in (b"{", b"["):
        return encoded.isdigit() or encoded in (b"true", b"false", b"null") or encoded[:1] == b'"'
    view = encoded.translate(_FLOAT_VIEW)
    if _FLOAT_TOKEN.search(view) is None:
        return True
    return _EXPONENT.search(view) is None and (b"0.0000" not in encoded  # in every one of them: one search first
                                               or not any(tiny in encoded for tiny in _BELOW_1E_4))


def _compiled(obj: Any) -> bytes | None:
    """``obj``'s canonical bytes by the compiled encoder, or None where they might differ from the standard one.

    For strings, integers, booleans, null, lists and dicts with string keys both encoders write the
    same bytes (sorted keys in code-point order, ``ensure_ascii=False`` escapes, compact separators).
    They spell some floats differently (``1e-05`` against ``0.00001``): an output holding such a float
    (see :func:`spelled_as_json`) goes to the standard encoder, as does anything the compiled one
    refuses (integers past 64 bits, non-string keys, lone surrogates, deep nesting), so the standard
    encoder gives the answer, or the error. Non-finite floats are not JSON and never reach a digest:
    actions refuse them, states hold integers only and catalog values are finite.
    """
    if _orjson is None:
        return None
    try:
        out = _orjson.dumps(obj, option=_orjson.OPT_SORT_KEYS)
    except (TypeError, ValueError):
        return None
    return out if spelled_as_json(out) else None


def canonical(obj: Any, *, check: bool = False) -> bytes:
    """Canonical JSON bytes: sorted keys, no whitespace, UTF-8. ``check`` refuses floats."""
    if check:
        _check(obj)
    out = _compiled(obj)
    return out if out is not None else _ENCODER.encode(obj).encode()


def sha256(data: bytes) -> str:
    """Hex SHA-256."""
    return hashlib.sha256(data).hexdigest()


def state_digest(state: dict) -> str:
    """Digest of a whole World state."""
    return sha256(canonical(state))


def chain(prev: str, body: dict) -> str:
    """Next link of a hash chain: ``H(prev || canonical(body))``."""
    return hashlib.sha256(prev.encode() + canonical(body)).hexdigest()
