"""Signed results: what the host returns when a submission closes, and its offline verification.

A result is a JSON object; ``signature`` (base64 Ed25519 over the canonical JSON of every other
field) and ``key_id`` are added last. Any edit of any field, or a signature by another key,
fails :func:`verify_signed`. Per-task scores are never in it: family means, the overall mean,
counts, and per-slot digests (trace, event chain, state, score file) that the exported
artifacts must reproduce after the reveal.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from ..world import canonical
from .commitment import SealedError
from .keys import key_id, public_pem, read_public_key

FORMAT = "acworld-sealed-result/1"
RESULT_FILE = "signed_result.json"


def payload_bytes(result: dict[str, Any]) -> bytes:
    """The bytes a signature covers: every field but ``signature``, canonical JSON."""
    return canonical({k: v for k, v in result.items() if k != "signature"})


def sign_result(body: dict[str, Any], key: Any) -> dict[str, Any]:
    """``body`` with ``format``, ``key_id`` and ``signature`` added."""
    out = {**body, "format": FORMAT, "key_id": key_id(public_pem(key))}
    out["signature"] = base64.b64encode(key.sign(payload_bytes(out))).decode()
    return out


def verify_signed(result: Any, public_key_path: Path) -> list[str]:
    """Why ``result`` is not a valid result signed by the key in ``public_key_path``; empty when it is."""
    from cryptography.exceptions import InvalidSignature

    key = read_public_key(public_key_path)
    if not isinstance(result, dict) or result.get("format") != FORMAT:
        return ["not a signed sealed-round result"]
    sig = result.get("signature")
    try:
        raw = base64.b64decode(sig if isinstance(sig, str) else "", validate=True)
        key.verify(raw, payload_bytes(result))
    except (ValueError, InvalidSignature):
        return ["the signature does not match the result (edited, or signed by another key)"]
    return []


def read_result(path: Path) -> dict[str, Any]:
    """A signed result file; a clear error when it cannot be read as JSON."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SealedError(f"cannot read {path}: {exc.strerror or type(exc).__name__}") from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise SealedError(f"{path} is not JSON") from None
    if not isinstance(data, dict):
        raise SealedError(f"{path} is not a signed result")
    return data


def write_result(path: Path, result: dict[str, Any]) -> None:
    """Write a signed result (indented; the signature covers the canonical form, not the layout)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)
