"""The evaluation manifest and its root digest.

``manifest.json`` lists every run an evaluation planned (with its task's content hash) and,
once the evaluation finishes, each run's digests. The **root digest** is one SHA-256 over
the evaluation's identity and, for every run, (task hash, trace digest, event-chain digest,
state digest, score). Publishing it with a result lets anyone check a copy of the folder
with ``acworld verify DIR --expect ROOT``: deleting, truncating, re-hashing or rescoring any
run changes it, even when every file inside the folder was rewritten consistently.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..core.errors import AcworldError
from ..world import canonical

MANIFEST_FILE = "manifest.json"
FORMAT = "acworld-eval/1"
HEADER_KEYS = ("env_id", "suite", "split", "seed", "policy", "repeats")
"""What identifies an evaluation; two evaluations with different headers never share a folder."""
ENTRY_KEYS = ("name", "task_id", "task_hash", "seed", "repeat", "status", "trace_digest", "event_digest",
              "state_digest", "score_digest", "reason")
"""What the root digest covers for each run."""
OPTIONAL_HEADER_KEYS = ("counterparties", "policies")
"""Header keys of a two-sided evaluation (``counterparties="agents"``, role -> spec): in the header, its
manifest and its root digest when set, absent otherwise (so the root digests of other evaluations are unchanged)."""
OPTIONAL_ENTRY_KEYS = ("sides_digest",)
"""Entry keys of a two-sided run (the SHA-256 of its ``sides.json``), covered by the root digest when set."""


def header_body(header: dict[str, Any]) -> dict[str, Any]:
    """The header as the manifest and the root digest hold it: :data:`HEADER_KEYS`, and the optional keys set."""
    return {**{k: header.get(k) for k in HEADER_KEYS},
            **{k: header[k] for k in OPTIONAL_HEADER_KEYS if header.get(k) is not None}}


def _entry_body(entry: dict[str, Any]) -> dict[str, Any]:
    return {**{k: entry.get(k) for k in ENTRY_KEYS}, **{k: entry[k] for k in OPTIONAL_ENTRY_KEYS if entry.get(k)}}


class ManifestError(AcworldError, ValueError):
    """A manifest that cannot be read, or that belongs to another evaluation."""


def score_digest(score_bytes: bytes) -> str:
    """SHA-256 of a run's ``score.json`` bytes (they are canonical, written by ``score_json``)."""
    return hashlib.sha256(score_bytes).hexdigest()


def run_entry(*, name: str, task_id: str, task_hash: str, seed: int, repeat: int, status: str,
              run: dict[str, Any] | None = None, score_bytes: bytes | None = None, reason: str = "",
              sides_bytes: bytes | None = None) -> dict[str, Any]:
    """One run's line of the manifest (and of the root digest); ``sides_bytes``: a two-sided run's ``sides.json``."""
    run = run or {}
    entry = {
        "name": name, "task_id": task_id, "task_hash": task_hash, "seed": seed, "repeat": repeat,
        "status": status, "trace_digest": run.get("trace_digest", ""), "event_digest": run.get("event_digest", ""),
        "state_digest": run.get("state_digest", ""),
        "score_digest": score_digest(score_bytes) if score_bytes is not None else "",
        "reason": reason if status != "scored" else "",
    }
    if sides_bytes is not None and status == "scored":
        entry["sides_digest"] = score_digest(sides_bytes)
    return entry


def root_digest(header: dict[str, Any], entries: list[dict[str, Any]]) -> str:
    """The root digest of an evaluation: its header and every run's entry, in name order."""
    body = {"format": FORMAT, **header_body(header),
            "runs": [_entry_body(e) for e in sorted(entries, key=lambda e: e["name"])]}
    return hashlib.sha256(canonical(body)).hexdigest()


def write_manifest(out: Path, header: dict[str, Any], entries: list[dict[str, Any]], *,
                   final: bool) -> str:
    """Write ``manifest.json``; return the root digest (empty while the evaluation is running)."""
    root = root_digest(header, entries) if final else ""
    doc = {"format": FORMAT, **header_body(header), "complete": final,
           "root_digest": root, "runs": sorted(entries, key=lambda e: e["name"])}
    tmp = out / (MANIFEST_FILE + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(out / MANIFEST_FILE)
    return root


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The manifest of an evaluation folder, ``None`` when there is none; :class:`ManifestError` if unreadable."""
    path = out / MANIFEST_FILE
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ManifestError(f"{path}: unreadable ({type(exc).__name__})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("runs"), list) \
            or not all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in doc["runs"]):
        raise ManifestError(f"{path}: not an acworld evaluation manifest")
    return doc


def header_mismatch(doc: dict[str, Any], header: dict[str, Any]) -> str | None:
    """Why a folder's manifest belongs to another evaluation, or ``None`` when it is the same one."""
    diffs = [f"{k} {doc.get(k)!r} (asked: {header.get(k)!r})" for k in (*HEADER_KEYS, *OPTIONAL_HEADER_KEYS)
             if doc.get(k) != header.get(k)]
    return ", ".join(diffs) or None
