"""acworld probe: the sparse-World probe's workload, digests, report and command line."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from acworld_env.cli import app
from acworld_env.eval.probe import CANDIDATES, run_probe, table


def test_the_probe_states_its_workload_and_reconstructs_every_run() -> None:
    rows = run_probe([6, 20], 2, durable=False)
    assert [(r.size, r.seed) for r in rows] == [(6, 0), (6, 1), (20, 0), (20, 1)]
    for r in rows:
        assert r.edges == CANDIDATES * r.size and r.settled == r.size
        assert r.commits == r.size + 5 * r.settled  # one listing each, five proposals per settlement
        assert r.digests_match
    text = "\n".join(table(rows, durable=False))
    assert "5 candidates per Buyer" in text and "paper's release at 1000: register 2.45s  settle 6.0s  replay 9.3s" in text


def test_the_command_runs_and_refuses_bad_sizes() -> None:
    ok = CliRunner().invoke(app, ["probe", "--sizes", "5", "--seeds", "1", "--no-durable"])
    assert ok.exit_code == 0, ok.output
    assert "match" in ok.output and "Means over seeds" in ok.output
    bad = CliRunner().invoke(app, ["probe", "--sizes", "0"])
    assert bad.exit_code == 2 and "error: sizes must be" in bad.output
    junk = CliRunner().invoke(app, ["probe", "--sizes", "ten"])
    assert junk.exit_code == 2 and "error:" in junk.output


@pytest.mark.slow
def test_reconstruction_at_1000_is_under_a_second_and_linear() -> None:
    small, large = run_probe([100], 1)[0], run_probe([1000], 1)[0]
    assert large.digests_match and large.reconstruction_cpu < 1.0  # CPU: the cores are shared in CI
    per_small, per_large = small.reconstruction_cpu / small.commits, large.reconstruction_cpu / large.commits
    assert per_large < 2 * per_small
