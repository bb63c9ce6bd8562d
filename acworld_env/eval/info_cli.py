"""``acworld tasks`` and ``acworld policies``: what a suite holds and which policies a command accepts."""

from __future__ import annotations

import json

import typer
from rich import box
from rich.table import Table

from ..cli_common import console

LLM_FORMS = (
    ("openai:MODEL", "a model behind the OpenAI API (OPENAI_API_KEY or --api-key-file)"),
    ("anthropic:MODEL", "a model behind the Anthropic API (ANTHROPIC_API_KEY or --api-key-file)"),
    ("openai-compatible:MODEL", "any OpenAI-compatible server (--base-url, e.g. vLLM, Ollama)"),
)


def tasks_command(
    suite: str = typer.Argument("capability-v1", help="Suite (environment id)."),
    family: str = typer.Option(None, "--family", help="Only this family, e.g. T4_negotiation or T4."),
    role: str = typer.Option(None, "--role", help="Only tasks evaluating this role: buyer or merchant."),
    split: str = typer.Option("frozen", "--split", help="frozen (published) or generated (fresh from --seed)."),
    seed: int = typer.Option(0, "--seed"),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per task (id, family, capability, "
                                 "role, request)."),
) -> None:
    """List a suite's tasks: id, family, capability, evaluated role and the request's opening.

    Exit status: 0; 2 for an unknown suite, split or role, or when nothing matches.
    """
    from ..tasks.suites import load_suite

    if role not in (None, "buyer", "merchant"):
        console.print(f"error: --role must be buyer or merchant, not {role!r}", markup=False)
        raise typer.Exit(2)
    try:
        tasks = load_suite(suite, split, seed)
    except (KeyError, ValueError) as exc:
        console.print(f"error: {exc.args[0] if exc.args else exc}", markup=False)
        raise typer.Exit(2) from None
    if family:
        tasks = [t for t in tasks if t.family == family or t.family.split("_", 1)[0] == family]
    if role:
        tasks = [t for t in tasks if t.role == role]
    if not tasks:
        console.print(f"error: no task of {suite} ({split}) matches", markup=False)
        raise typer.Exit(2)
    if as_json:
        for t in tasks:
            console.print(json.dumps({"task_id": t.task_id, "family": t.family, "capability": t.capability,
                                      "role": t.role, "request": t.request}), markup=False, soft_wrap=True)
        return
    console.print(f"{suite} ({split}): {len(tasks)} tasks", markup=False)
    for t in tasks:
        first = t.request.split(". ")[0].strip()
        console.print(f"{t.task_id}  [{t.role}, {t.capability}]\n    "
                      f"{first if len(first) <= 100 else first[:99] + '…'}", markup=False, soft_wrap=True)


def policies_command() -> None:
    """List the policies that acworld eval --policy accepts: built-in names and model spec forms."""
    from ..policies import baselines, make  # noqa: F401  (register the null baselines and general policies)
    from ..tasks import families  # noqa: F401  (register every family's policies and shortcuts)
    from ..tasks.names import POLICIES, SHORTCUTS

    table = Table(title="Policies for --policy", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("spec", no_wrap=True)
    table.add_column("what it is", overflow="fold")
    table.add_row("reference", "each task's own reference policy (earns full credit)")
    table.add_row("random", "uniformly random valid-looking actions (seeded)")
    for form, text in LLM_FORMS:
        table.add_row(form, text)
    for name in ("idle", "finish", "abstain"):
        if name in POLICIES:
            table.add_row(name, "null baseline (the baseline gate runs it)")
    console.print(table)
    others = sorted(n for n in POLICIES if n not in {"idle", "finish", "abstain"})
    console.print(f"Task-internal policies (counterparties, references, mutations; usable by name): "
                  f"{', '.join(others)}", markup=False)
    console.print("Two policies in one episode (every actor an agent): --counterparties agents --policy "
                  "buyer=SPEC --policy merchant=SPEC; reference then plays the task's own plan for each actor "
                  "(the reference plan of the evaluated one, the scripted tactic of the other). docs/two-policies.md",
                  markup=False)
    shortcuts = [f"{fam}: {', '.join(sorted(names))}" for fam, names in sorted(SHORTCUTS.items())]
    if shortcuts:
        console.print("Shortcut scripts run by the baseline gate (acworld validate):\n  " + "\n  ".join(shortcuts),
                      markup=False)


def register(app: typer.Typer) -> None:
    """Add ``tasks`` and ``policies`` to the ``acworld`` app."""
    app.command("tasks")(tasks_command)
    app.command("policies")(policies_command)
