"""The round's secret, the task seed derived from it, the tasks it selects, and the commitment to them.

Everything a round plays follows from the secret file's bytes: the suite's generated split is
built from a 63-bit seed derived with HMAC-SHA256 (the first of a fixed sequence of derived seeds
for which every family's builder succeeds; so the seed says nothing about the secret and
the secret cannot be recovered from it), ``n`` tasks are picked from it round-robin over the
families, and they are dealt to opaque slots (``slot-001``, ...) in an order also derived from
the secret. The commitment, published before anyone plays, binds the round to that secret (a
salted digest of it), the suite, the package version, a digest of the generators' code, the
number of tasks and the digest of the selected task set. After the reveal anyone recomputes all
of it with :func:`round_tasks` and :func:`check_commitment`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import AcworldError

FORMAT = "acworld-sealed-commitment/1"
SPLIT = "generated"
MAX_ATTEMPTS = 8
"""Seeds tried, in order, when a generator cannot build a task from one (the same on every machine)."""
MIN_SECRET_BYTES = 16
"""A shorter secret could be guessed from its published digest."""
_SECRET_TAG = b"acworld-sealed/secret-digest/v1\x00"
_SEED_TAG = b"acworld-sealed/task-seed/v1\x00"
_ORDER_TAG = b"acworld-sealed/slot-order/v1\x00"


class SealedError(AcworldError, ValueError):
    """A sealed round that cannot be opened, played, revealed or verified as asked (one-line message)."""


def read_secret(path: Path) -> bytes:
    """The secret file's bytes (surrounding whitespace removed); a clear error when unusable."""
    try:
        data = Path(path).read_bytes().strip()
    except OSError as exc:
        raise SealedError(f"cannot read the secret file {path}: {exc.strerror or type(exc).__name__}") from None
    if len(data) < MIN_SECRET_BYTES:
        raise SealedError(f"the secret file {path} holds {len(data)} bytes; it needs at least {MIN_SECRET_BYTES} "
                          "(e.g. python -c 'import secrets; print(secrets.token_hex(32))' > FILE)")
    return data


def new_secret_file(path: Path) -> bytes:
    """Create ``path`` (mode 0600, exclusively) with a fresh 256-bit secret; return it."""
    secret = secrets.token_hex(32).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _open_private(path)
    with open(fd, "wb") as fh:
        fh.write(secret + b"\n")
    return secret


def _open_private(path: Path) -> int:
    import os

    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)


def secret_digest(secret: bytes) -> str:
    """The published, salted digest of the secret (checked at the reveal)."""
    return hashlib.sha256(_SECRET_TAG + secret).hexdigest()


def derive_seed(secret: bytes, suite: str, attempt: int = 0) -> int:
    """The generated split's seed: 63 bits of HMAC-SHA256(secret, suite, attempt)."""
    mac = hmac.new(secret, _SEED_TAG + suite.encode() + b"\x00" + str(attempt).encode(), hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "big") & ((1 << 63) - 1)


def generator_digest() -> str:
    """SHA-256 over the task generators' code: every ``acworld_env/tasks/**/*.py`` file, by relative path."""
    root = Path(__file__).resolve().parents[1] / "tasks"
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        h.update(rel.encode() + b"\x00" + hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def package_version() -> str:
    """The installed acworld_env version."""
    from .. import __version__

    return str(__version__)


def select(tasks: list[Any], n: int | None) -> list[Any]:
    """``n`` tasks taken round-robin over the families, in generation order (all when ``n`` is None)."""
    if n is None or n >= len(tasks):
        return list(tasks)
    if n < 1:
        raise SealedError(f"--tasks must be at least 1, got {n}")
    by_family: OrderedDict[str, list[Any]] = OrderedDict()
    for t in tasks:
        by_family.setdefault(t.family, []).append(t)
    picked: list[Any] = []
    depth = 0
    while len(picked) < n:
        for group in by_family.values():
            if depth < len(group) and len(picked) < n:
                picked.append(group[depth])
        depth += 1
    return picked


def slot_names(n: int) -> list[str]:
    """The opaque slot names of a round of ``n`` tasks."""
    width = max(3, len(str(n)))
    return [f"slot-{i + 1:0{width}d}" for i in range(n)]


def deal(secret: bytes, tasks: list[Any]) -> dict[str, Any]:
    """Slot name -> task, in an order derived from the secret (a slot's number says nothing of its task)."""
    keyed = sorted(tasks, key=lambda t: hmac.new(secret, _ORDER_TAG + t.task_id.encode(), hashlib.sha256).digest())
    return dict(zip(slot_names(len(tasks)), keyed, strict=True))


@dataclass(frozen=True)
class RoundTasks:
    """What a secret gives: the seed, the tasks by slot, and their set digest."""

    suite: str
    seed: int
    slots: dict[str, Any]
    tasks_digest: str


def round_tasks(secret: bytes, suite: str, n: int | None) -> RoundTasks:
    """Generate the round's tasks from ``secret`` (seconds: the whole generated split is built)."""
    from ..tasks.anchor import suite_hash
    from ..tasks.suites import load_suite

    for attempt in range(MAX_ATTEMPTS):
        seed = derive_seed(secret, suite, attempt)
        try:
            generated = load_suite(suite, SPLIT, seed)
            break
        except (KeyError, ValueError) as exc:
            raise SealedError(f"cannot generate suite {suite!r}: {exc.args[0] if exc.args else exc}") from None
        except RuntimeError:  # a builder that found no valid task for this seed: the next derived seed
            continue
    else:
        raise SealedError(f"the {suite} generators failed for {MAX_ATTEMPTS} seeds derived from this secret")
    chosen = select(generated, n)
    return RoundTasks(suite, seed, deal(secret, chosen), suite_hash(chosen))


def build_commitment(secret: bytes, rt: RoundTasks, *, round_id: str) -> dict[str, Any]:
    """The commitment published when the round opens."""
    return {"format": FORMAT, "round_id": round_id, "suite": rt.suite, "split": SPLIT,
            "n_tasks": len(rt.slots), "slots": list(rt.slots), "secret_digest": secret_digest(secret),
            "package_version": package_version(), "generator_digest": generator_digest(),
            "tasks_digest": rt.tasks_digest}


def commitment_digest(commitment: dict[str, Any]) -> str:
    """SHA-256 of the commitment's canonical JSON (what a signed result names)."""
    from ..world import canonical

    return hashlib.sha256(canonical(commitment)).hexdigest()


def check_commitment(commitment: dict[str, Any], secret: bytes, rt: RoundTasks | None = None) -> list[str]:
    """Why ``secret`` (and the tasks it regenerates, ``rt``) does not match ``commitment``; empty when it does."""
    problems = []
    if commitment.get("format") != FORMAT:
        problems.append(f"not a sealed-round commitment (format {commitment.get('format')!r})")
    if not hmac.compare_digest(str(commitment.get("secret_digest", "")), secret_digest(secret)):
        problems.append("the revealed secret does not match the commitment's secret_digest")
    if commitment.get("package_version") != package_version():
        problems.append(f"the commitment names package version {commitment.get('package_version')!r}; "
                        f"installed: {package_version()}")
    if commitment.get("generator_digest") != generator_digest():
        problems.append("the installed task generators' code differs from the commitment's generator_digest "
                        "(install the committed version)")
    if rt is not None:
        if commitment.get("n_tasks") != len(rt.slots) or commitment.get("slots") != list(rt.slots):
            problems.append(f"the commitment names {commitment.get('n_tasks')} tasks; the secret gives {len(rt.slots)}")
        if commitment.get("tasks_digest") != rt.tasks_digest:
            problems.append("the regenerated tasks differ from the commitment's tasks_digest")
    return problems
