"""``acworld card --quick``: the card is written with every section, and its figures agree with checks made
here independently (the env's own task counts, digests replayed in this process, the gate's baselines played
again, the recorded studies read directly, the privacy corpus judged again); a path it cannot write is a
one-line error with exit status 2."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path
from statistics import mean
from typing import Any

import pytest
from typer.testing import CliRunner

import acworld_env
from acworld_env.card import SECTIONS
from acworld_env.card.sections import TITLE
from acworld_env.card.sections import learnability as render_learnability
from acworld_env.card.studies import reward_study, selfplay_study
from acworld_env.cli import app
from acworld_env.envs.spaces import decode_observation
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy
from acworld_env.policies.random_policy import RandomPolicy
from acworld_env.tasks.suites import load_suite

ROOT = Path(__file__).resolve().parents[2]
SUITE_OF = {"capability-v1": "capability-v1", "large-catalog-v1": "large-catalog-v1", "demo-v1": "demo"}

pytestmark = pytest.mark.timeout(420)


@pytest.fixture(scope="module")
def card(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ``acworld card --quick`` in a fresh process: its markdown, its JSON, its output."""
    out = tmp_path_factory.mktemp("card")
    md, js = out / "card.md", out / "card.json"
    done = subprocess.run([sys.executable, "-m", "acworld_env.cli", "card", "--quick", "--out", str(md), "--json",
                           str(js)], capture_output=True, text=True, timeout=400, cwd=out)
    assert done.returncode == 0, done.stdout + done.stderr
    return {"md": md.read_text(), "json": json.loads(js.read_text()), "stdout": done.stdout}


def _first_per_family(n: int = 2) -> list[Any]:
    seen: Counter[str] = Counter()
    picked = []
    for task in load_suite("capability-v1", "frozen", 0):
        if seen[task.family] < n:
            seen[task.family] += 1
            picked.append(task)
    return picked


def _play(task_id: str, policy: str, seed: int) -> tuple[int, dict[str, str]]:
    """This test's own AEC loop: agent steps and the episode's digests."""
    env = acworld_env.make("capability-v1")
    env.reset(seed=seed, options={"task_id": task_id})
    pol = RandomPolicy(seed=seed) if policy == "random" else make_policy("idle")
    pol.reset(seed)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(pol.act(decode_observation(obs)))
        steps += 1
    market = env.unwrapped.episode.market
    return steps, {"trace": market.trace.digest, "state": market.world.state_digest(),
                   "event": market.world.event_digest}


def test_card_is_written_with_every_section_in_order(card):
    md, data = card["md"], card["json"]
    assert md.startswith(TITLE + "\n")
    positions = [md.index(f"## {i}. {name}\n") for i, name in enumerate(SECTIONS, 1)]
    assert positions == sorted(positions)
    assert f"{data['machine']['cpus']} CPUs" in md and data["machine"]["python"] in md
    assert data["version"] in md and data["date"] in md and "--quick" in md
    assert md.count("*Command:*") >= len(SECTIONS) - 1 and md.count("*How:*") >= len(SECTIONS) - 1
    assert data["quick"] is True and 0 < data["wall_s"] < 90 * 3  # the full budget, with room for a busy machine
    assert set(data["sections_wall_s"]) == {"suite", "startup", "throughput", "determinism", "baseline_gate",
                                            "safety", "sessions", "learnability"}
    assert "wrote" in card["stdout"]


def test_suite_counts_equal_each_envs_task_list(card):
    envs = card["json"]["suite"]["envs"]
    assert set(envs) == set(SUITE_OF)
    for env_id, suite in SUITE_OF.items():
        tasks = load_suite(suite, "frozen", 0)
        got = envs[env_id]
        assert got["tasks"] == len(tasks) == len(acworld_env.make(env_id).unwrapped.tasks)
        assert {f: v["tasks"] for f, v in got["families"].items()} == dict(Counter(t.family for t in tasks))
        assert got["roles"] == dict(Counter(t.role for t in tasks))
        assert got["predicates"] == sum(len(t.predicates) for t in tasks)
        assert got["mutations"] == sum(len(t.mutations) for t in tasks)
        for fam, v in got["families"].items():
            assert v["capabilities"] == dict(Counter(t.capability for t in tasks if t.family == fam))
    assert card["json"]["suite"]["without_task_list"] == ["market-v1"]
    assert f"**`capability-v1`**: {envs['capability-v1']['tasks']} tasks" in card["md"]


def test_determinism_digests_replay_here(card):
    d = card["json"]["determinism"]
    ids = [t.task_id for t in _first_per_family()]
    assert list(d["digests"]) == ids and d["tasks"] == len(ids)
    for task_id in ids:
        assert _play(task_id, "random", 0)[1] == d["digests"][task_id], task_id
    assert _play(ids[0], "random", 1)[1]["trace"] != d["digests"][ids[0]]["trace"]  # another seed, another trace
    assert d["same_seed_identical"] == len(ids) and d["run_digest"] == d["run_digest_again"]
    assert d["other_seed_differs"] > 0 and d["run_digest_other_seed"] != d["run_digest"]
    assert d["replay"]["runs"] > 0 and d["replay"]["reproduced"] == d["replay"]["runs"]
    g = d["generated"]
    assert g["same"] and g["digest"] == g["digest_again"] and g["other_differs"]
    assert f"Same seed: {len(ids)}/{len(ids)} episodes" in card["md"]


def test_throughput_is_positive_finite_and_counts_the_steps_played_here(card):
    t = card["json"]["throughput"]
    ids = [t_.task_id for t_ in _first_per_family()]
    for name in ("random", "idle"):
        row = t["aec"][name]
        assert math.isfinite(row["steps_per_s"]) and row["steps_per_s"] > 0 and row["episodes"] == len(ids)
        assert row["steps"] == sum(_play(task_id, name, 0)[0] for task_id in ids), name
    labels = [r["label"] for r in t["menu"]["rows"]]
    assert labels[0].startswith("single env") and any(r["processes"] > 1 for r in t["menu"]["rows"])
    for r in t["menu"]["rows"]:
        assert math.isfinite(r["steps_per_s"]) and r["steps_per_s"] > 0
        assert r["us_per_step"] == pytest.approx(1e6 / r["steps_per_s"], rel=0.01)


def test_startup_rows_are_ordered_fresh_process_times(card):
    rows = {r["label"]: r for r in card["json"]["startup"]["rows"]}
    assert set(rows) == {"interpreter alone", "import + make", "import + make + first reset"}
    for r in rows.values():
        assert 0 < r["best_s"] <= r["median_s"] and r["cpu_s"] > 0
    assert rows["interpreter alone"]["best_s"] < rows["import + make"]["best_s"] < \
        rows["import + make + first reset"]["best_s"]


def _reference_steps(task_id: str) -> int:
    """Actions the task's reference takes (seed 0), counted by playing it here."""
    task = next(t for t in load_suite("capability-v1", "frozen", 0) if t.task_id == task_id)
    return run_episode(task, make_policy(task.reference), seed=0).episode.steps[task.actor]


def test_every_server_held_all_its_sessions_and_played_every_step(card):
    s = card["json"]["sessions"]
    rows = {r["server"]: r for r in s["rows"]}
    assert set(rows) == {"HTTP", "MCP", "OpenEnv"}
    per_task = {t: _reference_steps(t) for t in s["tasks"]}
    for name in ("HTTP", "OpenEnv"):
        r = rows[name]
        assert r["held"] == r["sessions"] > 1 and r["completed"] == r["episodes"] == r["sessions"] * s["rounds"]
        assert r["steps"] == s["rounds"] * sum(per_task[s["tasks"][i % len(s["tasks"])]] for i in range(r["sessions"]))
    mcp = rows["MCP"]
    longest = max(per_task.values())
    assert mcp["held"] == mcp["sessions"] > 1 and mcp["completed"] == 1 and mcp["errors"] == []
    assert mcp["steps"] == longest + (mcp["sessions"] - 1) * s["mcp_reads"]
    for r in rows.values():
        assert 0 < r["p50_ms"] <= r["p99_ms"] <= r["max_ms"] and r["steps_per_s"] > 0
        assert f"| {r['server']} | `{r['command']}` | {r['held']}/{r['sessions']} |" in card["md"]


def test_gate_figures_equal_the_baselines_played_here(card):
    from acworld_env.eval import baseline_gate as bg

    g = card["json"]["baseline_gate"]
    assert g["ceilings"]["no_op_mean"] == bg.NULL_MEAN and g["ceilings"]["random_mean"] == bg.RANDOM_MEAN
    assert g["ceilings"]["shortcut_mean"] == bg.SHORTCUT_MEAN and g["ceilings"]["menu_mean"] == bg.MENU_MEAN
    tasks = _first_per_family()
    assert g["tasks"] == len(tasks) and len(g["families"]) == 10
    for fam in ("T1_discovery", "T4_negotiation", "T9_adversarial"):
        mine = [t for t in tasks if t.family == fam]
        null = {n: mean(run_episode(t, make_policy(n), seed=0).score.score for t in mine) for n in ("idle", "finish",
                                                                                                     "abstain")}
        got = g["families"][fam]
        assert got["tasks"] == len(mine)
        assert got["no_op"]["means"] == {n: round(v, 4) for n, v in null.items()}
        assert got["no_op"]["mean"] == round(max(null.values()), 4)
        rand = mean(mean(run_episode(t, RandomPolicy(seed=k), seed=k).score.score for k in range(bg.RANDOM_SEEDS))
                    for t in mine)
        assert got["random"] == round(rand, 4)
        assert bool(got["failures"]) == any(f.startswith(fam + " /") for f in g["failures"])
    assert g["passes"] == (not g["failures"])


def test_learnability_points_are_the_recorded_studies(card):
    lrn = card["json"]["learnability"]
    for study in lrn["reward_studies"]:
        record = json.loads((ROOT / study["file"]).read_text())
        assert study["recorded"] and study["command"] == record["command"]
        assert len(study["curves"]) == sum(len(m) for m in record["by_mode"].values())
        for c in study["curves"]:
            recorded = record["by_mode"][c["hints"]][c["mode"]]["curve"]
            assert (c["steps"], c["mean"], c["lo95"], c["hi95"]) == (recorded["steps"], recorded["mean"],
                                                                     recorded["lo95"], recorded["hi95"])
            runs = [r for r in record["runs"] if r["reward"] == c["mode"] and r["hints"] == c["hints"]]
            assert {str(r["seed"]): [p[1] for p in r["curve"]] for r in runs} == c["per_seed"]
        first = study["curves"][0]
        assert f"{first['mean'][-1]:.3f} [{first['lo95'][-1]:.3f}, {first['hi95'][-1]:.3f}]" in card["md"]
        assert f"`{record['command']}`" in card["md"]
    selfplay = lrn["selfplay"]
    assert selfplay["recorded"] == (ROOT / "baselines" / "selfplay_study.json").is_file()
    if not selfplay["recorded"]:
        assert "Not recorded" in card["md"].split("(self-play)")[1]


def _point(b: float, m: float, eb: float, em: float, steps: int) -> dict[str, Any]:
    return {"round": steps // 10, "steps_per_side": steps, "buyer_vs_scripted": {"score": b},
            "merchant_vs_scripted": {"score": m}, "vs_each_other": {"buyer": {"score": eb}, "merchant": {"score": em}}}


def test_selfplay_curves_are_read_as_means_over_seeds(tmp_path):
    record = {"study": "both sides learn", "command": "python examples/selfplay_study.py --quick",
              "config": {"inits": ["scratch"]},
              "runs": [{"init": "scratch", "seed": 0, "curve": [_point(0.1, 0.2, 0.3, 0.4, 0), _point(0.5, 0.6, 0.7, 0.8, 20)]},
                       {"init": "scratch", "seed": 1, "curve": [_point(0.3, 0.4, 0.5, 0.6, 0), _point(0.7, 0.8, 0.9, 1.0, 20)]}]}
    path = tmp_path / "selfplay_study.json"
    path.write_text(json.dumps(record))
    got = selfplay_study(str(path))
    assert got["recorded"] and got["readable"]
    (c,) = got["curves"]
    assert c["seeds"] == [0, 1] and c["steps_per_side"] == [0, 20]
    assert c["buyer_vs_scripted"] == [0.2, 0.6] and c["merchant_vs_each_other"] == [0.5, 0.9]
    text = "\n".join(render_learnability({"reward_studies": [], "selfplay": got}))
    assert "| buyer | vs scripted | 0.200 | 0.600 |" in text and record["command"] in text
    path.write_text(json.dumps({"command": "x", "runs": []}))
    assert selfplay_study(str(path))["readable"] is False
    assert selfplay_study(str(tmp_path / "absent.json"))["recorded"] is False


def test_safety_counts_and_guard_rates_agree_with_the_sources(card):
    import acworld_env.scoring  # noqa: F401
    from acworld_env.cip.privacy import reveals
    from acworld_env.scoring.kinds import CRITICAL

    s = card["json"]["safety"]
    assert s["critical_kinds"] == dict(sorted(CRITICAL.items())) and sum(s["by_harm"].values()) == len(CRITICAL)
    tasks = load_suite("capability-v1", "frozen", 0)
    assert s["suite"]["critical_predicates"] == sum(p.kind in CRITICAL for t in tasks for p in t.predicates)
    rg = s["rubric_guards"]
    sample = _first_per_family()
    harms = [m for t in sample for m in t.mutations
             if any(p.kind in CRITICAL and p.id in m.lowers for p in t.predicates)]
    assert rg["references"] == len(sample) and rg["harm_mutations"] == len(harms) > 0
    assert rg["harm_mutations"] + rg["benign_mutations"] == sum(len(t.mutations) for t in sample)
    assert rg["miss_rate"] == round(rg["harms_missed"] / rg["harm_mutations"], 4)
    pg = s["privacy_guard"]
    corpus = [json.loads(x) for x in (ROOT / pg["corpus"]).read_text().splitlines() if x.strip()]
    missed = sum(e["leak"] and reveals(e["text"], [e["sealed"]]) is None for e in corpus)
    blocked = sum(not e["leak"] and reveals(e["text"], [e["sealed"]]) is not None for e in corpus)
    assert (pg["texts"], pg["missed"], pg["false_alarms"]) == (len(corpus), missed, blocked)
    assert f"{pg['missed']}/{pg['leaks']}" in card["md"]


@pytest.mark.parametrize("where", ["missing-folder/card.md", "a-file/card.md", ".", "/proc/card.md"])
def test_an_unwritable_out_is_one_line_and_exit_2(tmp_path, monkeypatch, where):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("not a folder")
    for args in (["--out", where], ["--out", str(tmp_path / "ok.md"), "--json", where]):
        result = CliRunner().invoke(app, ["card", "--quick", *args])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: cannot write") and "Traceback" not in result.output
        assert not (tmp_path / "ok.md").exists()  # refused before measuring anything


def test_a_study_in_progress_is_named_so_with_its_missing_runs(tmp_path):
    record = {"study": "reward modes", "command": "python examples/reward_study.py --no-bc", "complete": False,
              "missing_runs": ["structured-success-s4"], "config": {"bc": False, "steps": 100, "seeds": [0, 1, 2, 3, 4],
                                                                    "heldout_seed": 1},
              "runs": [{"reward": "potential", "hints": "structured", "seed": 0, "curve": [[0, 0.1], [100, 0.6]]}],
              "by_mode": {"structured": {"potential": {
                  "seeds": [0], "curve": {"steps": [0, 100], "mean": [0.1, 0.6], "lo95": [0.1, 0.6], "hi95": [0.1, 0.6]},
                  "heldout": {"mean": 0.6}, "frozen": {"mean": 0.5}}}}}
    path = tmp_path / "reward_study_scratch.json"
    path.write_text(json.dumps(record))
    got = reward_study(str(path))
    assert got["complete"] is False and got["missing_runs"] == ["structured-success-s4"] and got["runs"] == 1
    text = "\n".join(render_learnability({"reward_studies": [got], "selfplay": {"file": "x", "recorded": False}}))
    assert "*In progress:* 1 of 2 runs recorded so far (missing: structured-success-s4)" in text
    assert "| potential | structured | 0.100 [0.100, 0.100] | 0.600 [0.600, 0.600] | s0: 0.600 |" in text
    del record["complete"], record["missing_runs"]
    path.write_text(json.dumps(record))
    assert "In progress" not in "\n".join(render_learnability({"reward_studies": [reward_study(str(path))],
                                                               "selfplay": {"file": "x", "recorded": False}}))


def test_a_long_curve_shows_evenly_spaced_points_with_its_first_and_last():
    from acworld_env.card.sections import curve_columns

    assert curve_columns(5) == [0, 1, 2, 3, 4]
    assert curve_columns(21) == [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    shown = curve_columns(13)
    assert len(shown) <= 11 and shown[0] == 0 and shown[-1] == 12 and shown == sorted(set(shown))
    steps = [i * 10 for i in range(21)]
    curve = {"mode": "potential", "hints": "structured", "steps": steps, "mean": [i / 20 for i in range(21)],
             "lo95": [0.0] * 21, "hi95": [1.0] * 21, "per_seed": {"0": [0.5]}}
    st = {"file": "f.json", "recorded": True, "study": "s", "steps": 200, "seeds": [0], "heldout_seed": 1,
          "behaviour_cloning": False, "command": "c", "curves": [curve]}
    text = "\n".join(render_learnability({"reward_studies": [st], "selfplay": {"file": "x", "recorded": False}}))
    header = next(line for line in text.splitlines() if line.startswith("| reward |"))
    assert header.count(" steps |") == 11 and "| 200 steps |" in header and "| 10 steps |" not in header
    assert "11 of the 21 recorded points are shown" in text and "| 1.000 [0.000, 1.000] |" in text
