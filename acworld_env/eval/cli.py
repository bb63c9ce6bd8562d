"""Command-line commands of the evaluation apps: ``eval`` and ``validate``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

console = Console(highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add the evaluation commands to the ``acworld`` app."""

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
        from ..policies.specs import PolicySpecError
        from .runner import EvalConfig, run_eval

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
        from .runner import select_tasks
        from .validate import predicate_stats, validate_tasks

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
