"""examples/reward_study.py: its statistics, the study's plumbing with a stand-in learner, the quick
mode with the real learner (the potential-reward learner's held-out score rises above its start),
and the recorded best policy checked through ``acworld eval`` and ``acworld verify``."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "baselines" / "reward_study.json"

STAND_IN = '''
"""A stand-in learner with the menu learner's API: scores grow with steps, by reward mode and seed."""
import json
from pathlib import Path

FAMILIES = ("T1_discovery", "T2_grounding")
RATE = {"potential": 0.5, "terminal": 0.3, "success": 0.1}


def demonstrations(*, hints, featuriser, families=None, seeds):
    return [(hints, seed) for seed in seeds]


def train(*, reward, seed, hints, featuriser, steps, families=None, train_seeds, bc=True, callback=None,
          callback_every=2048):
    model = {"reward": reward, "seed": seed, "hints": hints, "step": 0}
    for step in range(0, steps, callback_every):
        model["step"] = step
        if callback is not None:
            callback(step, model)
    model["step"] = steps
    return model


def evaluate(model, *, split, seed=0, hints, featuriser, families=None):
    base = RATE[model["reward"]] * model["step"] / 1000 + 0.02 * model["seed"] + (0.1 if hints == "structured" else 0)
    out = {f: round(min(1.0, base + 0.1 * i), 4) for i, f in enumerate(FAMILIES)}
    out["all"] = round(sum(out.values()) / len(FAMILIES), 4)
    return out


def save(model, path, *, hints, featuriser):
    path = Path(path)
    path.write_text(json.dumps(model))
    path.with_name(path.name + ".json").write_text(json.dumps({"hints": hints}))
    return path
'''


def _load():
    spec = importlib.util.spec_from_file_location("reward_study", ROOT / "examples" / "reward_study.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["reward_study"] = module  # the worker processes import it by name
    spec.loader.exec_module(module)
    return module


rs = _load()


def test_steps_to_reach_is_the_first_step_at_the_level_or_none():
    curve = [[0, 0.1], [100, 0.35], [200, 0.2], [300, 0.6]]
    assert rs.steps_to_reach(curve, 0.3) == 100 and rs.steps_to_reach(curve, 0.5) == 300
    assert rs.steps_to_reach(curve, 0.7) is None


def test_band_is_mean_spread_and_a_student_t_interval():
    b = rs.band([0.2, 0.4, 0.6])
    assert b["mean"] == 0.4 and b["min"] == 0.2 and b["max"] == 0.6 and b["std"] == 0.2
    assert b["lo95"] == round(0.4 - 4.303 * 0.2 / 3 ** 0.5, 4) and b["hi95"] == round(0.4 + 4.303 * 0.2 / 3 ** 0.5, 4)
    assert rs.band([0.5])["lo95"] == 0.5 and rs.band([])["mean"] is None


def test_bootstrap_difference_is_seeded_and_brackets_its_estimate():
    a = [{"T1": 0.8, "T2": 0.6}, {"T1": 0.7, "T2": 0.5}, {"T1": 0.9, "T2": 0.7}]
    b = [{"T1": 0.2, "T2": 0.5}, {"T1": 0.3, "T2": 0.4}, {"T1": 0.1, "T2": 0.6}]
    one, two = rs.bootstrap_difference(a, b, seed=3), rs.bootstrap_difference(a, b, seed=3)
    assert one == two and one["mean"] == 0.35 and one["lo95"] <= one["mean"] <= one["hi95"]
    assert rs.bootstrap_difference(b, a, seed=3)["mean"] == -0.35
    same = rs.bootstrap_difference(a, a, seed=3)
    assert same["mean"] == 0.0 and not same["excludes_zero"]


def test_low_families_name_measured_reasons():
    best = {"hints": "off", "heldout": {"T1_discovery": 0.1, "T3_preference": 0.9, "T7_lifecycle": 0.2},
            "frozen": {"T1_discovery": 0.05}, "curve_families": [
                {"T1_discovery": 0.0, "T7_lifecycle": 0.2}, {"T1_discovery": 0.0, "T7_lifecycle": 0.2},
                {"T1_discovery": 0.02, "T7_lifecycle": 0.2}, {"T1_discovery": 0.1, "T7_lifecycle": 0.2}]}
    coverage = {"splits": {"generated (seed 1), hints off": {"by_family": {
        "T1_discovery": {"covered": 0, "tasks": 20, "missing": {"search_listings": 20}, "missing_no_slot": 20},
        "T7_lifecycle": {"covered": 12, "tasks": 20, "missing": {"get_shipment": 8}, "missing_unseen_id": 7,
                         "missing_no_slot": 1}}}}}
    low = rs.low_families(best, coverage)
    assert set(low) == {"T1_discovery", "T7_lifecycle"}
    t1, t7 = low["T1_discovery"], low["T7_lifecycle"]
    assert t1["menu_covered"] == 0.0 and t1["still_rising"] and t1["no_slot"] == 20
    assert t1["reasons"][0] == "menu lacks the action for 20/20 references" and t1["missing_kinds"] == {"search_listings": 20}
    assert t7["menu_covered"] == 0.6 and not t7["still_rising"] and t7["unseen"] == 7
    assert "observation lacks the id or figure the reference used in 7/20" in t7["reasons"]
    assert "learner reaches 0.20 where the menu replays 60% of the references" in t7["reasons"]
    bare = rs.low_families({**best, "heldout": {"T7_lifecycle": 0.2}}, None)
    assert bare["T7_lifecycle"]["reasons"][0].startswith("none measured")


def test_the_study_with_a_stand_in_learner_writes_every_record_the_bands_and_the_best(tmp_path):
    learner = tmp_path / "stand_in.py"
    learner.write_text(STAND_IN)
    out = tmp_path / "study.json"
    args = ["--learner", str(learner), "--steps", "1000", "--seeds", "0", "1", "--curve-points", "4", "--workers", "2",
            "--no-check", "--out", str(out), "--policies", str(tmp_path / "policies"), "--resume", str(tmp_path / "run")]
    record = rs.main(args)
    assert json.loads(out.read_text()) == record and out.with_suffix(".png").stat().st_size > 10_000
    runs = record["runs"]
    assert len(runs) == 2 * 2 * 3 and {(r["reward"], r["seed"], r["hints"]) for r in runs} == {
        (m, s, h) for m in rs.MODES for s in (0, 1) for h in rs.HINTS}
    first = next(r for r in runs if (r["reward"], r["seed"], r["hints"]) == ("potential", 0, "off"))
    assert first["curve"] == [[0, 0.05], [250, 0.175], [500, 0.3], [750, 0.425], [1000, 0.55]]
    assert first["steps_to_0_5"] == 1000 and first["steps_to_0_8"] is None and first["heldout_mean"] == 0.55
    assert first["frozen"] == {"T1_discovery": 0.5, "T2_grounding": 0.6}
    assert record["by_mode"]["off"]["success"]["steps_to_0_5"]["reached"] == 0
    ratio = record["step_ratios"]["off"]["terminal / potential, steps_to_0_5"]
    assert ratio["censored_num"] == 2 and ratio["censored_den"] == 0 and ratio["ratio"] == 1.0  # censored at budget
    assert record["by_mode"]["structured"]["potential"]["heldout"]["mean"] == 0.66
    diff = record["differences"]["off"]["potential - terminal"]["heldout"]
    assert diff["mean"] == 0.2 and diff["excludes_zero"]
    kept = {h: b["policy"] for h, b in record["best"].items()}
    assert all(Path(p).is_file() and "potential-s1" in p for p in kept.values())
    assert sorted(r["policy"] for r in runs if r["policy"]) == sorted(kept.values())
    assert record["command"].startswith("python examples/reward_study.py --learner") and record["wall_s"] > 0
    tables = rs.markdown_tables(record)
    assert "| off | success | 0.160 | 0.160 | 0.014; 0.150-0.170 |" in tables
    assert record["by_mode"]["off"]["potential"]["rl_gain"]["mean"] == 0.5
    assert "| off | potential - terminal | +0.200 [+0.180, +0.220] | +0.200 [+0.180, +0.220] |" in tables
    assert "| T2_grounding | " in tables and tables.count("\n| structured |") == 9 + sum(r["hints"] == "structured" for r in runs)
    per_run = sys.modules["study_report"].seed_table(record)  # held-out at half the budget (500), at the end, frozen, steps to 0.5 / 0.6
    assert f"| off | potential | 0 | 0.300 | 0.550 | {first['frozen_mean']:.3f} | 1,000 | never |" in per_run
    assert per_run in tables and per_run.count("\n| ") == len(runs)


def test_a_study_resumes_from_its_recorded_runs_and_retrains_what_changed(tmp_path, capsys):
    learner = tmp_path / "stand_in.py"
    learner.write_text(STAND_IN)
    common = ["--learner", str(learner), "--seeds", "0", "--curve-points", "2", "--workers", "1", "--no-check",
              "--hints", "off", "--out", str(tmp_path / "s.json"), "--resume", str(tmp_path / "run")]
    first = rs.main([*common, "--steps", "1000"])
    records = sorted((tmp_path / "run" / "records").glob("*.json"))
    assert len(records) == 3 and "3 to go" in capsys.readouterr().out
    (tmp_path / "run" / "records" / records[0].name).write_text("{not json")  # a torn record is trained again
    again = rs.main([*common, "--steps", "1000"])
    assert "2 of 3 runs recorded, 1 to go" in capsys.readouterr().out
    assert [r["heldout_mean"] for r in again["runs"]] == [r["heldout_mean"] for r in first["runs"]]
    assert len(again["sittings_wall_s"]) == 2 and again["wall_s"] >= first["wall_s"]
    longer = rs.main([*common, "--steps", "2000"])  # another budget: another key, nothing reused
    assert "0 of 3 runs recorded, 3 to go" in capsys.readouterr().out and longer["config"]["steps"] == 2000


def test_a_run_folder_travels_without_weights_reports_what_is_missing_and_follows_the_env(tmp_path, capsys,
                                                                                        monkeypatch):
    learner = tmp_path / "stand_in.py"
    learner.write_text(STAND_IN)
    folder = tmp_path / "run"
    real = rs.learner_version
    monkeypatch.setattr(rs, "learner_version", lambda path: {**real(path), "head": "a" * 40,
                                                             "uncommitted_changes": False,
                                                             "env_uncommitted_changes": False})
    common = ["--learner", str(learner), "--seeds", "0", "1", "--curve-points", "2", "--workers", "2", "--no-keep",
              "--hints", "off", "--no-bc", "--steps", "1000", "--out", str(tmp_path / "s.json"), "--resume", str(folder)]
    whole = rs.main(common)
    assert whole["complete"] and whole["missing_runs"] == [] and len(whole["runs"]) == 6
    for weights in (folder / "runs").iterdir():  # what git does not carry: the weights
        weights.unlink()
    record = sorted((folder / "records").glob("*.json"))[0]
    record.unlink()
    capsys.readouterr()
    partial = rs.main([*common, "--recorded-only"])
    assert "5 of 6 runs recorded, 0 to go" in capsys.readouterr().out
    assert not partial["complete"] and len(partial["runs"]) == 5 and len(partial["missing_runs"]) == 1
    assert partial["sittings_wall_s"] == whole["sittings_wall_s"]  # a summary-only call opens no sitting
    assert partial["command"] == whole["command"]  # the command that trains (and resumes) the study
    again = rs.main(common)  # only the missing run trains; the weightless records are reused under --no-keep
    assert "5 of 6 runs recorded, 1 to go" in capsys.readouterr().out and again["complete"]
    assert [r["heldout_mean"] for r in again["runs"]] == [r["heldout_mean"] for r in whole["runs"]]
    assert all(json.loads(p.read_text())["version"]["head"] == "a" * 40 for p in (folder / "records").iterdir())
    assert all("version" not in r for r in again["runs"])  # the JSON names the version once, in its config
    monkeypatch.setattr(rs, "learner_version", lambda path: {**real(path), "head": "b" * 40,
                                                             "env_sha256": "another env"})
    with pytest.raises(SystemExit) as exc:  # another version of the env: no record counts, and it says which does
        rs.main([*common, "--recorded-only"])
    out = capsys.readouterr().out
    assert "0 of 6 runs recorded" in out and "no run of this study is recorded" in str(exc.value)
    assert "6 records in" in out and "resume them with --at aaaaaaaaaaaa" in out


def test_a_pinned_study_is_told_where_to_write_and_not_told_to_pin_again(tmp_path, monkeypatch):
    monkeypatch.chdir(rs.HOME)
    argv = ["--no-bc", "--at", "HEAD~3", "--steps", "8", "--at=HEAD"]
    given = rs.pinned_argv(argv, rs.parse_args(argv))
    assert given == ["--no-bc", "--steps", "8", "--out", "baselines/reward_study.json",
                     "--resume", ".study/reward_study"]  # an older commit's defaults would lie inside its tree
    named = ["--out", str(tmp_path / "s.json"), "--resume", "r", "--at", "HEAD"]
    assert rs.pinned_argv(named, rs.parse_args(named)) == named[:4]


def test_a_study_at_a_commit_runs_from_its_worktree_and_records_the_command_that_resumes_it(tmp_path, monkeypatch):
    monkeypatch.delenv("ACWORLD_STUDY_PINNED", raising=False)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    if not head:
        pytest.skip("not a git checkout")
    learner = tmp_path / "stand_in.py"
    learner.write_text(STAND_IN)
    argv = ["--at", "HEAD", "--learner", str(learner), "--seeds", "0", "--modes", "potential", "--hints", "off",
            "--no-bc", "--steps", "1000", "--curve-points", "2", "--workers", "1", "--no-keep",
            "--out", str(tmp_path / "s.json"), "--resume", str(tmp_path / "run")]
    tree = ROOT / ".study" / "trees" / head[:12]
    made = not tree.exists()
    try:
        record = rs.main(argv)
    finally:
        if made:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
    assert record["command"].startswith(f"python examples/reward_study.py --at {head[:12]} --learner ")
    assert record["config"]["learner_version"]["head"] == head and (tmp_path / "s.json").is_file()
    assert [r["reward"] for r in record["runs"]] == ["potential"]


def test_an_audit_trains_a_recorded_run_again_and_names_an_edited_figure(tmp_path, capsys):
    learner = tmp_path / "stand_in.py"
    learner.write_text(STAND_IN)
    common = ["--learner", str(learner), "--seeds", "0", "1", "--curve-points", "2", "--workers", "1", "--no-keep",
              "--hints", "off", "--no-bc", "--steps", "1000", "--out", str(tmp_path / "s.json"),
              "--resume", str(tmp_path / "run")]
    rs.main(common)
    capsys.readouterr()
    checks = rs.main([*common, "--audit", "off-potential-s1", "off-success-s0"])["audit"]
    assert all(c["reproduced"] for c in checks.values()) and set(checks) == {"off-potential-s1", "off-success-s0"}
    assert capsys.readouterr().out.count("reproduced, every figure equal") == 2
    path = next(p for p in (tmp_path / "run" / "records").iterdir() if p.name.startswith("off-potential-s1-"))
    record = json.loads(path.read_text())
    record["heldout_mean"] += 0.1  # an edit that would flow into the study's tables
    path.write_text(json.dumps(record))
    with pytest.raises(SystemExit) as exc:
        rs.main([*common, "--audit", "off-potential-s1"])
    assert "off-potential-s1 not reproduced" in str(exc.value)
    assert "DIFFERS: heldout_mean: recorded" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        rs.main([*common, "--audit", "off-potential-s7"])
    assert "no run named off-potential-s7" in str(exc.value)
    path.unlink()
    with pytest.raises(SystemExit) as exc:
        rs.main([*common, "--audit", "off-potential-s1"])
    assert "has no record" in str(exc.value)


def test_the_env_digest_follows_the_sources_a_run_reads_and_not_the_servers(tmp_path):
    package = tmp_path / "acworld_env"
    (package / "envs").mkdir(parents=True)
    (package / "card").mkdir()
    (package / "envs" / "menu.py").write_text("A = 1\n")
    (package / "card" / "render.py").write_text("B = 1\n")
    first = rs.env_digest(package)
    (package / "card" / "render.py").write_text("B = 2\n")
    assert rs.env_digest(package) == first
    (package / "envs" / "menu.py").write_text("A = 2\n")
    assert rs.env_digest(package) != first


def test_the_steps_ratio_is_seeded_and_counts_censored_runs_at_the_budget():
    r = rs.bootstrap_ratio([400, 600, None], [100, 200, 300], budget=1000, seed=0)
    assert r["ratio"] == round((400 + 600 + 1000) / 3 / 200, 3) and r["censored_num"] == 1
    assert r["lo95"] <= r["ratio"] <= r["hi95"] and r == rs.bootstrap_ratio([400, 600, None], [100, 200, 300],
                                                                             budget=1000, seed=0)
    assert rs.bootstrap_ratio([100], [None, None], budget=1000)["ratio"] is None


def test_bad_input_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit):
        rs.main(["--heldout-seed", "3", "--train-seeds", "2", "3"])
    assert "must not be training seeds" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        rs.main(["--learner", str(tmp_path / "nowhere.py"), "--quick"])
    assert "nowhere.py is missing" in str(exc.value.code)


def test_quick_mode_potential_learner_rises_above_its_start(tmp_path):
    if rs.missing_libraries():
        pytest.skip(f"needs {rs.NEEDS}")
    record = rs.main(["--quick", "--out", str(tmp_path / "quick.json"), "--policies", str(tmp_path / "policies")])
    assert {r["reward"] for r in record["runs"]} == set(rs.MODES)
    potential = next(r for r in record["runs"] if r["reward"] == "potential")
    assert potential["heldout_mean"] > potential["curve"][0][1], potential["curve"]


def test_the_recorded_best_policy_reaches_its_figure_through_acworld_eval_and_verifies(tmp_path):
    if not RECORD.is_file():
        pytest.skip("baselines/reward_study.json is not recorded yet")
    if rs.missing_libraries():
        pytest.skip(f"needs {rs.NEEDS}")
    record = json.loads(RECORD.read_text())
    for hints, best in record["best"].items():
        check = best["check"]
        assert check["verified"] and abs(check["mean"] - best["heldout_mean"]) <= 0.05
        family = "T10_timing"
        small = rs.check_policy(ROOT / best["policy"], seed=check["seed"], tasks="*/T10/*", out=tmp_path / hints)
        assert small["verified"] and small["scored"] == small["planned"] == 20
        assert abs(small["by_family"][family] - check["by_family"][family]) <= 0.05


def test_the_long_scratch_runs_begin_as_the_recorded_shorter_runs_of_the_same_version():
    """The README's claim: a 409,600-step run's first 204,800 steps are the 204,800-step run, bit for bit
    (constant learning rate, seeded rollouts), though the two were trained in different sittings."""
    short = sorted((ROOT / "baselines" / "studies" / "reward_study_scratch_v2" / "records").glob("*.json"))
    long = {p.name.rsplit("-", 1)[0]: json.loads(p.read_text())
            for p in (ROOT / "baselines" / "studies" / "reward_study_scratch_long" / "records").glob("*.json")}
    assert short, "the 204,800-step records are missing"
    for path in short:
        record = json.loads(path.read_text())
        twin = long[path.name.rsplit("-", 1)[0]]
        assert record["version"]["env_sha256"] == twin["version"]["env_sha256"]
        assert record["version"]["learner_sha256"] == twin["version"]["learner_sha256"]
        assert record["version"]["head"] != twin["version"]["head"]  # another commit, another sitting
        points = {int(s): v for s, v in twin["curve"]}
        assert [points[int(s)] for s, _ in record["curve"]] == [v for _, v in record["curve"]]
        assert record["heldout"] == twin["curve_families"][len(record["curve"]) - 1]


def test_the_kept_from_scratch_policy_reaches_its_recorded_figure_and_is_the_recorded_run(tmp_path):
    kept_path = ROOT / "baselines" / "reward_study_scratch_long_kept.json"
    if rs.missing_libraries():
        pytest.skip(f"needs {rs.NEEDS}")
    kept = json.loads(kept_path.read_text())
    policy = ROOT / kept["policy"]
    assert hashlib.sha256(policy.read_bytes()).hexdigest() == kept["sha256"]
    record = json.loads((ROOT / kept["run_record"]).read_text())
    assert (record["heldout_mean"], record["frozen_mean"]) == (kept["heldout_mean"], kept["frozen_mean"])
    assert kept["check"]["verified"] and kept["check"]["mean"] >= 0.60 and kept["check"]["scored"] == 200
    small = rs.check_policy(policy, seed=kept["check"]["seed"], tasks="*/T10/*", out=tmp_path / "t10")
    assert small["verified"] and small["scored"] == small["planned"] == 20
    assert small["by_family"]["T10_timing"] == kept["check"]["by_family"]["T10_timing"]
