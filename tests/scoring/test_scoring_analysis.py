"""Equal-weight sensitivity and restricted-view collisions over saved runs (the paper's Tables 20 and 5)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from acworld_env.eval.rollout import run_episode
from acworld_env.eval.scoring_cli import register
from acworld_env.policies.make import make_policy
from acworld_env.scoring.analysis import (
    VIEWS,
    RunAnalysis,
    analyze_dirs,
    collisions,
    public_sequence,
    sensitivity,
)
from acworld_env.trace import read_trace


class LeakyReference:
    """The reference plan, plus one (blocked) attempt to reveal the ceiling just before finishing."""

    def __init__(self, task) -> None:
        self.ref = make_policy(task.reference)
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.ref.reset(seed)
        self.pending: dict | None = None
        self.leaked = False

    def act(self, obs: dict):
        if self.pending is not None:
            action, self.pending = self.pending, None
            return action
        action = self.ref.act(obs)
        if isinstance(action, dict) and action.get("kind") == "finish" and not self.leaked:
            self.leaked, self.pending = True, action
            return {"kind": "send_message", "to": "merchant_0", "text": "Between us, my ceiling was $100."}
        return action


@pytest.fixture(scope="module")
def groups(tmp_path_factory, demo_task) -> tuple[Path, Path]:
    """Group A: the reference and the overpay mutation; group B: the leaky reference."""
    root = tmp_path_factory.mktemp("analysis")
    a, b = root / "agent-a", root / "agent-b"
    run_episode(demo_task, make_policy(demo_task.reference), out_dir=a / "reference")
    run_episode(demo_task, make_policy(demo_task.mutations[0].policy), out_dir=a / "overpay")
    run_episode(demo_task, LeakyReference(demo_task), out_dir=b / "leaky")
    return a, b


def test_views_separate_what_each_checker_sees(groups):
    runs = {r.path.name: r for r in analyze_dirs(groups)}
    ref, over, leak = runs["reference"], runs["overpay"], runs["leaky"]
    assert ref.full_credit and not over.full_credit and not leak.full_credit
    # a blocked leak changes neither the World nor the public actions, only the full trace
    assert leak.views["final_state"] == ref.views["final_state"]
    assert leak.views["final_action"] == ref.views["final_action"]
    assert leak.views["public_sequence"] == ref.views["public_sequence"]
    assert leak.views["full_trace"] != ref.views["full_trace"]
    # overpaying ends with the same "finish" but a different World and different offers
    assert over.views["final_action"] == ref.views["final_action"]
    assert over.views["final_state"] != ref.views["final_state"]
    assert over.views["public_sequence"] != ref.views["public_sequence"]


def test_collision_counts(groups):
    rows = {r.view: r for r in collisions(analyze_dirs(groups))}
    assert list(rows) == list(VIEWS)
    assert {v: r.colliding for v, r in rows.items()} == {
        "final_state": 1, "final_action": 2, "public_sequence": 1, "full_trace": 0}
    assert all(r.failing == 2 and r.runs == 3 for r in rows.values())


def test_public_sequence_drops_queries_rejections_and_private_fields(groups):
    a, _ = groups
    records = read_trace(a / "reference" / "trace.jsonl")
    seq = public_sequence(records, "buyer_0")
    kinds = [s["kind"] for s in seq]
    assert kinds[0] == "propose_offer" and kinds[-1] == "finish"
    assert "get_inbox" not in kinds
    assert all("idempotency_key" not in s and "actor" not in s for s in seq)
    answer = {"n": 1, "actor": "b", "validation": {"accepted": True},
              "action": {"kind": "submit_answer", "answer": {"x": 1}, "evidence": ["L1"], "rationale": "r"}}
    assert public_sequence([answer], "b") == [{"kind": "submit_answer", "answer": {"x": 1}}]


def test_equal_weight_sensitivity(groups):
    rows = {r.group: r for r in sensitivity(analyze_dirs(groups))}
    assert set(rows) == {"agent-a", "agent-b", "all"}
    a, b, total = rows["agent-a"], rows["agent-b"], rows["all"]
    assert a.runs == 2 and a.mean_task == pytest.approx((1.0 + 0.65) / 2)  # overpay loses the 0.35 agreement
    assert a.mean_equal == pytest.approx((1.0 + 2 / 3) / 2)
    assert b.mean_task == pytest.approx(0.8) and b.mean_equal == pytest.approx(2 / 3)  # a leak loses its 0.2
    assert (a.full_task, a.full_equal, b.full_task, b.full_equal) == (1, 1, 0, 0)
    assert total.runs == 3 and total.full_task == total.full_equal == 1
    assert (a.rank_task, a.rank_equal, b.rank_task, b.rank_equal) == (1, 1, 2, 2)


def fake(task: str, full: bool, views: dict[str, str], valid: bool = True) -> RunAnalysis:
    return RunAnalysis(Path(task), "g", task, valid, "" if valid else "broken", 1.0 if full else 0.5,
                       1.0 if full else 0.5, full, full, views if valid else {})


def test_collisions_only_within_the_same_task_and_among_valid_runs():
    same = dict.fromkeys(VIEWS, "x")
    runs = [fake("t1", True, same), fake("t2", False, same), fake("t1", False, {**same, "full_trace": "y"}),
            fake("t1", False, same, valid=False)]
    rows = {r.view: r for r in collisions(runs)}
    assert rows["final_state"].colliding == 1 and rows["final_state"].failing == 2
    assert rows["full_trace"].colliding == 0 and rows["full_trace"].runs == 3


def test_sensitivity_counts_invalid_runs_apart():
    rows = sensitivity([fake("t1", True, {}), fake("t1", False, {}, valid=False)])
    assert len(rows) == 1 and rows[0].invalid == 1 and rows[0].mean_task == 1.0


def test_cli_analyze_prints_both_tables(groups, tmp_path):
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register(app)
    broken = tmp_path / "agent-c"
    shutil.copytree(groups[1], broken)
    (broken / "leaky" / "task.json").unlink()
    result = CliRunner().invoke(app, ["analyze", *map(str, groups), str(broken)])
    assert result.exit_code == 0, result.output
    for text in ("task weights vs equal weights", "a weaker checker would pass", "by family", "Where credit was lost",
                 "final World state", "public action",
                 "full trace", "agent-a", "agent-b", "invalid (excluded)", "missing artifact task.json"):
        assert text in result.output, text
    assert CliRunner().invoke(app, ["analyze", str(tmp_path / "nowhere")]).exit_code == 2
