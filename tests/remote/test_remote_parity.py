"""``acworld validate SUITE --parity``: counts printed, exit 0 when identical, 1 with the failing runs named."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from acworld_env.cli import app
from acworld_env.remote import parity
from acworld_env.remote.parity import ParityReport, RunDigest, parity_gate, runs_of

pytestmark = pytest.mark.timeout(300)


def test_validate_parity_on_a_family(server: tuple[str, Any], tasks: list[Any]) -> None:
    family = tasks[0].task_id.split("/")[1]
    n = sum(t.task_id.split("/")[1] == family for t in tasks)
    result = CliRunner().invoke(app, ["validate", "capability-v1", "--parity", "--tasks", f"*/{family}/*",
                                      "--url", server[0]])
    assert result.exit_code == 0, result.output
    assert f"parity: {2 * n}/{2 * n} runs identical over HTTP ({n} references, {n} mutations" in result.output


def test_validate_parity_starts_its_own_server(tasks: list[Any]) -> None:
    result = CliRunner().invoke(app, ["validate", "capability-v1", "--parity", "--tasks", tasks[0].task_id,
                                      "--parity-mutations", "0"])
    assert result.exit_code == 0, result.output
    assert "parity: 1/1 runs identical over HTTP (1 references, 0 mutations" in result.output


def test_a_difference_fails_the_gate(server: tuple[str, Any], tasks: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    real = parity._remote_digest

    def tampered(env: Any, steps: tuple[str, int]) -> RunDigest:
        d = real(env, steps)
        return RunDigest("f" * 64, d.event_digest, d.score, d.steps_digest, d.steps)

    monkeypatch.setattr(parity, "_remote_digest", tampered)
    report = parity_gate(tasks[:1], server[0], mutations=0)
    assert report.by_family() == {tasks[0].family: (0, 1)}
    assert report.failures == [f"{tasks[0].task_id} reference: trace digest differ (local score 1.0, http score 1.0)"]


def test_mutation_sample_rotates_over_a_tasks_mutations(tasks: list[Any]) -> None:
    task = next(t for t in tasks if len(t.mutations) > 1)
    picked = {runs_of(task, i, 1)[1][0] for i in range(len(task.mutations))}
    assert picked == {f"mutation {m.id}" for m in task.mutations}
    assert len(runs_of(task, 0, 99)) == 1 + len(task.mutations)
    assert ParityReport().failures == []
