"""A sealed round's state on disk: participants (tokens kept hashed), submissions, the host's log.

Layout of the state folder ``D``::

    D/round.json            suite, task count, the secret file's path (never its bytes), limits, closed?
    D/commitment.json       the published commitment (:mod:`.commitment`)
    D/host_key.pem          the host's Ed25519 key (0600);  D/public_key.pem  its public half
    D/participants.json     participant -> SHA-256 of its token
    D/tokens/NAME.token     each participant's token, to hand over (0600)
    D/log.jsonl             every submission and episode a participant opened or closed, appended
    D/submissions/NAME-K/   submission K of NAME: an evaluation folder (manifest.json, runs/,
                            summary.json, results.csv) plus submission.json and signed_result.json

Every JSON file is replaced atomically (written beside, flushed, renamed), and the log is appended
and flushed per line, so a host that dies leaves each file whole. Nothing here holds the secret
or a token in the clear, but for the token files the host hands over.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from .commitment import SealedError

ROUND_FILE = "round.json"
COMMITMENT_FILE = "commitment.json"
PARTICIPANTS_FILE = "participants.json"
LOG_FILE = "log.jsonl"
TOKENS_DIR = "tokens"
SUBMISSIONS_DIR = "submissions"
SUBMISSION_FILE = "submission.json"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def token_hash(token: str) -> str:
    """What the host keeps of a token."""
    return hashlib.sha256(b"acworld-sealed/token/v1\x00" + token.encode("utf-8", "surrogatepass")).hexdigest()


def write_json(path: Path, data: Any, *, private: bool = False) -> None:
    """Replace ``path`` atomically with ``data`` as indented JSON (``private``: mode 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with open(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=1, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    """A JSON file of the state folder; a clear error when it is damaged."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SealedError(f"cannot read {path}: {exc.strerror or type(exc).__name__}") from None
    except (UnicodeDecodeError, ValueError):
        raise SealedError(f"{path} is damaged (not JSON)") from None


def check_name(name: str) -> str:
    """A participant name usable in file names (letters, digits, ``_.-``; at most 64)."""
    if not _NAME.match(name):
        raise SealedError(f"participant name {name!r}: use letters, digits, '_', '.' or '-' (at most 64, "
                          "starting with a letter or digit)")
    return name


class RateLimiter:
    """A token bucket per participant: ``rate`` requests per second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, who: str) -> float:
        """0.0 when ``who`` may make a request now (one is taken), else the seconds to wait."""
        now = time.monotonic()
        with self._lock:
            level, at = self._buckets.get(who, (float(self.burst), now))
            level = min(float(self.burst), level + (now - at) * self.rate)
            if level >= 1.0:
                self._buckets[who] = (level - 1.0, now)
                return 0.0
            self._buckets[who] = (level, now)
            return (1.0 - level) / self.rate


class RoundState:
    """The files of one round's state folder (see the module docstring)."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = Path(state_dir)
        self._lock = threading.Lock()

    # -- round ----------------------------------------------------------------------
    @property
    def exists(self) -> bool:
        """Whether a round was opened in this folder."""
        return (self.dir / ROUND_FILE).is_file()

    def round(self) -> dict[str, Any]:
        """``round.json``."""
        if not self.exists:
            raise SealedError(f"{self.dir} holds no sealed round (open one with acworld serve --sealed "
                              "--secret-file F --state-dir D)")
        data = read_json(self.dir / ROUND_FILE)
        if not isinstance(data, dict):
            raise SealedError(f"{self.dir / ROUND_FILE} is damaged")
        return data

    def save_round(self, data: dict[str, Any]) -> None:
        """Replace ``round.json``."""
        write_json(self.dir / ROUND_FILE, data)

    def commitment(self) -> dict[str, Any]:
        """``commitment.json``."""
        data = read_json(self.dir / COMMITMENT_FILE)
        if not isinstance(data, dict):
            raise SealedError(f"{self.dir / COMMITMENT_FILE} is damaged")
        return data

    # -- participants -----------------------------------------------------------------
    def participants(self) -> dict[str, str]:
        """Participant -> token hash."""
        path = self.dir / PARTICIPANTS_FILE
        return dict(read_json(path)) if path.is_file() else {}

    def add_participants(self, names: list[str]) -> list[str]:
        """Give each new name a token (its file under ``tokens/``); return the names added."""
        with self._lock:
            known = self.participants()
            added = []
            for name in names:
                if check_name(name) in known:
                    continue
                token = secrets.token_urlsafe(32)
                tokens = self.dir / TOKENS_DIR
                tokens.mkdir(parents=True, exist_ok=True)
                os.chmod(tokens, 0o700)
                fd = os.open(tokens / f"{name}.token", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with open(fd, "w", encoding="utf-8") as fh:
                    fh.write(token + "\n")
                known[name] = token_hash(token)
                added.append(name)
            if added:
                write_json(self.dir / PARTICIPANTS_FILE, known, private=True)
            return added

    def who(self, token: str | None, known: dict[str, str]) -> str | None:
        """The participant holding ``token`` (constant-time comparison of hashes), or None."""
        if not token:
            return None
        digest = token_hash(token)
        found = None
        for name, stored in known.items():
            if hmac.compare_digest(digest, stored):
                found = name
        return found

    # -- submissions ---------------------------------------------------------------------
    def submission_dir(self, sub_id: str) -> Path:
        """The folder of submission ``sub_id`` (``NAME-K``)."""
        return self.dir / SUBMISSIONS_DIR / sub_id

    def submissions(self) -> dict[str, dict[str, Any]]:
        """Every submission's ``submission.json``, by id."""
        root = self.dir / SUBMISSIONS_DIR
        out = {}
        if root.is_dir():
            for path in sorted(root.iterdir()):
                if (path / SUBMISSION_FILE).is_file():
                    out[path.name] = read_json(path / SUBMISSION_FILE)
        return out

    def save_submission(self, sub: dict[str, Any]) -> None:
        """Replace a submission's ``submission.json``."""
        write_json(self.submission_dir(sub["id"]) / SUBMISSION_FILE, sub)

    # -- log ----------------------------------------------------------------------------
    def log(self, event: str, **fields: Any) -> None:
        """Append one line to ``log.jsonl`` (flushed): what a participant opened or closed, never a token."""
        line = json.dumps({"time": round(time.time(), 3), "event": event, **fields}, sort_keys=True)
        with self._lock, open(self.dir / LOG_FILE, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def read_log(self) -> list[dict[str, Any]]:
        """Every line of the log."""
        path = self.dir / LOG_FILE
        if not path.is_file():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
