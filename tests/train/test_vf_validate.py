"""``vf-validate acworld_env_vf``: verifiers' model-free check of the taskset, as the README runs it
(issue 43 §3). Gold plays each task's verified reference over the OpenEnv server (valid: full credit);
noop ends the task untouched (valid: less than full credit). A reference swapped for one that only
finishes must turn gold invalid: the check reads the score the server computed, not a constant."""

from __future__ import annotations

import json
import re
import shlex
import signal
from pathlib import Path

import pytest

pytest.importorskip("verifiers", reason="verifiers is not installed (see the README's train install line)")

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def readme_vf_validate(server: str) -> list[str]:
    """The README's vf-validate command as arguments, aimed at ``server``."""
    command = re.search(r"^(vf-validate .*?)$\n(?!  )", README.replace("\\\n", " "), re.M | re.S).group(1)
    return shlex.split(command.replace("http://127.0.0.1:8765", server))[1:]


def _validate(argv: list[str], out: Path) -> list[dict]:
    from verifiers.v1.cli.validate import main as vf_validate

    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        vf_validate([*argv, "-o", str(out)])
    finally:
        for sig, handler in handlers.items():  # vf-validate installs its own; the test run keeps pytest's
            signal.signal(sig, handler)
    return [json.loads(line) for f in out.rglob("results.jsonl") for line in f.open()]


@pytest.mark.timeout(240)
def test_readme_vf_validate_gold_and_noop_hold_for_every_task(openenv_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = readme_vf_validate(openenv_url)
    tasks = json.loads(argv[argv.index("--taskset.tasks") + 1])
    resets = json.loads(argv[argv.index("--taskset.resets") + 1])
    assert {t.split("/")[0] for t in tasks} == {"capability-v1", "large-catalog-v1"} and resets
    rows = _validate(argv, tmp_path / "out")
    assert len(rows) == len(tasks) + len(resets), rows
    for row in rows:
        assert row["gold"]["valid"] is True and row["gold"]["reason"] == "valid", row
        assert row["noop"]["valid"] is True and 0.0 <= row["noop"]["reward"] < 1.0, row
        assert row["valid"] is True
    assert sorted(r["name"] for r in rows if not r["name"].startswith("acworld#")) == sorted(tasks)


@pytest.mark.timeout(240)
def test_a_reference_that_only_finishes_fails_gold(openenv_url, tmp_path, monkeypatch):
    from acworld_env.policies import make as make_module
    from acworld_env.policies.base import FixedPolicy

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(make_module, "make_policy", lambda ref: FixedPolicy([{"kind": "finish"}]))
    argv = readme_vf_validate(openenv_url)
    tasks = json.loads(argv[argv.index("--taskset.tasks") + 1])
    rows = _validate([*argv[:argv.index("--taskset.resets")], *argv[argv.index("--taskset.resets") + 2:]],
                     tmp_path / "out")
    assert len(rows) == len(tasks)
    for row in rows:
        assert row["gold"]["valid"] is False and row["gold"]["reason"] == "invalid", row
        assert row["valid"] is False
