"""The command-line hooks of a sealed round: ``serve --sealed``, ``eval --remote``, ``verify --signed/--reveal``.

Each prints one-line errors (exit 2) for what the user must change; none prints a token or the
secret (a test reads every byte these commands write).
"""

from __future__ import annotations

import secrets as _secrets
from collections import Counter
from pathlib import Path
from typing import Any

import typer

from ..cli_common import console
from .commitment import (
    RoundTasks,
    SealedError,
    build_commitment,
    commitment_digest,
    new_secret_file,
    read_secret,
    round_tasks,
)
from .round import RoundState

DEFAULT_SUITE = "capability-v1"


def _fail(exc: Exception) -> typer.Exit:
    console.print(f"error: {exc}", markup=False)
    return typer.Exit(2)


def open_round(state_dir: Path, *, secret_file: Path | None, suite: str | None, n_tasks: int | None,
               participants: list[str], submissions: int, rate: float, burst: int,
               min_family_tasks: int = 3) -> tuple[RoundState, RoundTasks | None]:
    """Open a round in ``state_dir`` (or load the one there), adding ``participants``; print what to publish.
    Returns the state and, for a round opened now, the tasks generated for it."""
    from .keys import key_id, load_or_create_key, public_pem

    state = RoundState(state_dir)
    rt: RoundTasks | None = None
    if state.exists:
        info = state.round()
        if suite is not None and suite != info["suite"] or n_tasks is not None and n_tasks != info.get("n_tasks"):
            raise SealedError(f"{state_dir} holds a round of {info['suite']} with {info.get('n_tasks')} tasks; "
                              "--suite and --tasks cannot change it")
        if secret_file is not None and Path(secret_file).resolve() != Path(info["secret_file"]):
            read_secret(secret_file)  # checked against the commitment when the host starts
    else:
        if secret_file is None:
            raise SealedError("opening a round needs --secret-file F (created with a fresh secret if absent)")
        if submissions < 1:
            raise SealedError("--submissions must be at least 1")
        if not Path(secret_file).exists():
            new_secret_file(Path(secret_file))
            console.print(f"wrote a new secret to {secret_file} (mode 0600; keep it until the reveal)", markup=False)
        secret = read_secret(secret_file)
        suite = suite or DEFAULT_SUITE
        if n_tasks is not None and n_tasks < 1:
            raise SealedError("--tasks must be at least 1")
        rt = round_tasks(secret, suite, n_tasks)
        round_id = f"round-{_secrets.token_hex(4)}"
        commitment = build_commitment(secret, rt, round_id=round_id)
        state.dir.mkdir(parents=True, exist_ok=True)
        state.save_round({"round_id": round_id, "suite": suite, "n_tasks": len(rt.slots),
                          "secret_file": str(Path(secret_file).resolve()), "submissions_per_token": submissions,
                          "rate": rate, "burst": burst, "min_family_tasks": min_family_tasks, "closed": False})
        counts = Counter(t.family for t in rt.slots.values())
        small = sorted(f for f, c in counts.items() if c < min_family_tasks)
        if small:
            console.print(f"note: {len(small)} famil{'y has' if len(small) == 1 else 'ies have'} fewer than "
                          f"{min_family_tasks} tasks in this round; their means are withheld from signed results "
                          "(they count in the overall mean)", markup=False)
        from .round import COMMITMENT_FILE, write_json

        write_json(state.dir / COMMITMENT_FILE, commitment)
        state.log("round_opened", round_id=round_id, commitment_digest=commitment_digest(commitment))
    key = load_or_create_key(state.dir)
    added = state.add_participants(participants)
    commitment = state.commitment()
    console.print(f"sealed round {commitment['round_id']}: {commitment['suite']}, {commitment['n_tasks']} tasks; "
                  f"commitment {state.dir / 'commitment.json'} (digest {commitment_digest(commitment)})", markup=False)
    console.print(f"public key {state.dir / 'public_key.pem'} (key id {key_id(public_pem(key))})", markup=False)
    for name in added:
        console.print(f"participant {name}: token file {state.dir / 'tokens' / (name + '.token')}", markup=False)
    return state, rt


def serve_sealed(*, state_dir: Path, secret_file: Path | None, suite: str | None, n_tasks: int | None,
                 participants: str | None, submissions: int, rate: float, burst: int, min_family_tasks: int,
                 host: str, port: int,
                 idle_timeout: float, reveal: bool, export: Path | None) -> None:
    """``acworld serve --sealed ...``: open (or continue) a round and serve it, or reveal and export it."""
    names = [p.strip() for p in (participants or "").split(",") if p.strip()]
    try:
        if reveal or export is not None:
            if not (reveal and export is not None):
                raise SealedError("--reveal and --export DIR go together: acworld serve --sealed --state-dir D "
                                  "--reveal --export DIR")
            from .reveal import REVEAL_FILE, reveal_round

            reveal_round(state_dir, export, secret_file=secret_file)
            console.print(f"round closed; the secret is in {state_dir / REVEAL_FILE}; artifacts exported to {export}/ "
                          f"(check: acworld verify {export} --reveal {export / REVEAL_FILE})", markup=False)
            return
        state, rt = open_round(state_dir, secret_file=secret_file, suite=suite, n_tasks=n_tasks, participants=names,
                           submissions=submissions, rate=rate, burst=burst, min_family_tasks=min_family_tasks)
        from .host import SealedHost

        sealed = SealedHost.start(state.dir, secret_file=secret_file, idle_timeout=idle_timeout, generated=rt)
    except SealedError as exc:
        raise _fail(exc) from None
    import gc

    import uvicorn

    from ..remote.gates import LOOPBACK
    from .routes import create_sealed_app

    if host not in LOOPBACK:
        console.print(f"note: binding {host}: participant tokens travel as bearer credentials; serve the round "
                      "behind TLS (a reverse proxy)", markup=False)
    app = create_sealed_app(sealed, bind=host)
    console.print(f"serving the sealed round on http://{host}:{port} (participants: acworld eval "
                  f"{sealed.rt.suite} --remote http://{host}:{port} --token-file TOKEN --policy ... --out DIR)",
                  markup=False)
    gc.freeze()
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)


def run_remote_eval(config: Any, *, url: str, token_file: Path, progress: bool, allow_unscored: bool) -> None:
    """``acworld eval SUITE --remote URL --token-file T``: play the round, print and save the signed result."""
    from .participant import SealedInterrupted, read_token, run_sealed
    from .result import RESULT_FILE

    unused = [flag for flag, used in (("--tasks", config.tasks), ("--split", config.split != "frozen"),
                                      ("--repeats", config.repeats != 1), ("--backend", config.backend != "local"))
              if used]
    if unused:
        raise _fail(SealedError(f"{', '.join(unused)} cannot apply with --remote: the round decides the tasks "
                                "(each played once, on this machine's threads)"))
    notes: list[str] = []
    try:
        token = read_token(token_file)
        result = run_sealed(config, url=url, token=token, progress=progress, notes=notes)
    except SealedInterrupted as stop:
        console.print(f"{stop}; the submission stays open: continue with the same command and --resume",
                      markup=False)
        raise typer.Exit(130) from None
    except (SealedError, ValueError, KeyError) as exc:
        raise _fail(exc) from None
    finally:
        for note in notes:
            console.print(f"note: {note}", markup=False)
    mean = result.get("mean_score")
    console.print(f"{result['commitment']['suite']} (sealed {result['round_id']}) / {result['policy']}: "
                  f"{result['scored']}/{result['planned']} scored, mean score "
                  f"{'n/a' if mean is None else f'{mean:.3f}'}, over every task (unscored as 0) "
                  f"{result['mean_score_over_all']:.3f}, unscored {result['unscored']}", markup=False)
    for fam, val in (result.get("by_family") or {}).items():
        console.print(f"  {fam:<20} {val:.3f}", markup=False)
    console.print(f"Root digest {result['root_digest']}", markup=False)
    console.print(f"Signed result in {config.out / RESULT_FILE}; check with: acworld verify --signed "
                  f"{config.out / RESULT_FILE} --public-key PUBLIC_KEY.pem", markup=False)
    if result["unscored"] and not allow_unscored:
        raise typer.Exit(1)


def verify_signed_command(signed: Path, public_key: Path | None) -> None:
    """``acworld verify --signed R --public-key K``: exit 0 when the signature holds, 1 when not."""
    from .result import read_result, verify_signed

    if public_key is None:
        raise _fail(SealedError("--signed needs --public-key K (the round's public_key.pem)"))
    try:
        result = read_result(signed)
        problems = verify_signed(result, public_key)
    except SealedError as exc:
        raise _fail(exc) from None
    if problems:
        console.print(f"FAIL     {signed}: {problems[0]}", markup=False)
        raise typer.Exit(1)
    console.print(f"ok       {signed}: signed by key {result.get('key_id')}; {result.get('participant')} / "
                  f"{result.get('policy')}: mean score {result.get('mean_score')}, root digest "
                  f"{result.get('root_digest')}", markup=False)


def verify_reveal_command(export: Path, reveal: Path, public_key: Path | None) -> None:
    """``acworld verify DIR --reveal reveal.json``: exit 0 when the whole round checks, 1 when not."""
    from .reveal import verify_reveal

    try:
        check = verify_reveal(export, reveal, public_key=public_key)
    except SealedError as exc:
        raise _fail(exc) from None
    for line in check.lines:
        console.print(line, markup=False)
    for problem in check.problems[:50]:
        console.print(f"FAIL     {problem}", markup=False)
    if check.problems:
        raise typer.Exit(1)
    console.print(f"the round checks: commitment, tasks, {len(check.roots)} submission(s) verified", markup=False)
