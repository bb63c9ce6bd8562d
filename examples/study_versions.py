"""Which version of the env and the learner a study's runs were trained under, and how to resume a long
study at that version while the checkout moves on.

A resumable study keys each run by its settings, the learner's bytes and :func:`env_digest` (the env
sources a training run reads). Edit any of them between sittings and every recorded run is trained
again. ``--at REV`` keeps a study at one commit instead: :func:`relaunch` checks that commit out once
as a detached git worktree under ``.study/trees/`` and runs the same script from there, with the
outputs (the JSON, the figure, the policies, the run folder) still landing in the user's checkout
(:func:`home`). Each run record names the commit it was trained at (:func:`record_version`), so a
study that finds records of another version says which ``--at`` resumes them (:func:`other_versions`).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENV_EXCLUDED = ("card", "remote", "integrations", "eval", "cli.py", "cli_common.py", "__pycache__")
"""Parts of the package no training run reads (reports, servers, the CLI): left out of :func:`env_digest`."""
PINNED_ENV = "ACWORLD_STUDY_PINNED"
"""Set in a relaunched study: the commit it runs at (so it does not relaunch again)."""
HOME_ENV = "ACWORLD_STUDY_HOME"
"""Set in a relaunched study: the user's checkout, where the study's outputs go."""


class VersionError(Exception):
    """A revision that cannot be checked out for a study (a one-line message)."""


def home(root: Path = ROOT) -> Path:
    """The checkout a study writes its outputs into: the user's, also when it runs from a pinned worktree."""
    return Path(os.environ.get(HOME_ENV) or root)


def env_digest(package: Path | None = None) -> str:
    """SHA-256 over the package's Python sources a training run depends on (the env, its tasks, the menu,
    the slot features, the rewards): a run recorded under another digest is trained again."""
    package = package or ROOT / "acworld_env"
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        if rel.parts[0] in ENV_EXCLUDED:
            continue
        h.update(rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _git(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def learner_version(path: Path) -> dict[str, Any]:
    """The learner script's SHA-256, the commit it was last changed in, the commit checked out (``head``,
    what ``--at`` resumes) and the digest of the env sources (:func:`env_digest`)."""
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    last = _git("log", "-1", "--format=%H", "--", str(path)).stdout.strip() or None
    head = _git("rev-parse", "HEAD").stdout.strip() or None
    dirty = _git("diff", "--quiet", "--", str(path)).returncode == 1
    env_dirty = _git("status", "--porcelain", "--", "acworld_env").stdout.strip() != ""
    return {"sha256": digest, "commit": last, "uncommitted_changes": dirty, "head": head,
            "env_uncommitted_changes": env_dirty, "env_sha256": env_digest()}


def record_version(version: dict[str, Any]) -> dict[str, Any]:
    """What a run record keeps of the version it was trained under: enough to name the ``--at`` that
    resumes it."""
    clean = not (version.get("uncommitted_changes") or version.get("env_uncommitted_changes"))
    return {"head": version.get("head") if clean else None, "learner_sha256": version["sha256"],
            "env_sha256": version["env_sha256"]}


def other_versions(records: Iterable[dict[str, Any]], version: dict[str, Any]) -> dict[str, int]:
    """Records of a run folder trained under another learner or env than ``version``, counted by the commit
    that made them (``"unrecorded"`` where the record does not say, or the tree had uncommitted edits)."""
    counts: dict[str, int] = {}
    for record in records:
        made = record.get("version") or {}
        if made.get("learner_sha256") == version["sha256"] and made.get("env_sha256") == version["env_sha256"]:
            continue
        name = made.get("head") or "unrecorded"
        counts[name] = counts.get(name, 0) + 1
    return counts


def resolve(rev: str, root: Path = ROOT) -> str:
    """The full commit id ``rev`` names in the checkout at ``root``."""
    proc = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", cwd=root)
    if proc.returncode != 0 or not proc.stdout.strip():
        raise VersionError(f"--at {rev}: no such commit in {root}")
    return proc.stdout.strip()


def pinned_tree(commit: str, root: Path = ROOT) -> Path:
    """A detached worktree of ``commit`` under ``<root>/.study/trees/`` (made once, reused after)."""
    tree = root / ".study" / "trees" / commit[:12]
    if (tree / ".git").exists():
        head = _git("rev-parse", "HEAD", cwd=tree).stdout.strip()
        if head != commit:
            raise VersionError(f"{tree} is at {head[:12] or 'no commit'}, not {commit[:12]}: remove it and run again")
        return tree
    tree.parent.mkdir(parents=True, exist_ok=True)
    proc = _git("worktree", "add", "--detach", str(tree), commit, cwd=root)
    if proc.returncode != 0:
        raise VersionError(f"cannot check out {commit[:12]} into {tree}: {(proc.stderr or proc.stdout).strip()}")
    return tree


def relaunch(script: Path, argv: Sequence[str], rev: str, root: Path = ROOT) -> int | None:
    """Run ``script`` with ``argv`` from a worktree of ``rev`` (its package first on the path, the same
    working directory, outputs into ``root``) and return its exit status; None when this process already
    runs at that commit (then the caller goes on)."""
    commit = resolve(rev, root)
    if os.environ.get(PINNED_ENV) == commit:
        return None
    tree = pinned_tree(commit, root)
    pinned = tree / script.resolve().relative_to(root)
    if not pinned.is_file():
        raise VersionError(f"{script.name} does not exist at {commit[:12]}")
    path = os.pathsep.join(filter(None, [str(tree), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, PINNED_ENV: commit, HOME_ENV: str(home(root))}
    print(f"running {script.name} at {commit[:12]} from {tree}", flush=True)
    return subprocess.call([sys.executable, str(pinned), *argv], env=env)
