"""``acworld verify market.sqlite``: check a persistent open-market World and its episodes."""

from __future__ import annotations

from pathlib import Path


def is_world_file(path: Path) -> bool:
    """True for a file (not a run folder) that ``acworld verify`` should treat as a persistent World."""
    return path.is_file()


def verify_world_file(path: Path, expect: str | None = None) -> int:
    """Print the verdict on ``path``; return the exit status (0 verified, 1 a check failed, 2 not a World).

    ``expect``: a published root digest the World must reproduce (its episode chain's last hash).

    A file that is no World at all is a usage error (2), unless an episodes folder lies beside it:
    then it was a World (emptied or truncated), and that is a failed check (1).
    """
    from ..cli_common import console
    from ..open_market.persistence import episodes_dir, verify_world

    check = verify_world(path)
    if not check.readable and not episodes_dir(path).is_dir():
        console.print(f"error: {path} is not a persistent World: {check.problems[0]}", markup=False)
        return 2
    for problem in check.problems:
        console.print(f"FAIL     {path}: {problem}", markup=False)
    if not check.readable:  # a World once (its episodes folder is there), unreadable now
        console.print(f"FAIL     {path}  not readable as a World beside {episodes_dir(path)}", markup=False)
        return 1
    for note in check.notes:
        console.print(f"note     {path}: {note}", markup=False)
    status = "ok      " if check.ok else "FAIL    "
    aborted = (f", {len(check.aborted)} aborted (episode {', '.join(map(str, check.aborted))}: its process ended "
               "before it closed)" if check.aborted else "")
    console.print(f"{status} {path}  {check.commits} commits reconstructed, {check.episodes - len(check.aborted)} "
                  f"episode trace(s) linked to their commits{aborted}", markup=False)
    console.print(f"state digest {check.state_digest}\nevent digest {check.event_digest}\n"
                  f"root digest  {check.root_digest}  (episode chain: initial state, commits, episode files)",
                  markup=False)
    if expect is not None and check.root_digest != expect.strip().lower():
        console.print(f"FAIL     {path}: root digest {check.root_digest} is not the expected {expect}", markup=False)
        return 1
    return 0 if check.ok else 1
