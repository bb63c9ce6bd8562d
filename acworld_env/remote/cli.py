"""``acworld serve`` and ``acworld mcp``, and the parity gate's printout for ``acworld validate --parity``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

SERVER_EXTRA = "pip install 'acworld-env[server]'"
OPENENV_SERVER = "acworld_env.integrations.openenv_app:serve_openenv"
"""What ``acworld serve --openenv`` runs (resolved when used)."""
SEALED_SERVER = "acworld_env.sealed.cli:serve_sealed"
"""What ``acworld serve --sealed`` runs (resolved when used: the sealed package builds on this one's)."""


def _need(*modules: str) -> None:
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        typer.echo(f"error: {', '.join(missing)} not installed; {SERVER_EXTRA}", err=True)
        raise typer.Exit(2)


def _admin_token(host: str, token: str | None, guards: str) -> str | None:
    """The server's credential: ``token`` (at least 16 characters), or one generated and printed when
    ``host`` is beyond loopback; None for a loopback server without one."""
    import secrets

    from .gates import LOOPBACK

    if token is not None and len(token) < 16:
        typer.echo("error: --token must be at least 16 characters", err=True)
        raise typer.Exit(2)
    if host not in LOOPBACK and token is None:
        token = secrets.token_urlsafe(24)
        typer.echo(f"binding {host}: {guards} needs the admin credential {token} "
                   "(Authorization: Bearer ...; make(..., token=...)); pass --token to choose it", err=True)
    return token


def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to bind (default loopback only)."),
    port: int = typer.Option(8765, "--port", min=0, max=65535),
    runs: Path = typer.Option(None, "--runs", help="Write every scored episode's run here (acworld verify DIR)."),
    idle_timeout: float = typer.Option(900.0, "--idle-timeout", min=0.1, help="Seconds without a request after "
                                       "which an open episode is closed and marked unscored."),
    token: str = typer.Option(None, "--token", envvar="ACWORLD_SERVE_TOKEN",
                              help="Admin credential needed to create envs and episodes (clients: "
                                   "make(..., token=...)). Generated and printed when binding beyond loopback."),
    catalog: list[str] = typer.Option(None, "--catalog", help="A catalog clients may name: NAME=PATH (a file "
                                      "of acworld catalog build/synth) or large-v1; repeatable. capability-v1 "
                                      "is always offered; clients never name a path."),
    openenv: bool = typer.Option(False, "--openenv", help="Serve the OpenEnv API instead (/reset, /step, /state, "
                                 "/schema, WS /ws: what OpenEnv clients, verifiers and TRL drive); needs "
                                 "pip install 'acworld-env[train]'."),
    sealed: bool = typer.Option(False, "--sealed", help="Host a sealed evaluation round (docs/sealed.md): hidden "
                                "tasks from --secret-file, state in --state-dir, signed results."),
    secret_file: Path = typer.Option(None, "--secret-file", help="--sealed: the round's secret (created if absent)."),
    state_dir: Path = typer.Option(None, "--state-dir", help="--sealed: the round's state folder (commitment.json, "
                                   "public_key.pem, tokens/, submissions/)."),
    suite: str = typer.Option(None, "--suite", help="--sealed: the suite whose generated split is played "
                              "(default capability-v1)."),
    tasks: int = typer.Option(None, "--tasks", help="--sealed: tasks in the round (default all of the split)."),
    participants: str = typer.Option(None, "--participants", help="--sealed: names to give tokens, e.g. alice,bob."),
    submissions: int = typer.Option(1, "--submissions", help="--sealed: submissions per token in the round."),
    rate: float = typer.Option(50.0, "--rate", min=0.01, help="--sealed: requests per second per token."),
    burst: int = typer.Option(100, "--burst", min=1, help="--sealed: requests a token may make at once."),
    min_family_tasks: int = typer.Option(3, "--min-family-tasks", min=1, help="--sealed: a signed result gives "
                                         "a family's mean only over at least this many tasks."),
    reveal: bool = typer.Option(False, "--reveal", help="--sealed: close the round and write D/reveal.json."),
    export: Path = typer.Option(None, "--export", help="--sealed --reveal: write the round's artifacts here."),
) -> None:
    """Serve episodes of any suite over HTTP (FastAPI): per-actor bearer credentials, OpenAPI at /docs."""
    if sealed:
        _need("fastapi", "uvicorn", "cryptography")
        import importlib

        module, _, attr = SEALED_SERVER.partition(":")
        serve_sealed = getattr(importlib.import_module(module), attr)
        if state_dir is None:
            typer.echo("error: --sealed needs --state-dir D", err=True)
            raise typer.Exit(2)
        return serve_sealed(state_dir=state_dir, secret_file=secret_file, suite=suite, n_tasks=tasks,
                            participants=participants, submissions=submissions, rate=rate, burst=burst,
                            min_family_tasks=min_family_tasks, host=host,
                            port=port, idle_timeout=idle_timeout, reveal=reveal, export=export)
    sealed_only = [flag for flag, value in (("--secret-file", secret_file), ("--state-dir", state_dir),
                                            ("--suite", suite), ("--tasks", tasks), ("--participants", participants),
                                            ("--reveal", reveal), ("--export", export)) if value]
    if sealed_only:
        typer.echo(f"error: {', '.join(sealed_only)} only apply with --sealed", err=True)
        raise typer.Exit(2)
    if openenv:
        return _serve_openenv(host, port, idle_timeout)
    _need("fastapi", "uvicorn")
    from .serve import serve
    from .taskdata import ServerCatalogs

    try:
        catalogs = ServerCatalogs.from_specs(catalog)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    token = _admin_token(host, token, "creating envs and episodes")
    typer.echo(f"acworld market server on http://{host}:{port} (OpenAPI: /docs, /openapi.json; catalogs: "
               f"{', '.join(sorted(catalogs.names))})", err=True)
    serve(host=host, port=port, runs_dir=runs, idle_timeout=idle_timeout, admin_token=token, catalogs=catalogs)


def _serve_openenv(host: str, port: int, idle_timeout: float) -> None:
    """``acworld serve --openenv``: the OpenEnv server (:mod:`acworld_env.integrations.openenv_app`)."""
    import importlib
    import importlib.util

    from .gates import LOOPBACK

    if importlib.util.find_spec("openenv") is None:
        typer.echo("error: openenv not installed; pip install 'acworld-env[train]'", err=True)
        raise typer.Exit(2)
    module, _, attr = OPENENV_SERVER.partition(":")  # named, not imported: integrations/ builds on remote/
    serve_openenv = getattr(importlib.import_module(module), attr)

    if host not in LOOPBACK:
        typer.echo(f"warning: binding {host}: the OpenEnv API has no admin credential (anyone who reaches it can "
                   "start episodes; each session still sees only its own actor)", err=True)
    typer.echo(f"acworld OpenEnv server on http://{host}:{port} (/reset, /step, /state, /schema, WS /ws)", err=True)
    serve_openenv(host=host, port=port, idle_timeout=idle_timeout)


def mcp_command(
    suite: str = typer.Argument("capability-v1", help="Suite of the task."),
    task_id: str = typer.Option(None, "--task-id", help="The task to play (default: the suite's first)."),
    split: str = typer.Option("frozen", "--split"),
    seed: int = typer.Option(0, "--seed", help="Task-generation seed of the generated split."),
    episode_seed: int = typer.Option(0, "--episode-seed"),
    transport: str = typer.Option("stdio", "--transport", help="stdio or http (streamable HTTP at /mcp)."),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8766, "--port", min=0, max=65535),
    token: str = typer.Option(None, "--token", envvar="ACWORLD_MCP_TOKEN",
                              help="HTTP transport: the bearer credential every request must carry. "
                                   "Generated and printed when binding beyond loopback."),
) -> None:
    """One episode's VCP tools for the evaluated actor's role, as an MCP server (stdio or streamable HTTP)."""
    _need("mcp", "uvicorn")
    from .hosted import RemoteError
    from .mcp_server import MCPEpisode, run_http, run_stdio

    if transport not in ("stdio", "http"):
        typer.echo(f"error: --transport must be stdio or http, not {transport!r}", err=True)
        raise typer.Exit(2)
    config: dict[str, Any] = {"suite": suite, "split": split, "seed": seed}
    if task_id:
        config["task_id"] = task_id
    try:
        episode = MCPEpisode(config, seed=episode_seed)
    except RemoteError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(2) from None
    if transport == "stdio":
        run_stdio(episode)
    else:
        token = _admin_token(host, token, "playing this episode")
        typer.echo(f"MCP server for {episode.actor} ({episode.episode.env.task.task_id}) on "
                   f"http://{host}:{port}/mcp", err=True)
        run_http(episode, host=host, port=port, token=token)


def run_parity(tasks: list[Any], *, env_id: str, split: str, seed: int, url: str | None, mutations: int) -> int:
    """Run the parity gate over ``tasks`` (a server on 127.0.0.1 unless ``url``); print it; the failure count."""
    _need("fastapi", "uvicorn", "httpx")
    from .parity import parity_gate
    from .serve import ServerThread

    if url:
        report = parity_gate(tasks, url, env_id=env_id, split=split, seed=seed, mutations=mutations)
    else:
        with ServerThread() as local_url:
            report = parity_gate(tasks, local_url, env_id=env_id, split=split, seed=seed, mutations=mutations)
    typer.echo(f"{'family':<18} {'identical':>9} {'runs':>5}")
    for fam, (same, total) in report.by_family().items():
        typer.echo(f"{fam:<18} {same:>9} {total:>5}")
    cases = report.cases
    refs = sum(c.run == "reference" for c in cases)
    same = sum(c.ok for c in cases)
    typer.echo(f"parity: {same}/{len(cases)} runs identical over HTTP ({refs} references, {len(cases) - refs} "
               f"mutations; trace digest, event-chain digest, score, observations, rewards and infos)")
    for f in report.failures:
        typer.echo(f"  FAIL {f}")
    return len(report.failures)


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``mcp`` to the ``acworld`` app."""
    app.command("serve")(serve_command)
    app.command("mcp")(mcp_command)
