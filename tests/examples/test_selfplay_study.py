"""examples/selfplay_study.py: the quick mode trains both sides (each side's held-out score against the
scripted tactics rises above its start), writes the cross-play matrix and the exploiters, resumes from
its records, and keeps policies whose recorded figures ``acworld eval`` reproduces; the recorded study
has the seeds and checkpoints it claims, and its kept policies reproduce their figures."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "baselines" / "selfplay_study.json"


def _load(name: str) -> Any:
    sys.path.insert(0, str(ROOT / "examples"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # the worker processes import it by name
    spec.loader.exec_module(module)
    return module


sp = _load("selfplay_study")
rs = sp.rs  # the study's own import (a second copy would not pickle into its workers)


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """One quick study (scratch, one seed, two rounds) and its folder."""
    if rs.missing_libraries():
        pytest.skip(f"needs {sp.NEEDS}")
    root = tmp_path_factory.mktemp("selfplay")
    record = sp.main(["--quick", "--out", str(root / "quick.json"), "--resume", str(root / "run")])
    return record, root


def _score(point: dict[str, Any], role: str) -> float:
    return point[f"{role}_vs_scripted"]["score"]


@pytest.mark.timeout(600)
def test_quick_mode_both_sides_rise_on_held_out_tasks(quick: tuple[dict[str, Any], Path]) -> None:
    record, root = quick
    (run,) = record["runs"]
    first, last = run["curve"][0], run["curve"][-1]
    # each side rises against the side it trains with; in two quick rounds a side's score against the scripted
    # tactics may fall while it adapts to its co-trained partner (the full study measures both)
    for role in sp.ROLES:
        assert last["vs_each_other"][role]["score"] > first["vs_each_other"][role]["score"], (role, run["curve"])
    assert _score(last, "merchant") > _score(first, "merchant"), run["curve"]
    assert (root / "quick.png").is_file() and (root / "quick_crossplay.png").is_file()


def test_quick_record_has_the_matrix_the_exploiters_and_the_checkpoints(quick: tuple[dict[str, Any], Path]) -> None:
    record, root = quick
    (run,) = record["runs"]
    for role in sp.ROLES:
        assert len(run["checkpoints"][role]) == len(run["curve"]) >= 2
        for name in run["checkpoints"][role]:
            assert hashlib.sha256((root / "run" / name).read_bytes()).hexdigest() == record["checkpoint_sha256"][name]
    matrix = record["crossplay"]["scratch"]
    assert matrix["buyers"][-1] == matrix["merchants"][-1] == sp.SCRIPTED
    assert len(matrix["buyer_score"]) == len(run["checkpoints"]["buyer"]) + 1
    assert all(len(row) == len(matrix["merchants"]) for row in matrix["buyer_score"])
    # the learned buyer's cells against the scripted column are its curve's scores
    for i in range(len(run["checkpoints"]["buyer"])):
        assert matrix["buyer_score"][i][-1] == _score(run["curve"][i], "buyer")
    exploits = {e["role"]: e for e in record["exploitability"]}
    assert set(exploits) == set(sp.ROLES)
    for e in exploits.values():
        assert e["gain"] == pytest.approx((e["exploiter"]["score"] or 0) - (e["partner_vs_opponent"]["score"] or 0),
                                          abs=1e-4)
        assert e["opponent"] == run["checkpoints"][sp._other(e["role"])][-1]


def test_a_second_call_resumes_from_the_records(quick: tuple[dict[str, Any], Path]) -> None:
    record, root = quick
    again = sp.main(["--quick", "--out", str(root / "again.json"), "--resume", str(root / "run"), "--no-plot"])
    assert again["runs"] == record["runs"] and again["crossplay"] == record["crossplay"]
    assert again["exploitability"] == record["exploitability"]
    assert len(again["sittings_wall_s"]) == 2


def _check_kept(policy: dict[str, Any], base: Path, tmp_path: Path, heldout_seed: int) -> None:
    """A kept policy: its bytes are the recorded ones and ``acworld eval`` (then ``acworld verify``) on the
    held-out seed's tasks of its role reproduces its recorded score against the scripted tactics."""
    path = base / policy["path"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == policy["sha256"]
    check = rs.check_policy(path.resolve(), seed=heldout_seed, tasks=f"*/T4/{policy['role']}/*",
                            out=tmp_path / f"{policy['init']}-{policy['role']}")
    assert check["verified"] and check["scored"] == check["planned"] == 10
    assert check["mean"] == pytest.approx(policy["heldout_vs_scripted"], abs=1e-3)


def test_quick_kept_policies_reproduce_through_acworld_eval(quick: tuple[dict[str, Any], Path], tmp_path: Path) -> None:
    record, _ = quick
    assert {p["role"] for p in record["policies"]} == set(sp.ROLES)
    for policy in record["policies"]:
        _check_kept(policy, ROOT, tmp_path, record["config"]["heldout_seed"])


def test_the_recorded_study_has_its_seeds_checkpoints_and_reproducible_policies(tmp_path: Path) -> None:
    if not RECORD.is_file():
        pytest.skip("baselines/selfplay_study.json is not recorded yet")
    if rs.missing_libraries():
        pytest.skip(f"needs {sp.NEEDS}")
    record = json.loads(RECORD.read_text())
    assert set(record["config"]["inits"]) == set(sp.INITS) and len(record["config"]["seeds"]) >= 3
    for run in record["runs"]:
        assert all(len(run["checkpoints"][role]) >= 4 for role in sp.ROLES)
    for init in sp.INITS:
        runs = [r for r in record["runs"] if r["init"] == init]
        n = sum(len(r["checkpoints"]["buyer"]) for r in runs) + 1
        assert len(record["crossplay"][init]["buyer_score"]) == n
    market = record["market"]
    assert hashlib.sha256((ROOT / market["source"]).read_bytes()).hexdigest() == market["sha256"]
    buyer = next(p for p in record["policies"] if p["role"] == "buyer" and p["init"] == "clone")
    _check_kept(buyer, ROOT, tmp_path, record["config"]["heldout_seed"])


def test_tables_prints_the_readme_table_and_redraws_the_figures(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    if not RECORD.is_file():
        pytest.skip("baselines/selfplay_study.json is not recorded yet")
    copy = tmp_path / "study.json"
    copy.write_bytes(RECORD.read_bytes())
    record = sp.main(["--tables", str(copy)])
    printed = capsys.readouterr().out
    assert printed.strip() == sp.markdown(record).strip() and "| " in printed
    assert (tmp_path / "study.png").stat().st_size > 0 and (tmp_path / "study_crossplay.png").stat().st_size > 0
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"runs": [')
    with pytest.raises(SystemExit, match="corrupt.json is not a recorded self-play study"):
        sp.main(["--tables", str(corrupt), "--no-plot"])
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"config": record["config"]}))
    with pytest.raises(SystemExit, match="partial.json is not a recorded self-play study"):
        sp.main(["--tables", str(partial), "--no-plot"])
