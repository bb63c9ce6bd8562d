"""Closing a round: reveal the secret, export the artifacts, and check it all from the outside.

:func:`reveal_round` (``acworld serve --sealed --state-dir D --reveal --export DIR``) closes every
submission still open (its slots not played are unscored; its result is signed and exported),
marks the round closed, writes ``D/reveal.json`` and copies what anyone needs into ``DIR``: the
commitment, the public key, the reveal, the round's tasks (``tasks.jsonl``, a suite file), the
host's log, and each submission's evaluation folder with its signed result and slot map. Never
the host's private key, the tokens or their hashes.

:func:`verify_reveal` (``acworld verify DIR --reveal reveal.json``) regenerates the tasks from
the revealed secret, checks them (and the secret, the package and the generators' code) against
the commitment, verifies every submission's folder completely (``acworld verify``'s own audit,
with the regenerated tasks as the published suite), and checks each signed result: signature,
commitment, root digest, per-slot digests and means against what the runs give.
"""

from __future__ import annotations

import base64
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.taskspec import task_canonical
from .commitment import (
    RoundTasks,
    SealedError,
    check_commitment,
    commitment_digest,
    read_secret,
    round_tasks,
)
from .keys import PUBLIC_FILE
from .result import RESULT_FILE, read_result, verify_signed
from .round import (
    COMMITMENT_FILE,
    LOG_FILE,
    SUBMISSION_FILE,
    SUBMISSIONS_DIR,
    RoundState,
    read_json,
    write_json,
)
from .submission import SLOTS_FILE

REVEAL_FILE = "reveal.json"
TASKS_FILE = "tasks.jsonl"
FORMAT = "acworld-sealed-reveal/1"


def reveal_doc(secret: bytes, rt: RoundTasks, commitment: dict[str, Any]) -> dict[str, Any]:
    """What ``reveal.json`` holds: the secret (as text when it is UTF-8, else base64) and what it gives."""
    try:
        text: dict[str, str] = {"secret": secret.decode("utf-8")}
    except UnicodeDecodeError:
        text = {"secret_b64": base64.b64encode(secret).decode()}
    return {"format": FORMAT, "round_id": commitment.get("round_id"), **text, "seed": rt.seed,
            "commitment_digest": commitment_digest(commitment),
            "slots": {slot: t.task_id for slot, t in rt.slots.items()}}


def secret_of(doc: Any) -> bytes:
    """The secret a ``reveal.json`` publishes; a clear error when it holds none."""
    if isinstance(doc, dict) and isinstance(doc.get("secret"), str):
        return doc["secret"].encode("utf-8")
    if isinstance(doc, dict) and isinstance(doc.get("secret_b64"), str):
        try:
            return base64.b64decode(doc["secret_b64"], validate=True)
        except ValueError:
            pass
    raise SealedError("the reveal file holds no secret")


def reveal_round(state_dir: Path, export: Path, *, secret_file: Path | None = None) -> dict[str, Any]:
    """Close the round in ``state_dir``, write ``reveal.json`` and export the round into ``export``."""
    from .host import SealedHost
    from .keys import load_or_create_key

    state = RoundState(state_dir)
    info = state.round()
    if export.exists() and (not export.is_dir() or any(export.iterdir())):
        raise SealedError(f"--export {export} exists and is not an empty folder")
    secret = read_secret(Path(secret_file or info["secret_file"]))
    rt = round_tasks(secret, info["suite"], info.get("n_tasks"))
    commitment = state.commitment()
    problems = check_commitment(commitment, secret, rt)
    if problems:
        raise SealedError(f"{state_dir}: {problems[0]}")
    if not info.get("closed"):
        host = SealedHost(state, rt, load_or_create_key(state.dir))
        for sub in list(host.subs.values()):
            if sub["status"] == "open":
                host.close_submission(sub["participant"])
        state.save_round({**info, "closed": True})
        state.log("round_closed")
    doc = reveal_doc(secret, rt, commitment)
    write_json(state.dir / REVEAL_FILE, doc)
    export.mkdir(parents=True, exist_ok=True)
    for name in (COMMITMENT_FILE, PUBLIC_FILE, REVEAL_FILE, LOG_FILE):
        if (state.dir / name).is_file():
            shutil.copyfile(state.dir / name, export / name)
    write_tasks(export / TASKS_FILE, rt)
    subs = state.dir / SUBMISSIONS_DIR
    for path in sorted(subs.iterdir()) if subs.is_dir() else []:
        shutil.copytree(path, export / SUBMISSIONS_DIR / path.name)
    return doc


def write_tasks(path: Path, rt: RoundTasks) -> None:
    """The round's tasks as a suite file (one canonical task per line, by task id)."""
    lines = sorted(task_canonical(t).decode("utf-8") for t in rt.slots.values())
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@dataclass
class RevealCheck:
    """The verdict on an exported round."""

    problems: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    """What was checked, one line each (printed by the command)."""
    roots: dict[str, str] = field(default_factory=dict)


def verify_reveal(export: Path, reveal_path: Path, *, public_key: Path | None = None) -> RevealCheck:
    """Check an exported round against its commitment with the revealed secret (see the module docstring)."""
    from ..eval.audit import audit_eval
    from ..tasks.anchor import SuiteIndex

    out = RevealCheck()
    doc = read_json(reveal_path)
    secret = secret_of(doc)
    commitment_path = export / COMMITMENT_FILE
    if not commitment_path.is_file():
        raise SealedError(f"{export} holds no {COMMITMENT_FILE}: not an exported sealed round")
    commitment = read_json(commitment_path)
    if not isinstance(commitment, dict):
        raise SealedError(f"{commitment_path} is not a commitment")
    first = check_commitment(commitment, secret)
    if first:  # another secret, package or generator code: the tasks it would regenerate prove nothing
        out.problems += first
        return out
    rt = round_tasks(secret, str(commitment.get("suite")), commitment.get("n_tasks"))
    out.problems += check_commitment(commitment, secret, rt)
    out.lines.append(f"commitment {commitment_digest(commitment)[:16]}…: secret, package {commitment.get('package_version')}, "
                     f"generators, {len(rt.slots)} tasks regenerated (seed {rt.seed})")
    key = public_key or export / PUBLIC_FILE
    with tempfile.TemporaryDirectory(prefix="acworld-reveal-") as tmp:
        suite_file = Path(tmp) / TASKS_FILE
        write_tasks(suite_file, rt)
        shipped = export / TASKS_FILE
        if shipped.is_file() and shipped.read_bytes() != suite_file.read_bytes():
            out.problems.append(f"{TASKS_FILE} differs from the tasks the secret regenerates")
        index = SuiteIndex(suite_file)
        subs = export / SUBMISSIONS_DIR
        for path in sorted(p for p in subs.iterdir() if p.is_dir()) if subs.is_dir() else []:
            audit = audit_eval(path, index=index)
            bad = [f"{path.name}: run {r.name}: {r.message}" for r in audit.runs if not r.ok]
            out.problems += [f"{path.name}: {p}" for p in audit.problems] + bad
            out.problems += _check_submission(path, audit, rt, commitment, key)
            out.roots[path.name] = audit.root_digest
            ok = sum(r.ok for r in audit.runs)
            out.lines.append(f"{path.name}: {ok}/{len(audit.runs)} runs verified, root digest {audit.root_digest}")
    return out


def _check_submission(path: Path, audit: Any, rt: RoundTasks, commitment: dict[str, Any], key: Path) -> list[str]:
    """The signed result of one exported submission against its folder."""
    name = path.name
    problems = []
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8")) if (path / "manifest.json").is_file() else {}
    if manifest.get("seed") != rt.seed or manifest.get("split") != "generated" or manifest.get("suite") != rt.suite:
        problems.append(f"{name}: manifest.json does not name the round's suite, split and seed")
    if not (path / RESULT_FILE).is_file():
        return [*problems, f"{name}: no {RESULT_FILE}"]
    result = read_result(path / RESULT_FILE)
    problems += [f"{name}: {p}" for p in verify_signed(result, key)]
    if result.get("commitment_digest") != commitment_digest(commitment) or result.get("commitment") != commitment:
        problems.append(f"{name}: the signed result names another commitment")
    if result.get("root_digest") != audit.root_digest:
        problems.append(f"{name}: the signed root digest differs from the one the runs give")
    slots = read_json(path / SLOTS_FILE) if (path / SLOTS_FILE).is_file() else {}
    entries = {e["name"]: e for e in manifest.get("runs", [])}
    for run in result.get("runs") or []:
        entry = entries.get(slots.get(run.get("slot"), ""))
        task = rt.slots.get(run.get("slot"))
        if entry is None or task is None or entry.get("task_id") != task.task_id or any(
                run.get(k) != entry.get(k) for k in ("status", "trace_digest", "event_digest", "state_digest",
                                                      "score_digest")):
            problems.append(f"{name}: slot {run.get('slot')}: the signed digests differ from its run")
    try:
        summary = json.loads((path / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        summary = {}
    for key in ("mean_score", "mean_safe_score", "scored", "unscored", "planned"):
        if result.get(key) != summary.get(key):
            problems.append(f"{name}: the signed {key} differs from what the runs give")
    for key in ("by_family", "safe_by_family"):
        signed = result.get(key) if isinstance(result.get(key), dict) else {}
        if any(summary.get(key, {}).get(f) != v for f, v in signed.items()):
            problems.append(f"{name}: the signed {key} differs from what the runs give")
    over_all = [float(r.score["score"]) if r.status == "scored" and r.score else 0.0 for r in audit.runs]
    expected = round(sum(over_all) / len(over_all), 6) if over_all else None
    if result.get("mean_score_over_all") != expected:
        problems.append(f"{name}: the signed mean_score_over_all differs from what the runs give")
    sub = read_json(path / SUBMISSION_FILE) if (path / SUBMISSION_FILE).is_file() else {}
    if sub and (sub.get("participant") != result.get("participant") or sub.get("policy") != result.get("policy")):
        problems.append(f"{name}: the signed participant or policy differs from the submission's")
    return problems
