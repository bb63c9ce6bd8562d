"""Opt-in response cache: a rerun of the same requests is free and reproducible.

The key is the SHA-256 of the canonical JSON of the exact request: the wire format, the
model, every message, the tools and every decoding parameter sent (and, for
``openai-compatible`` endpoints whose model names are local aliases, the base URL).
Each entry is one JSON file ``<dir>/<key[:2]>/<key>.json`` holding the provider's
response body. Keys and headers are never part of a request body, and every stored
entry is scrubbed of every configured key (a reply may quote one back), so no key
reaches the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .credentials import redact_value


def request_key(request: dict[str, Any]) -> str:
    """SHA-256 hex digest of the canonical JSON of ``request``."""
    body = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


class ResponseCache:
    """JSON files under ``root``, one per request key."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).expanduser()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry, or None (a damaged file counts as a miss)."""
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) and "response" in entry else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store an entry atomically (write a temporary file, then rename), every configured key redacted."""
        entry = redact_value(entry)
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"key": key, **entry}, fh, sort_keys=True, ensure_ascii=False, indent=1)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
