"""The ``acworld`` command line."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from .cli_common import console

EXIT_CODES = ("Exit status, the same for every command: 0 success; 1 a check failed (verify, validate, "
              "rescore) or some run is unscored (eval); 2 a usage or input error (unknown suite, policy or "
              "option, a missing or corrupt file), always with a one-line message; 130 interrupted (Ctrl-C).")



LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "eval": ("acworld_env.eval.cli:register", "Evaluate a policy on an environment's tasks; write artifacts, "
             "manifest.json, summary.json and results.csv."),
    "report": ("acworld_env.eval.cli:register", "Paper-style tables (overall, Buyer/Merchant, loss attribution, "
               "families, stages) and plots."),
    "validate": ("acworld_env.eval.cli:register", "The suite's gate. References earn full credit; mutations lower "
                 "exactly their declared predicates; every trace reconstructs and rescores identically; no "
                 "impostor's proposal commits and every malformed action is a recorded rejection; and no "
                 "baseline (doing nothing, quitting, chance, surface shortcuts) earns more than the thresholds. "
                 "Exit 1 on any failure."),
    "serve": ("acworld_env.remote.cli:register", "Serve episodes of any suite over HTTP (FastAPI): per-actor "
              "bearer credentials, OpenAPI at /docs."),
    "mcp": ("acworld_env.remote.cli:register", "One episode's VCP tools for the evaluated actor's role, as an MCP "
            "server (stdio or streamable HTTP)."),
    "seats": ("acworld_env.eval.play_cli:register", "Start a hosted episode with every actor an agent; write "
              "each actor's credential to its own file."),
    "play": ("acworld_env.eval.play_cli:register", "Play one actor of a hosted episode with its own credential; "
             "only its own view reaches this process."),
    "rescore": ("acworld_env.eval.scoring_cli:register", "Recompute every run's score from its artifacts alone; "
                "it must equal the saved score.json byte for byte, with the published task (not merely the "
                "task.json beside it). For an evaluation folder, summary.json, results.csv and the manifest "
                "must agree with the rescored runs too. Exit 1 if anything differs."),
    "analyze": ("acworld_env.eval.scoring_cli:register", "What the scores rest on: how much the weights matter; "
                "which failing runs a weaker checker (final state, last action, action sequence) would pass, "
                "overall and by family; where credit was lost (partial/zero by loss group); and which designed "
                "errors (the tasks' mutations) each view can see."),
    "tasks": ("acworld_env.eval.info_cli:register", "List a suite's tasks: id, family, capability, evaluated role "
              "and the request's opening."),
    "policies": ("acworld_env.eval.info_cli:register", "List the policies that acworld eval --policy accepts: "
                 "built-in names and model spec forms."),
    "probe": ("acworld_env.eval.probe:register", "The sparse-World probe (paper Appendix K): registration, "
              "indexed search, settlement, reconstruction."),
    "catalog": ("acworld_env.catalog.cli:app", "Build, generate, inspect and search product catalogs."),
    "card": ("acworld_env.card.cli:register", "Write the environment card from fresh measurements: env steps/s, start-up, sessions per server with p50/p99 step latency, determinism, the baseline gate, learnability (recorded studies), safety, suite counts."),
}
"""Subcommands whose modules are imported only when one of them runs: name -> (``"module:attr"``: the
function that adds it to a Typer app, or the Typer app of a command group; the one line ``acworld
--help`` shows for it). ``acworld --help`` lists them from this table, so printing the help imports
none of the evaluation, remote, probe or catalog code; a test checks each line against the command's
own help."""


class _Listed(TyperCommand):
    """A subcommand as ``acworld --help`` lists it: its name and one line, before its module is imported."""


class LazyGroup(TyperGroup):
    """The ``acworld`` group: :data:`LAZY_COMMANDS` are listed from the table and built on first use."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for name, (_, line) in LAZY_COMMANDS.items():
            self.commands.setdefault(name, _Listed(name, help=line))

    def resolve_command(self, ctx: typer.Context, args: list[str]) -> tuple[str | None, Any, list[str]]:
        """As Typer's, with a listed subcommand replaced by the real one (its module imported now)."""
        name, cmd, rest = super().resolve_command(ctx, args)
        if name is not None and isinstance(cmd, _Listed):
            cmd = self.load(name)
        return name, cmd, rest

    @staticmethod
    def registrar(name: str) -> Callable[[typer.Typer], None]:
        """What adds subcommand ``name`` to a Typer app (its module imported now): the module's
        ``register`` function, or for a command group an ``add_typer`` of its app with the listed help."""
        target, line = LAZY_COMMANDS[name]
        module, _, attr = target.partition(":")
        found = getattr(importlib.import_module(module), attr)
        if isinstance(found, typer.Typer):
            return lambda app: app.add_typer(found, name=name, help=line)
        return found

    def load(self, name: str) -> Any:
        """Import the module of subcommand ``name`` and build its command (and its siblings')."""
        scratch = typer.Typer()
        self.registrar(name)(scratch)
        for sub, real in typer.main.get_group(scratch).commands.items():
            if isinstance(self.commands.get(sub), _Listed):
                self.commands[sub] = real
        return self.commands[name]


app = typer.Typer(help="acworld: the verifiable environment in which AI agents buy and sell.",
                  epilog=EXIT_CODES, no_args_is_help=True, add_completion=False, cls=LazyGroup)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            console.print(f"acworld-env {version('acworld-env')}", markup=False)
        except PackageNotFoundError:
            console.print("acworld-env (not installed as a package)", markup=False)
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the installed version and exit.")) -> None:
    """acworld: the verifiable environment in which AI agents buy and sell."""


@app.command()
def demo(out: Path = typer.Option(Path("runs/demo"), "--out", help="Where to write the run's artifacts.")) -> None:
    """Figure 1: a Buyer (private $100 ceiling) and a Merchant (private $90 floor) settle at $95."""
    from .eval.rollout import run_episode
    from .policies.make import make_policy
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
def verify(
    run_dir: Path = typer.Argument(None, help="A run, an evaluation folder, or a folder holding either."),
    suite: Path = typer.Option(None, "--suite", help="JSONL file of the task specs the runs claim (for your own "
                               "tasks); default: the installed suites."),
    expect: str = typer.Option(None, "--expect", help="The published root digest the folder must reproduce."),
    signed: Path = typer.Option(None, "--signed", help="A sealed round's signed_result.json to check (with --public-key)."),
    public_key: Path = typer.Option(None, "--public-key", help="The sealed round's public_key.pem."),
    reveal: Path = typer.Option(None, "--reveal", help="A sealed round's reveal.json: RUN_DIR is its export; "
                                "regenerate the tasks, check the commitment, verify every run and signed result."),
) -> None:
    """Check everything that sets a score: every run reconstructs digest for digest, its trace and commit log
    agree, its task is the published one, its score rescoring byte for byte; for an evaluation also its
    manifest (no run missing or added), summary.json, results.csv and root digest. Writes nothing.

    Exit status: 0 when everything verifies, 1 when anything fails, 2 for usage errors.
    """
    if signed is not None or reveal is not None:  # a sealed round (acworld_env/sealed/)
        from .sealed.cli import verify_reveal_command, verify_signed_command

        if signed is not None:
            verify_signed_command(signed, public_key)
        if reveal is not None:
            if run_dir is None:
                console.print("error: --reveal needs the exported folder: acworld verify DIR --reveal R", markup=False)
                raise typer.Exit(2)
            verify_reveal_command(run_dir, reveal, public_key)
        return
    if run_dir is None:
        console.print("error: missing argument RUN_DIR", markup=False)
        raise typer.Exit(2)
    from .eval.audit import audit_eval, audit_runs
    from .eval.market_verify import is_world_file, verify_world_file
    from .tasks.anchor import AnchorError, SuiteIndex

    if is_world_file(run_dir):  # a persistent World (market-v1 with world=...): its whole history
        raise typer.Exit(verify_world_file(run_dir, expect))
    audits = _audit_targets(run_dir)
    if expect is not None and len(audits) != 1:
        console.print(f"error: --expect needs exactly one evaluation, found {len(audits)} under {run_dir}",
                      markup=False)
        raise typer.Exit(2)
    try:
        index = SuiteIndex(suite)
    except AnchorError as exc:
        console.print(f"error: {exc}", markup=False)
        raise typer.Exit(2) from None
    failed = total = bad_runs = 0
    for kind, target in audits:
        audit = (audit_eval(target, index=index, expect=expect) if kind == "eval"
                 else audit_runs(target, index=index, expect=expect, root=run_dir))
        for r in audit.runs:
            total += 1
            bad_runs += not r.ok
            status = {"scored": "ok      ", "unscored": "unscored", "failed": "FAIL    "}[r.status]
            detail = f"score={r.score['score']:.3f}" if r.ok and r.score else r.message
            if r.ok and r.score and r.sides:  # a two-sided run: every other actor's own score, and the deal
                detail += f" ({r.sides['evaluated']})" + "".join(f"  {a}={s['score']:.3f}"
                                                                  for a, s in sorted(r.sides["scores"].items()))
                detail += f"  deal={'yes' if r.sides['deal'] else 'no'}"
            console.print(f"{status} {r.path}  {detail}", markup=False)
        for problem in audit.problems:
            console.print(f"FAIL     {audit.root}: {problem}", markup=False)
        failed += len(audit.problems)
        label = audit.root if kind == "eval" else run_dir
        console.print(f"root digest {audit.root_digest}  ({label})", markup=False)
    console.print(f"{total - bad_runs}/{total} runs verified"
                  + (f", {failed} folder problem(s)" if failed else ""), markup=False)
    if failed or bad_runs:
        raise typer.Exit(1)


def _audit_targets(root: Path) -> list[tuple[str, Any]]:
    """Evaluation folders (with a manifest or a summary) under ``root``, and the loose runs outside them."""
    from .artifacts import find_runs

    if not root.exists():
        console.print(f"error: {root} does not exist", markup=False)
        raise typer.Exit(2)
    evals = sorted({p.parent for pattern in ("manifest.json", "summary.json") for p in root.rglob(pattern)})
    loose = [r for r in find_runs(root) if not any(e in r.parents for e in evals)]
    targets: list[tuple[str, Any]] = [("eval", e) for e in evals]
    if loose:
        targets.append(("runs", loose))
    if not targets:
        console.print(f"error: no run (run.json) or evaluation (manifest.json) under {root}", markup=False)
        raise typer.Exit(2)
    return targets


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
