"""Two policies in one evaluation: ``acworld eval --counterparties agents --policy buyer=X --policy merchant=Y``.

Every actor of a T4 task is an agent played by its role's policy; the runs record both policies and both
sides' scores, ``acworld verify`` rescored both, ``acworld report`` shows both, and the same seed gives
the same runs.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from eval_kit import cli, summary_of

ZOPA = "*/T4/*/zopa/*"
"""Six T4 tasks (three with the Buyer evaluated, three with the Merchant), each with a zone of agreement."""
N = 6
TWO = ("--counterparties", "agents", "--policy", "buyer=reference", "--policy", "merchant=random")


@pytest.fixture(scope="module")
def two_sided(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-sided evaluation folder (read-only for tests: copy before changing)."""
    out = tmp_path_factory.mktemp("two-sided") / "ref-vs-random"
    result = cli("eval", "capability-v1", "--tasks", ZOPA, *TWO, "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    return out


def _rows(out: Path) -> list[dict[str, str]]:
    with open(out / "results.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_runs_record_both_policies_and_both_sides_scores(two_sided: Path) -> None:
    manifest = json.loads((two_sided / "manifest.json").read_text())
    assert manifest["counterparties"] == "agents"
    assert manifest["policies"] == {"buyer": "reference", "merchant": "random"}
    assert manifest["policy"] == "buyer=reference,merchant=random"
    assert len(manifest["runs"]) == N and all(e["sides_digest"] for e in manifest["runs"])
    for run in sorted((two_sided / "runs").iterdir()):
        meta = json.loads((run / "run.json").read_text())
        assert meta["policies"] == {"buyer": "reference", "merchant": "random"}
        assert meta["agents"] == {"buyer_0": "buyer", "merchant_0": "merchant"}
        sides = json.loads((run / "sides.json").read_text())
        evaluated = meta["task_id"].split("/")[2] + "_0"
        other = ({"buyer_0", "merchant_0"} - {evaluated}).pop()
        assert sides["evaluated"] == evaluated and set(sides["scores"]) == {other}
    summary = summary_of(two_sided)
    sides = summary["sides"]
    assert {r: s["policy"] for r, s in sides.items()} == {"buyer": "reference", "merchant": "random"}
    rows = _rows(two_sided)
    for role in ("buyer", "merchant"):
        own = [float(r[f"{role}_score"]) for r in rows]
        assert sides[role]["runs"] == N and sides[role]["mean_score"] == pytest.approx(sum(own) / N, abs=1e-6)
        assert sides[role]["evaluated_runs"] == sum(r["role"] == role for r in rows)
    # the two columns are not one figure copied twice (a random Merchant rarely lets the reference Buyer's
    # talks conclude, and T4 credits restraint only once they do, so neither side need lead)
    assert sides["buyer"]["mean_score"] != sides["merchant"]["mean_score"]
    assert summary["deal_rate"] == pytest.approx(sum(r["deal"] == "True" for r in rows) / N, abs=1e-6)


def test_verify_rescored_both_sides_and_report_shows_both(two_sided: Path) -> None:
    root = summary_of(two_sided)["root_digest"]
    result = cli("verify", two_sided, "--expect", root)
    assert result.exit_code == 0, result.output
    assert f"{N}/{N} runs verified" in result.output and "merchant_0=" in result.output and "buyer_0=" in result.output
    report = cli("report", two_sided)
    assert report.exit_code == 0, report.output
    lines = report.output.splitlines()
    assert any("Both sides" in line for line in lines)
    buyer = next(line for line in lines if " buyer " in line and "reference" in line)
    merchant = next(line for line in lines if " merchant " in line and "random" in line)
    summary = summary_of(two_sided)
    assert f"{summary['sides']['buyer']['mean_score']:.3f}" in buyer
    assert f"{summary['sides']['merchant']['mean_score']:.3f}" in merchant


def test_same_seed_same_runs_and_default_folder_names_both(two_sided: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("eval", "capability-v1", "--tasks", ZOPA, *TWO, "--quiet")
    assert result.exit_code == 0, result.output
    again = tmp_path / "runs" / "capability-v1" / "buyer_reference__merchant_random"
    assert summary_of(again)["root_digest"] == summary_of(two_sided)["root_digest"]
    for run in (two_sided / "runs").iterdir():
        assert (again / "runs" / run.name / "trace.jsonl").read_bytes() == (run / "trace.jsonl").read_bytes()
    other = tmp_path / "other-seed"
    assert cli("eval", "capability-v1", "--tasks", ZOPA, *TWO, "--seed", "1", "--out", other, "--quiet").exit_code == 0
    assert summary_of(other)["root_digest"] != summary_of(two_sided)["root_digest"]


def test_tampered_side_score_or_missing_sides_file_fails_verify(two_sided: Path, copy_of) -> None:
    out = copy_of(two_sided)
    run = next(p for p in sorted((out / "runs").iterdir()) if "/buyer/" in json.loads((p / "run.json").read_text())["task_id"])
    doc = json.loads((run / "sides.json").read_text())
    doc["scores"]["merchant_0"]["score"] = 1.0
    (run / "sides.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    result = cli("verify", out)
    assert result.exit_code == 1 and "sides.json differs from the rescored run (scores)" in result.output
    (run / "sides.json").unlink()
    result = cli("verify", out)
    assert result.exit_code == 1 and "missing artifact sides.json" in result.output


def test_resume_keeps_the_two_sided_runs(two_sided: Path, copy_of) -> None:
    out = copy_of(two_sided)
    before = {p.name: (p / "trace.jsonl").stat().st_mtime_ns for p in (out / "runs").iterdir()}
    result = cli("eval", "capability-v1", "--tasks", ZOPA, *TWO, "--out", out, "--quiet", "--resume")
    assert result.exit_code == 0, result.output
    assert summary_of(out)["resumed"] == sorted(before)
    assert {p.name: (p / "trace.jsonl").stat().st_mtime_ns for p in (out / "runs").iterdir()} == before
    assert summary_of(out)["root_digest"] == summary_of(two_sided)["root_digest"]


def test_one_spec_with_agents_plays_every_role(tmp_path: Path) -> None:
    out = tmp_path / "selfplay"
    result = cli("eval", "capability-v1", "--tasks", "*/T4/buyer/zopa/01", "--counterparties", "agents",
                 "--policy", "reference", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    assert summary_of(out)["policies"] == {"buyer": "reference", "merchant": "reference"}
    assert summary_of(out)["deals"] == 1


@pytest.mark.parametrize(("args", "message"), [
    (("--counterparties", "agents", "--policy", "seller=reference", "--policy", "buyer=reference"),
     "unknown role 'seller'"),
    (("--counterparties", "agents", "--policy", "buyer=reference"), "missing --policy merchant=SPEC"),
    (("--policy", "buyer=reference", "--policy", "merchant=random"), "needs --counterparties agents"),
    (("--counterparties", "agents", "--policy", "buyer=reference", "--policy", "buyer=random",
      "--policy", "merchant=random"), "gives the buyer twice"),
    (("--counterparties", "agents", "--policy", "reference", "--policy", "merchant=random"), "not both"),
    (("--counterparties", "everyone", "--policy", "reference"), "scripted or agents"),
    (("--counterparties", "agents", "--policy", "buyer=reference", "--policy", "merchant=nonesuch"),
     "unknown policy 'nonesuch'"),
])
def test_bad_policy_assignments_are_usage_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    result = cli("eval", "capability-v1", "--tasks", ZOPA, *args, "--out", tmp_path / "x", "--quiet")
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not list((tmp_path / "x").glob("runs/*/score.json"))
