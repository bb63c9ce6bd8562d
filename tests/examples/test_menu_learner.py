"""examples/menu_learner.py: demonstrations, cloning then MaskablePPO, and evaluation through ``--policy sb3:``."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")


def _load(name: str):
    sys.path.insert(0, str(ROOT / "examples"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses resolve their annotations through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ml(tmp_path_factory):
    import os

    old = os.environ.get("ACWORLD_DEMO_CACHE")
    os.environ["ACWORLD_DEMO_CACHE"] = str(tmp_path_factory.mktemp("demos"))
    yield _load("menu_learner")
    if old is None:
        os.environ.pop("ACWORLD_DEMO_CACHE")
    else:
        os.environ["ACWORLD_DEMO_CACHE"] = old


FAMILIES = ["T2", "T9"]


def test_demonstrations_are_the_reference_slots_of_generated_tasks_and_are_cached(ml):
    demos = ml.demonstrations(hints="structured", featuriser="bow", families=FAMILIES, seeds=[2])
    assert demos.tasks == 40 and len(demos) > demos.tasks and set(demos.families) == {"T2_grounding",
                                                                                         "T9_adversarial"}
    assert demos.masks[np.arange(len(demos)), demos.actions].all()  # every demonstrated slot was open
    assert demos.obs.shape[1] == ml.n_features_of("bow")
    again = ml.demonstrations(hints="structured", featuriser="bow", families=FAMILIES, seeds=[2])
    assert np.array_equal(again.obs, demos.obs) and np.array_equal(again.actions, demos.actions)
    assert len(list(Path(ml.cache_dir()).glob("demos-*.npz"))) == 1
    first = np.r_[True, demos.episode[1:] != demos.episode[:-1]]
    returns = demos.returns("potential", gamma=1.0)
    assert np.allclose(returns[first], demos.final[first], atol=1e-5)  # the potential rewards sum to the score
    assert set(np.unique(demos.returns("success", gamma=1.0))) <= {0.0, 1.0}


def test_training_is_deterministic_calls_back_and_cloning_is_reported(ml):
    calls: list[int] = []
    kwargs = {"reward": "potential", "seed": 3, "hints": "structured", "featuriser": "bow", "steps": 256,
              "families": FAMILIES, "train_seeds": [2], "callback_every": 128}
    model = ml.train(**kwargs, callback=lambda step, m: calls.append(step))
    assert calls == [0, 128, 256] and model.num_timesteps == 256
    assert model._n_updates > 0  # the last rollout was trained on, not cut off
    assert model.bc_report["epochs"] >= ml.BC_EPOCHS and model.bc_report["train_accuracy"] > 0.5
    again = ml.train(**kwargs)
    for (name, a), b in zip(model.policy.state_dict().items(), again.policy.state_dict().values(), strict=True):
        assert np.array_equal(a.numpy(), b.numpy()), name


def test_evaluate_agrees_with_acworld_eval_of_the_saved_policy(ml, tmp_path):
    from acworld_env.cli import app

    model = ml.train(reward="potential", seed=0, hints="structured", featuriser="bow", steps=0, families=FAMILIES,
                     train_seeds=[2])
    path = ml.save(model, tmp_path / "bc.zip", hints="structured", featuriser="bow")
    side = json.loads(path.with_name("bc.zip.json").read_text())
    assert side["featuriser"] == "bow" and side["hints"] == "structured" and side["net_arch"] == list(ml.NET_ARCH)
    mine = ml.evaluate(path, split="generated", seed=5, hints="structured", featuriser="bow", families=["T2"])
    in_memory = ml.evaluate(model, split="generated", seed=5, hints="structured", featuriser="bow", families=["T2"])
    assert mine == in_memory and set(mine) == {"T2_grounding", "all"} and mine["all"] > 0.3
    out = tmp_path / "eval"
    result = CliRunner().invoke(app, ["eval", "capability-v1", "--policy", f"sb3:{path}", "--split", "generated",
                                      "--seed", "5", "--tasks", "*/T2/*", "--out", str(out), "--quiet"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["by_family"]["T2_grounding"] == pytest.approx(mine["T2_grounding"], abs=1e-3)


def test_bad_settings_are_one_line_errors(ml):
    with pytest.raises(SystemExit, match="hints must be off or structured"):
        ml.demonstrations(hints="full", featuriser="bow", seeds=[2])
    with pytest.raises(SystemExit, match="unknown featuriser 'tfidf'"):
        ml.train(hints="off", featuriser="tfidf", steps=0)
    with pytest.raises(SystemExit, match="split must be frozen or generated"):
        ml.suite_tasks("train", 0)


def test_the_command_line_trains_saves_and_scores(ml, tmp_path):
    bc_ppo = _load("bc_ppo")
    out = tmp_path / "p.zip"
    record = bc_ppo.main(["--hints", "off", "--families", "T9", "--train-seeds", "2", "--steps", "64",
                          "--eval-seed", "5", "--out", str(out)])
    assert out.is_file() and out.with_name("p.zip.json").is_file()
    saved = json.loads(out.with_name("p.zip.scores.json").read_text())
    assert saved == json.loads(json.dumps(record)) and set(saved["heldout"]) == {"T9_adversarial", "all"}
    assert saved["frozen"]["all"] == ml.evaluate(out, split="frozen", hints="off", featuriser="bow",
                                                 families=["T9"])["all"]
    with pytest.raises(SystemExit):
        bc_ppo.main(["--hints", "off", "--train-seeds", "1", "2", "--out", str(tmp_path / "q.zip")])


def test_ambiguous_marks_one_input_demonstrated_with_two_slots(ml):
    obs = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    masks = np.ones((4, 3), dtype=bool)
    demos = ml.Demos(obs=obs, masks=masks, actions=np.array([0, 2, 0, 0]), episode=np.arange(4, dtype=np.int32),
                     score_before=np.zeros(4, np.float32), final=np.ones(4, np.float32),
                     solved=np.ones(4, bool), families=np.array(["T1_discovery"] * 4))
    assert ml.ambiguous(demos).tolist() == [True, True, True, False]


def test_diagnose_names_a_measured_reason_per_family(ml):
    train = ml.demonstrations(hints="off", featuriser="bow", families=FAMILIES, seeds=[2])
    model = ml.train(reward="potential", seed=0, hints="off", featuriser="bow", steps=0, families=FAMILIES,
                     train_seeds=[2], demos=train)
    rows = ml.diagnose(model, hints="off", featuriser="bow", train=train, families=FAMILIES, scores={"T2_grounding": 0.5})
    assert set(rows) == {"T2_grounding", "T9_adversarial"}
    for row in rows.values():
        assert row["why"] in ml.WHY and 0 <= row["menu_covered"] <= 1 and 0 <= row["heldout_accuracy"] <= 1
        assert 0 <= row["train_accuracy"] <= 1 and 0 <= row["ambiguous"] <= 1
    assert rows["T2_grounding"]["score"] == 0.5
    for row in rows.values():  # every reference is expressible now, so the menu is never the measured reason
        assert row["menu_covered"] == 1 and row["why"] != "menu lacks the action"
        expected = (ml.WHY[1] if row["ambiguous"] > 0.05 or row["train_accuracy"] < 0.8
                    else ml.WHY[2] if row["heldout_accuracy"] < 0.8 else ml.WHY[3])
        assert row["why"] == expected
