"""The ``acworld`` command line."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

app = typer.Typer(help="acworld: the verifiable environment in which AI agents buy and sell.",
                  no_args_is_help=True, add_completion=False)
console = Console(highlight=False, soft_wrap=True)


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
    from .artifacts import find_runs, verify_run

    if not run_dir.exists():
        console.print(f"error: {run_dir} does not exist")
        raise typer.Exit(2)
    runs = find_runs(run_dir)
    if not runs:
        console.print(f"error: no run (run.json) under {run_dir}")
        raise typer.Exit(2)
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


@app.command("eval")
def eval_(
    env_id: str = typer.Argument(..., help="Environment id, e.g. capability-v1."),
    policy: str = typer.Option("reference", "--policy", help="reference, random, openai:MODEL, anthropic:MODEL, "
                               "openai-compatible:MODEL, or a registered policy name."),
    tasks: str = typer.Option(None, "--tasks", help="Glob over task ids, e.g. '*/T4/*'."),
    split: str = typer.Option("frozen", "--split", help="frozen (published tasks) or generated (fresh from --seed)."),
    seed: int = typer.Option(0, "--seed"),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="Episodes run at once."),
    out: Path = typer.Option(None, "--out", help="Output folder (default runs/ENV_ID/POLICY)."),
    resume: bool = typer.Option(False, "--resume", help="Rerun only missing or unscored runs."),
    base_url: str = typer.Option(None, "--base-url", help="Endpoint for openai-compatible policies."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Evaluate a policy on an environment's tasks; write artifacts, summary.json and results.csv."""
    from .eval.runner import EvalConfig, run_eval
    from .policies.specs import PolicySpecError

    out = out or Path("runs") / env_id / policy.replace(":", "_").replace("/", "_")
    config = EvalConfig(env_id=env_id, policy=policy, out=out, split=split, seed=seed, tasks=tasks,
                        concurrency=concurrency, resume=resume, policy_options={"base_url": base_url})
    try:
        summary = run_eval(config, progress=not quiet)
    except (PolicySpecError, KeyError, ValueError) as exc:
        console.print(f"error: {exc}")
        raise typer.Exit(2) from None
    mean = summary["mean_score"]
    console.print(f"{env_id} / {policy}: {summary['scored']}/{summary['planned']} scored, "
                  f"mean score {mean if mean is None else f'{mean:.3f}'}, full {summary['full']}, "
                  f"partial {summary['partial']}, zero {summary['zero']}, unscored {summary['unscored']}")
    for fam, val in summary["by_family"].items():
        console.print(f"  {fam:<20} {val:.3f}")
    console.print(f"Results in {out}/ (summary.json, results.csv, runs/); check with: acworld verify {out}")


@app.command()
def validate(
    env_id: str = typer.Argument("capability-v1", help="Environment id whose frozen tasks to validate."),
    split: str = typer.Option("frozen", "--split"),
    seed: int = typer.Option(0, "--seed"),
    tasks: str = typer.Option(None, "--tasks", help="Glob over task ids."),
) -> None:
    """The validity gate: references get full credit, mutations lower exactly their declared predicates,
    every trace reconstructs and rescores identically."""
    from .eval.runner import select_tasks
    from .eval.validate import predicate_stats, validate_tasks

    try:
        selected = select_tasks(env_id, split, seed, tasks)
    except (KeyError, ValueError) as exc:
        console.print(f"error: {exc}")
        raise typer.Exit(2) from None
    reports = validate_tasks(selected)
    failures = 0
    console.print(f"{'family':<18} {'tasks':>5} {'ref full':>8} {'mutations ok':>12} {'verified':>8} {'rescored':>8}")
    for fam, r in sorted(reports.items()):
        console.print(f"{fam:<18} {r.tasks:>5} {r.references_full:>8} {f'{r.mutations_ok}/{r.mutations}':>12} "
                      f"{r.traces_verified:>8} {r.rescored_identical:>8}")
        for f in r.failures:
            console.print(f"  FAIL {f}", markup=False)
        failures += len(r.failures)
    st = predicate_stats(selected)
    console.print(f"{st['tasks']} tasks, {st['predicates']} predicates, weights {st['min_weight']:g} to "
                  f"{st['max_weight']:g}, {st['mutations']} mutations")
    if failures:
        console.print(f"{failures} failure(s)")
        raise typer.Exit(1)
    console.print("all checks passed")


def _register_subcommands() -> None:
    from .scoring.cli import register as register_scoring

    register_scoring(app)


_register_subcommands()


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
