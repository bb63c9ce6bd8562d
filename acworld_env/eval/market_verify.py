"""``acworld verify market.sqlite``: check a persistent open-market World and its episodes."""

from __future__ import annotations

from pathlib import Path


def is_world_file(path: Path) -> bool:
    """True for a file (not a run folder) that ``acworld verify`` should treat as a persistent World."""
    return path.is_file()


def verify_world_file(path: Path) -> int:
    """Print the verdict on ``path``; return the exit status (0 verified, 1 a check failed, 2 not a World)."""
    from ..cli_common import console
    from ..open_market.persistence import verify_world

    check = verify_world(path)
    if not check.readable:
        console.print(f"error: {path} is not a persistent World: {check.problems[0]}", markup=False)
        return 2
    for problem in check.problems:
        console.print(f"FAIL     {path}: {problem}", markup=False)
    status = "ok      " if check.ok else "FAIL    "
    console.print(f"{status} {path}  {check.commits} commits reconstructed, {check.episodes} episode trace(s) "
                  f"linked to their commits", markup=False)
    console.print(f"state digest {check.state_digest}\nevent digest {check.event_digest}", markup=False)
    return 0 if check.ok else 1
