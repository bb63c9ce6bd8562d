"""``acworld seats`` and ``acworld play``: one hosted episode, each actor played from its own process.

    acworld serve --runs served/                                        # the market server
    acworld seats http://127.0.0.1:8765 --task-id capability-v1/T4/buyer/zopa/01 --out seats/
    acworld play http://127.0.0.1:8765 --seats seats/ --actor buyer_0 --policy openai:gpt-4o      # one terminal
    acworld play http://127.0.0.1:8765 --seats seats/ --actor merchant_0 --policy sb3:m.npz       # another

``seats`` starts the episode with every actor an agent and writes one credential file per actor
(``ACTOR.token``, readable by its owner only) beside ``episode.json``; ``play`` plays one actor with
one credential (:class:`~acworld_env.remote.seat.Seat`). The run lands in the server's ``--runs``
folder, with ``sides.json`` holding every side's score: ``acworld verify served/``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import typer

from ..cli_common import console


def _fail(message: str, code: int = 2) -> typer.Exit:
    console.print(f"error: {message}", markup=False)
    return typer.Exit(code)


def _write_private(path: Path, text: str) -> None:
    """Create ``path`` readable and writable by its owner only (an existing file is an error)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def seats_command(
    url: str = typer.Argument(..., help="The acworld serve server, e.g. http://127.0.0.1:8765."),
    task_id: str = typer.Option(..., "--task-id", help="The task to play, e.g. capability-v1/T4/buyer/zopa/01."),
    out: Path = typer.Option(None, "--out", help="Folder for episode.json and one ACTOR.token per actor "
                             "(default seats/EPISODE_ID; must not hold seats already)."),
    suite: str = typer.Option("capability-v1", "--suite"),
    split: str = typer.Option("frozen", "--split", help="frozen, or generated (with --seed)."),
    seed: int = typer.Option(None, "--seed", help="Task-generation seed of the generated split."),
    episode_seed: int = typer.Option(0, "--episode-seed", help="The episode seed (as acworld eval --seed)."),
    token_file: Path = typer.Option(None, "--token-file", help="File holding the server's admin credential, "
                                    "if it has one."),
) -> None:
    """Start a hosted episode with every actor an agent; write each actor's credential to its own file."""
    from ..remote.seat import SeatRefused, open_seats

    token = _read_token(token_file) if token_file else None
    if out is not None and (out / "episode.json").exists():
        raise _fail(f"{out} already holds seats (episode.json); choose another --out")
    try:
        seats = open_seats(url, task_id=task_id, episode_seed=episode_seed, suite=suite, split=split, seed=seed,
                           token=token)
    except (SeatRefused, ValueError) as exc:
        raise _fail(str(exc)) from None
    folder = out or Path("seats") / seats.episode_id
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if (folder / "episode.json").exists():
            raise _fail(f"{folder} already holds seats (episode.json); choose another --out")
        for actor, credential in seats.credentials.items():
            _write_private(folder / f"{actor}.token", credential + "\n")
        _write_private(folder / "env.token", seats.env_token + "\n")
        (folder / "episode.json").write_text(json.dumps(
            {"url": seats.url, "episode_id": seats.episode_id, "env_id": seats.env_id, "task_id": seats.task_id,
             "roles": seats.roles, "episode_seed": episode_seed}, indent=1, sort_keys=True) + "\n")
    except OSError as exc:
        raise _fail(f"cannot write the seats into {folder}: {exc}") from None
    console.print(f"episode {seats.episode_id} of {seats.task_id}: {len(seats.roles)} seats in {folder}/",
                  markup=False)
    for actor, role in seats.roles.items():
        console.print(f"  {actor} ({role}): acworld play {seats.url} --seats {folder} --actor {actor} "
                      f"--policy SPEC", markup=False)


def _read_token(path: Path) -> str:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(f"cannot read the credential file {path}: {exc}") from None
    if not token:
        raise _fail(f"the credential file {path} is empty")
    return token


def _episode_of(seats: Path) -> dict[str, Any]:
    try:
        doc = json.loads((seats / "episode.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _fail(f"{seats}/episode.json unreadable ({type(exc).__name__}): write it with acworld seats") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("episode_id"), str):
        raise _fail(f"{seats}/episode.json is not a seats file (acworld seats writes one)")
    return doc


def seat_policy(spec: str, *, task_id: str, actor: str, seed: int, suite: str, split: str, task_seed: int,
                options: dict[str, Any]) -> Any:
    """The policy one seat plays. ``reference`` loads the task from the installed suite (the seat's process
    then holds the task spec); every other spec needs no task: the policy sees its observations only."""
    from ..policies.llm import is_llm_spec
    from ..policies.specs import resolve_policy

    if spec == "reference":
        from .plan import select_tasks
        from .two_sided import task_policy

        found = [t for t in select_tasks(suite, split, task_seed, None) if t.task_id == task_id]
        if not found:
            raise ValueError(f"task {task_id} is not in {suite} ({split}); pass --suite/--split/--seed, "
                             "or a policy that needs no task")
        return task_policy(found[0], actor)
    if spec.startswith("sb3:"):
        from ..wrappers.trained import policy_from_path

        return policy_from_path(spec)
    return resolve_policy(spec, **(options if is_llm_spec(spec) else {}))(None, seed)  # type: ignore[arg-type]


def play_command(
    url: str = typer.Argument(..., help="The acworld serve server, e.g. http://127.0.0.1:8765."),
    policy: str = typer.Option(..., "--policy", help="The policy of this seat (as acworld eval --policy)."),
    seats: Path = typer.Option(None, "--seats", help="A folder written by acworld seats (with --actor)."),
    actor: str = typer.Option(None, "--actor", help="With --seats: the actor to play (reads ACTOR.token)."),
    episode: str = typer.Option(None, "--episode", help="Instead of --seats: the episode id (with --token-file)."),
    token_file: Path = typer.Option(None, "--token-file", help="Instead of --seats: the actor's credential file."),
    record: Path = typer.Option(None, "--record", help="Write every observation this seat received (JSON lines)."),
    result: Path = typer.Option(None, "--result", help="Write this seat's result (JSON) here."),
    suite: str = typer.Option("capability-v1", "--suite", help="reference: the suite holding the task."),
    split: str = typer.Option("frozen", "--split", help="reference: the task's split."),
    seed: int = typer.Option(0, "--seed", help="reference: the generated split's task-generation seed."),
    base_url: str = typer.Option(None, "--base-url", help="Endpoint for openai-compatible policies."),
    api_key_file: Path = typer.Option(None, "--api-key-file", help="File holding the provider API key."),
    cache_dir: Path = typer.Option(None, "--cache-dir", help="Cache model responses here."),
    turn_wait: float = typer.Option(10.0, "--turn-wait", min=0.1, max=30.0, help="Seconds one request waits "
                                    "on the server for this actor's turn."),
    patience: float = typer.Option(600.0, "--patience", min=1.0, help="Give up when the episode does not "
                                   "move for this many seconds."),
) -> None:
    """Play one actor of a hosted episode with its own credential; only its own view reaches this process.

    Exit status: 0 when the episode ended scored, 1 when it ended unscored or had not ended, 2 for
    usage errors and refused requests (a wrong credential, an unknown episode, an unknown policy).
    """
    from ..remote.seat import Seat, SeatRefused

    if seats is not None:
        if actor is None or episode is not None or token_file is not None:
            raise _fail("--seats DIR goes with --actor ACTOR (and without --episode/--token-file)")
        episode = _episode_of(seats)["episode_id"]
        token_file = seats / f"{actor}.token"
    elif episode is None or token_file is None:
        raise _fail("name the seat: --seats DIR --actor ACTOR, or --episode ID --token-file FILE")
    credential = _read_token(token_file)
    seat = Seat(url, episode, credential)
    seen: list[dict[str, Any]] = []
    try:
        first = seat.status()
        me = str(first["actor"])
        info = (first.get("infos") or {}).get(me) or {}
        options = {k: v for k, v in {"base_url": base_url, "api_key_file": str(api_key_file) if api_key_file else None,
                                     "cache_dir": str(cache_dir) if cache_dir else None}.items() if v is not None}
        agent = seat_policy(policy, task_id=str(first.get("task_id")), actor=me, seed=int(info.get("episode_seed", 0)),
                            suite=suite, split=split, task_seed=seed, options=options)
        if hasattr(agent, "reset"):
            agent.reset(int(info.get("episode_seed", 0)))
        outcome = seat.play(agent, on_observation=seen.append, turn_wait=turn_wait, patience=patience)
    except SeatRefused as exc:
        raise _fail(f"the server refused this seat: {exc}") from None
    except (KeyError, ValueError) as exc:
        raise _fail(str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)) from None
    finally:
        seat.close()
        if record is not None:
            record.write_text("".join(json.dumps(o, sort_keys=True) + "\n" for o in seen), encoding="utf-8")
    summary = outcome.summary or {}
    status = summary.get("status", "open")
    score = outcome.score
    doc = {"actor": outcome.actor, "role": outcome.role, "policy": policy, "actions": outcome.actions,
           "score": score, "episode_id": episode, "status": status, "trace_digest": summary.get("trace_digest"),
           "deal": summary.get("deal"), "price": summary.get("price"), "run_dir": summary.get("run_dir")}
    if result is not None:
        result.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    console.print(f"{outcome.actor} ({outcome.role}) played {outcome.actions} actions with {policy}: episode "
                  f"{episode} {status}, own score {'-' if score is None else f'{score:.3f}'}, trace digest "
                  f"{summary.get('trace_digest')}", markup=False)
    if status != "scored":
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``seats`` and ``play`` to the ``acworld`` app."""
    app.command("seats")(seats_command)
    app.command("play")(play_command)
