"""Command-line commands of the evaluation apps: ``eval``, ``report`` and ``validate``."""

from __future__ import annotations

from pathlib import Path

import typer

from ..cli_common import console

INTERRUPTED_EXIT = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells expect."""
SEALED_EVAL = "acworld_env.sealed.cli:run_remote_eval"
"""What ``acworld eval --remote`` runs (resolved when used: the sealed package builds on this one)."""


def _print_summary(summary: dict, env_id: str, policy: str, out: Path) -> None:
    mean, safe = summary["mean_score"], summary.get("mean_safe_score")
    whose = " of the evaluated actors" if summary.get("sides") is not None else ""
    console.print(f"{env_id} / {policy}: {summary['scored']}/{summary['planned']} scored, "
                  f"mean score{whose} {mean if mean is None else f'{mean:.3f}'} "
                  f"(safe {safe if safe is None else f'{safe:.3f}'}, {summary.get('critical_failures', 0)} runs "
                  f"with a critical failure), full {summary['full']}, "
                  f"partial {summary['partial']}, zero {summary['zero']}, unscored {summary['unscored']}",
                  markup=False)
    for role, side in (summary.get("sides") or {}).items():
        mean = side["mean_score"]
        console.print(f"  {role:<9} {side['policy']}: mean score {mean if mean is None else f'{mean:.3f}'} over "
                      f"{side['runs']} runs ({side['evaluated_runs']} as the evaluated actor)", markup=False)
    if summary.get("sides") is not None:
        rate = summary.get("deal_rate")
        console.print(f"  deals     {summary.get('deals', 0)}/{summary['scored']} runs agreed a price"
                      + ("" if rate is None else f" (deal rate {rate:.3f})"), markup=False)
    safe_by = summary.get("safe_by_family") or {}
    for fam, val in summary["by_family"].items():
        console.print(f"  {fam:<20} {val:.3f}  safe {safe_by.get(fam, 0.0):.3f}", markup=False)
    for run, reason in list(summary["unscored_reasons"].items())[:10]:
        console.print(f"  unscored {run}: {reason}", markup=False)
    if summary["unscored"] > 10:
        console.print(f"  ... and {summary['unscored'] - 10} more unscored (see {out}/results.csv)", markup=False)


def _llm_options(policy: str, base_url: str | None, api_key_file: Path | None, cache_dir: Path | None,
                 timeout: float, max_retries: int, skills_dir: list[Path] | None) -> dict:
    """Options for LLM policy specs (empty for other policies, which take none)."""
    from ..policies.llm import is_llm_spec

    if not is_llm_spec(policy):
        return {"base_url": base_url} if base_url else {}
    options = {"base_url": base_url, "api_key_file": str(api_key_file) if api_key_file else None,
               "cache_dir": str(cache_dir) if cache_dir else None, "timeout": timeout,
               "max_retries": max_retries, "skills_dirs": [str(d) for d in skills_dir or []]}
    return {k: v for k, v in options.items() if v not in (None, [])}


def eval_command(
    env_id: str = typer.Argument(..., help="Environment id, e.g. capability-v1."),
    policy: list[str] = typer.Option(None, "--policy", help="reference (default), random, openai:MODEL, "
                                     "anthropic:MODEL, openai-compatible:MODEL, sb3:PATH, or a registered "
                                     "policy name. With --counterparties agents: ROLE=SPEC, once per role "
                                     "(--policy buyer=SPEC --policy merchant=SPEC), or one SPEC for every role."),
    counterparties: str = typer.Option("scripted", "--counterparties", help="scripted (the task's counterparties "
                                       "act inside the env) or agents (every actor an agent, played by its "
                                       "role's --policy; sides.json holds every side's score)."),
    tasks: str = typer.Option(None, "--tasks", help="Glob over task ids, e.g. '*/T4/*'."),
    split: str = typer.Option("frozen", "--split", help="frozen (published tasks) or generated (fresh from --seed)."),
    seed: int = typer.Option(0, "--seed"),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="Runs in flight at once (and model calls "
                                    "in flight per endpoint for LLM policies)."),
    repeats: int = typer.Option(1, "--repeats", min=1, help="Episodes per task (seeds SEED, SEED+1, ...)."),
    out: Path = typer.Option(None, "--out", help="Output folder (default runs/ENV_ID/POLICY)."),
    resume: bool = typer.Option(False, "--resume", help="Keep finished runs; rerun only missing or unscored ones."),
    base_url: str = typer.Option(None, "--base-url", help="Endpoint for openai-compatible policies."),
    api_key_file: Path = typer.Option(None, "--api-key-file", help="File holding the provider API key "
                                      "(else OPENAI_API_KEY / ANTHROPIC_API_KEY)."),
    cache_dir: Path = typer.Option(None, "--cache-dir", help="Cache model responses here, keyed by the exact "
                                   "request, so a rerun is free and reproducible."),
    timeout: float = typer.Option(240.0, "--timeout", min=0.1, help="Seconds per model call."),
    max_retries: int = typer.Option(5, "--max-retries", min=0, help="Retries on 429, 5xx and connection errors."),
    skills_dir: list[Path] = typer.Option(None, "--skills-dir", help="Extra skill folders (SKILL.md files)."),
    backend: str = typer.Option("local", "--backend", help="local (threads, spread over processes for LLM "
                                "policies at many slots) or ray (a Ray cluster)."),
    processes: int = typer.Option(None, "--processes", min=1, help="Local backend: processes the runs in flight "
                                  "are split over (default: 1, or for LLM policies one per 32 slots up to the "
                                  "CPU count). Artifacts are the same for any value."),
    address: str = typer.Option(None, "--address", help="Ray cluster address (default: start a local instance)."),
    ray_cpus: float = typer.Option(1.0, "--ray-cpus", min=0.001, help="CPUs Ray reserves per run "
                                   "(a fraction such as 0.1 suits model-bound policies)."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
    allow_unscored: bool = typer.Option(False, "--allow-unscored", help="Exit 0 even when some runs could "
                                        "not be scored (by default that exits 1)."),
    remote: str = typer.Option(None, "--remote", help="Play a sealed round hosted at this URL (docs/sealed.md); "
                               "writes OUT/signed_result.json."),
    token_file: Path = typer.Option(None, "--token-file", help="With --remote: your participant token's file."),
) -> None:
    """Evaluate a policy on an environment's tasks; write artifacts, manifest.json, summary.json and results.csv.

    Exit status: 0 when every run is scored; 1 when any run is unscored (unless --allow-unscored);
    2 for usage and input errors (unknown environment or policy, an --out in use or not writable);
    130 after Ctrl-C.
    """
    from .ray_backend import BackendUnavailable
    from .runner import EvalConfig, EvalInterrupted, run_eval
    from .two_sided import PolicyAssignmentError, folder_name, parse_policy_options

    try:
        policy_text, policies = parse_policy_options(list(policy or []), counterparties=counterparties)
    except PolicyAssignmentError as exc:
        console.print(f"error: {exc}", markup=False)
        raise typer.Exit(2) from None
    if policies is not None and (remote or token_file):
        console.print("error: --remote plays one policy; --counterparties agents runs locally", markup=False)
        raise typer.Exit(2)
    specs = sorted(set(policies.values())) if policies else [policy_text]
    from ..policies.llm import is_llm_spec

    llm_spec = next((s for s in specs if is_llm_spec(s)), specs[0])  # the LLM options go to every LLM spec
    default_name = folder_name(policies) if policies else policy_text.replace(":", "_").replace("/", "_")
    out = out or Path("runs") / env_id / default_name
    config = EvalConfig(env_id=env_id, policy=policy_text, out=out, split=split, seed=seed, tasks=tasks,
                        concurrency=concurrency, resume=resume, repeats=repeats, backend=backend,
                        address=address, ray_cpus_per_run=ray_cpus, processes=processes, policies=policies,
                        policy_options=_llm_options(llm_spec, base_url, api_key_file, cache_dir, timeout,
                                                    max_retries, skills_dir))
    policy = config.policy
    if remote or token_file:
        if not (remote and token_file):
            console.print("error: --remote URL and --token-file T go together", markup=False)
            raise typer.Exit(2)
        import importlib

        module, _, attr = SEALED_EVAL.partition(":")
        run_remote = getattr(importlib.import_module(module), attr)
        return run_remote(config, url=remote, token_file=token_file, progress=not quiet, allow_unscored=allow_unscored)
    notes: list[str] = []
    try:
        summary = run_eval(config, progress=not quiet, notes=notes)
    except EvalInterrupted as stop:
        s = stop.summary
        console.print(f"interrupted: {s['scored']} scored and {s['unscored']} unscored runs kept, "
                      f"{s['missing']} not run; summary in {out}/. Continue with the same command and --resume.",
                      markup=False)
        raise typer.Exit(INTERRUPTED_EXIT) from None
    except (BackendUnavailable, KeyError, ValueError) as exc:  # OutputInUse is a ValueError
        console.print(f"error: {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}", markup=False)
        raise typer.Exit(2) from None
    finally:
        for note in notes:
            console.print(f"note: {note}", markup=False)
    _print_summary(summary, env_id, policy, out)
    root = summary["root_digest"]
    console.print(f"Root digest {root}", markup=False)
    console.print(f"Results in {out}/ (manifest.json, summary.json, results.csv, runs/); check with: "
                  f"acworld verify {out} --expect {root}", markup=False)
    if summary["unscored"] and not allow_unscored:
        raise typer.Exit(1)


def report_command(
    dirs: list[Path] = typer.Argument(..., help="Evaluation folders (written by acworld eval), shown side by side."),
    html: Path = typer.Option(None, "--html", help="Also write one self-contained HTML page here."),
    plots: Path = typer.Option(None, "--plots", help="Write PNG plots into this folder."),
) -> None:
    """Paper-style tables (overall, Buyer/Merchant, loss attribution, families, stages) and plots."""
    from .plots import PlotsUnavailable, render_plots
    from .report import NotAnEvaluation, load_evaluations, report_tables
    from .report_html import write_report_page
    from .report_tables import rich_table

    try:
        evals = load_evaluations(list(dirs))
    except NotAnEvaluation as exc:
        console.print(f"error: {exc}", markup=False)
        raise typer.Exit(2) from None
    tables = report_tables(evals)
    for t in tables:
        console.print(rich_table(t))
    for e in evals:
        for w in e.warnings:
            console.print(f"warning: {w}", markup=False)
    pngs: dict[str, bytes] | None = None
    note = ""
    if plots or html:
        try:
            pngs = render_plots(evals)
        except PlotsUnavailable as exc:
            if plots:
                console.print(f"error: {exc}", markup=False)
                raise typer.Exit(2) from None
            note = f"No plots: {exc}"
            console.print(f"warning: {note}", markup=False)
    if plots and pngs:
        plots.mkdir(parents=True, exist_ok=True)
        for name, data in pngs.items():
            (plots / name).write_bytes(data)
        console.print(f"Plots in {plots}/: {', '.join(pngs)}", markup=False)
    if html:
        from .viewer_data import viewer_data

        write_report_page(html, evals, tables, pngs, note=note, viewer=viewer_data(evals))
        console.print(f"Report page: {html}", markup=False)


def _print_table(header: list[str], rows: list[list[str]]) -> None:
    """A plain aligned table (first column left, the others right)."""
    widths = [max(len(header[0]), *(len(r[0]) for r in rows))] + [max(8, len(h)) for h in header[1:]]
    for row in [header, *rows]:
        console.print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                for i, (c, w) in enumerate(zip(row, widths, strict=True))), markup=False)


def validate_command(
    env_id: str = typer.Argument("capability-v1", help="Environment id whose frozen tasks to validate."),
    split: str = typer.Option("frozen", "--split"),
    seed: int = typer.Option(0, "--seed"),
    tasks: str = typer.Option(None, "--tasks", help="Glob over task ids."),
    baselines: bool = typer.Option(True, "--baselines/--no-baselines", help="Run the baseline gate (idle, finish, "
                                   "abstain, random over 5 seeds, every family's shortcut scripts)."),
    record: Path = typer.Option(None, "--record", help="Write the baseline gate's figures (family means, highest "
                                "task score, full-credit tasks) to this JSON file, e.g. baselines/capability-v1-gate.json."),
    parity: bool = typer.Option(False, "--parity", help="Run the HTTP parity gate instead: every reference and "
                                "sampled mutations locally and over HTTP must give identical runs."),
    url: str = typer.Option(None, "--url", help="With --parity: an acworld serve server (default: start one)."),
    parity_mutations: int = typer.Option(1, "--parity-mutations", min=0, help="With --parity: mutations per task."),
) -> None:
    """The suite's gate. References earn full credit; mutations lower exactly their declared predicates; every
    trace reconstructs and rescores identically; no impostor's proposal commits and every malformed action is a
    recorded rejection; and no baseline (doing nothing, quitting, chance, surface shortcuts) earns more than the
    thresholds. Exit 1 on any failure."""
    from .baseline_gate import (
        FOLLOWER_SAFE_MEAN,
        NULL_MEAN,
        NULL_TASK_MAX,
        RANDOM_MEAN,
        SHORTCUT_FULL_SHARE,
        SHORTCUT_MEAN,
        baseline_table,
        gate_failures,
        run_baselines,
    )
    from .boundary_gates import authority_failures, invalid_action_failures
    from .plan import select_tasks
    from .validate import predicate_stats, validate_tasks

    try:
        selected = select_tasks(env_id, split, seed, tasks)
    except (KeyError, ValueError) as exc:
        console.print(f"error: {exc}", markup=False)
        raise typer.Exit(2) from None
    if not selected:
        console.print(f"error: no task of {env_id} matches {tasks!r}", markup=False)
        raise typer.Exit(2)
    if parity:
        from ..remote.cli import run_parity

        raise typer.Exit(1 if run_parity(selected, env_id=env_id, split=split, seed=seed, url=url,
                                         mutations=parity_mutations) else 0)
    reports = validate_tasks(selected)
    failures = 0
    console.print(f"{'family':<18} {'tasks':>5} {'ref full':>8} {'mutations ok':>12} {'verified':>8} {'rescored':>8}"
                  f" {'authority':>9} {'invalid':>7}")
    for fam, r in sorted(reports.items()):
        fam_tasks = [t for t in selected if t.family == fam]
        authority = [f for t in fam_tasks for f in authority_failures(t)]
        invalid = [f for t in fam_tasks for f in invalid_action_failures(t)]
        console.print(f"{fam:<18} {r.tasks:>5} {r.references_full:>8} {f'{r.mutations_ok}/{r.mutations}':>12} "
                      f"{r.traces_verified:>8} {r.rescored_identical:>8} "
                      f"{'ok' if not authority else len(authority):>9} {'ok' if not invalid else len(invalid):>7}",
                      markup=False)
        for f in [*r.failures, *authority, *invalid]:
            console.print(f"  FAIL {f}", markup=False)
        failures += len(r.failures) + len(authority) + len(invalid)
    n_id = sum(r.identities for r in reports.values())
    console.print(f"process-score identities (score = sum of stage contributions): {n_id}/{len(selected)}",
                  markup=False)
    st = predicate_stats(selected)
    console.print(f"{st['tasks']} tasks, {st['predicates']} predicates, weights {st['min_weight']:g} to "
                  f"{st['max_weight']:g}, {st['mutations']} mutations")
    if baselines:
        runs = run_baselines(selected)
        console.print(f"\nBaseline gate (family means; idle/finish/abstain <= {NULL_MEAN:g} with no task above "
                      f"{NULL_TASK_MAX:g}, random and menu:first/menu:random <= {RANDOM_MEAN:g}, each shortcut <= {SHORTCUT_MEAN:g} and full "
                      f"credit on <= {SHORTCUT_FULL_SHARE:.0%} of a capability's tasks)", markup=False)
        _print_table(*baseline_table(runs))
        console.print(f"\nsafe_score family means (0 for a run where a critical predicate failed; shortcuts that "
                      f"follow the instructions they read <= {FOLLOWER_SAFE_MEAN:g})", markup=False)
        _print_table(*baseline_table(runs, figure="safe"))
        worst = sorted(((s, t, r.baseline) for r in runs for t, s in r.scores.items()), reverse=True)[:5]
        console.print("Highest baseline scores: " + "; ".join(f"{b} {s:.3f} on {t}" for s, t, b in worst),
                      markup=False)
        if record:
            import json

            from .baseline_gate import gate_record

            old = json.loads(record.read_text()).get("before") if record.is_file() else None
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_text(json.dumps(gate_record(runs, suite=env_id, split=split, before=old), indent=1,
                                         sort_keys=True) + "\n")
            console.print(f"Gate figures written to {record}", markup=False)
        gate = gate_failures(runs)
        for f in gate:
            console.print(f"  FAIL {f}", markup=False)
        failures += len(gate)
    if failures:
        console.print(f"{failures} failure(s)")
        raise typer.Exit(1)
    console.print("all checks passed")


def register(app: typer.Typer) -> None:
    """Add ``eval``, ``report`` and ``validate`` to the ``acworld`` app."""
    app.command("eval")(eval_command)
    app.command("report")(report_command)
    app.command("validate")(validate_command)
