"""The ``acworld`` command line."""

from __future__ import annotations

from pathlib import Path

import typer

from .cli_common import console, runs_or_exit

app = typer.Typer(help="acworld: the verifiable environment in which AI agents buy and sell.",
                  no_args_is_help=True, add_completion=False)


@app.command()
def demo(out: Path = typer.Option(Path("runs/demo"), "--out", help="Where to write the run's artifacts.")) -> None:
    """Figure 1: a Buyer (private $100 ceiling) and a Merchant (private $90 floor) settle at $95."""
    from .eval.rollout import run_episode
    from .policies.registry import make_policy
    from .tasks.families.demo import build_demo_task
    from .transcript import transcript_lines

    task = build_demo_task()
    rollout = run_episode(task, make_policy(task.reference), out_dir=out)
    market = rollout.episode.market
    console.print(f"[bold]{task.task_id}[/bold]  buyer_0 (private ceiling $100) vs merchant_0 (private floor $90)")
    for line in transcript_lines(market.trace.records):
        console.print(line, markup=False)
    state = market.world.state
    order = next(iter(state["orders"].values()))
    console.print(f"\nSettled: order total ${order['total'] / 100:.2f}, captured ${order['captured'] / 100:.2f}; "
                  f"stock of L-grinder now {state['listings']['L-grinder']['stock']}.")
    console.print(f"Score {rollout.score.score:.3f}  " + "  ".join(f"{k}={v:g}" for k, v in rollout.score.credits.items()))
    console.print(f"State digest {market.world.state_digest()}\nEvent digest {market.world.event_digest}")
    console.print(f"Artifacts in {out}/ (check them with: acworld verify {out})")


@app.command()
def verify(run_dir: Path = typer.Argument(..., help="A run directory, or a folder of runs.")) -> None:
    """Reconstruct every run under RUN_DIR and check its digests and validation citations."""
    from .artifacts import verify_run

    runs = runs_or_exit(run_dir)
    failed = 0
    for path in runs:
        v = verify_run(path)
        failed += not v.ok
        status = "ok  " if v.ok else "FAIL"
        console.print(f"{status} {path}  commits={v.commits}  {v.message if not v.ok else v.event_digest[:16]}",
                      markup=False)
    console.print(f"{len(runs) - failed}/{len(runs)} runs verified")
    if failed:
        raise typer.Exit(1)


def _register_subcommands() -> None:
    from .catalog.cli import app as catalog_app
    from .eval.cli import register as register_eval
    from .scoring.cli import register as register_scoring

    register_eval(app)
    register_scoring(app)
    app.add_typer(catalog_app, name="catalog", help="Build, generate, inspect and search product catalogs.")


_register_subcommands()


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
