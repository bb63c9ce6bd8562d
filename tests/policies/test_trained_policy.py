"""``--policy sb3:PATH``: a trained menu policy evaluated like any model, loaded without unpickling."""

from __future__ import annotations

import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from acworld_env.cli import app
from acworld_env.wrappers.menu import features
from acworld_env.wrappers.trained import (
    PolicyFileError,
    TrainedMenuPolicy,
    export_npz,
    write_sidecar,
)

pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")


def cli(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def _menu_env(tasks):
    import gymnasium

    import acworld_env  # noqa: F401
    from acworld_env.wrappers.menu import GymActionMenu

    return GymActionMenu(gymnasium.make("acworld/capability-v1", tasks=tasks, disable_env_checker=True))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A MaskablePPO policy trained for a few hundred steps on generated T1 tasks, saved with its sidecar."""
    from acworld_env.tasks.suites import load_suite

    tasks = [t for t in load_suite("capability-v1", "generated", 3) if t.family == "T1_discovery"][:4]
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", _menu_env(tasks), seed=0, n_steps=64, batch_size=32,
                                    verbose=0)
    model.learn(128)
    folder = tmp_path_factory.mktemp("policy")
    path = folder / "t1.zip"
    model.save(path)
    write_sidecar(path)
    return model, path, tasks


def test_the_numpy_policy_takes_the_same_greedy_slots_as_sb3(trained):
    model, path, tasks = trained
    mine = TrainedMenuPolicy(path)
    npz = path.with_suffix(".npz")
    export_npz(model.policy.state_dict(), npz)
    write_sidecar(npz)
    plain = TrainedMenuPolicy(npz)
    env = _menu_env(tasks)
    steps = 0
    for task in tasks:
        obs, _ = env.reset(seed=0, options={"task_id": task.task_id})
        mine.reset(0)
        done = False
        while not done:
            raw = env.unwrapped.aec.raw_observation(task.actor)
            want, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            mine.known = env.unwrapped.aec.known(task.actor)  # the env's own memory, as the menu sees it
            f, m = features(raw, mine.known), obs["action_mask"]
            assert np.array_equal(f, obs["observation"])
            assert int(np.argmax(mine.logits(f, m))) == int(want) == int(np.argmax(plain.logits(f, m)))
            obs, _, term, trunc, _ = env.step(int(want))
            done = term or trunc
            steps += 1
    assert steps >= len(tasks)


def test_eval_plays_a_trained_policy_through_the_runner_and_its_runs_verify(trained, tmp_path):
    _, path, _ = trained
    out = tmp_path / "eval"
    result = cli("eval", "capability-v1", "--policy", f"sb3:{path}", "--tasks", "*/T1/*", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scored"] == summary["planned"] == 20 and summary["policy"] == f"sb3:{path}"
    assert cli("verify", out, "--expect", summary["root_digest"]).exit_code == 0
    again = tmp_path / "again"
    cli("eval", "capability-v1", "--policy", f"sb3:{path}", "--tasks", "*/T1/*", "--out", again, "--quiet")
    assert json.loads((again / "summary.json").read_text())["root_digest"] == summary["root_digest"]  # deterministic


class _Payload:
    def __reduce__(self):
        import os

        return (os.system, (f"touch {MARKER}",))


MARKER = Path("/tmp/acworld-hostile-policy-ran")


def test_a_hostile_policy_file_is_refused_without_running_its_code(trained, tmp_path):
    _, path, _ = trained
    MARKER.unlink(missing_ok=True)
    hostile = tmp_path / "hostile.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(hostile, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            dst.writestr(item, pickle.dumps(_Payload()) if item.filename == "policy.pth" else data)
    write_sidecar(hostile)
    with pytest.raises(PolicyFileError, match="more than tensors"):
        TrainedMenuPolicy(hostile)
    result = cli("eval", "capability-v1", "--policy", f"sb3:{hostile}", "--tasks", "*/T1/*",
                 "--out", tmp_path / "x", "--quiet")
    assert result.exit_code == 2 and "refused" in result.output
    assert not MARKER.exists()
    evil_npz = tmp_path / "evil.npz"
    np.save(evil_npz.with_suffix(".npy"), np.array([_Payload()], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(evil_npz, "w") as z:
        z.write(evil_npz.with_suffix(".npy"), "action_net.weight.npy")
    write_sidecar(evil_npz)
    with pytest.raises(PolicyFileError):
        TrainedMenuPolicy(evil_npz)
    assert not MARKER.exists()


def test_a_policy_for_another_menu_or_edited_weights_is_refused(trained, tmp_path):
    _, path, _ = trained
    copy = tmp_path / "copy.zip"
    copy.write_bytes(path.read_bytes())
    side = write_sidecar(copy)
    meta = json.loads(side.read_text())
    side.write_text(json.dumps({**meta, "menu": "0" * 16}))
    with pytest.raises(PolicyFileError, match="another action menu"):
        TrainedMenuPolicy(copy)
    side.write_text(json.dumps(meta))
    copy.write_bytes(copy.read_bytes() + b"\0")
    with pytest.raises(PolicyFileError, match="SHA-256"):
        TrainedMenuPolicy(copy)
    side.unlink()
    with pytest.raises(PolicyFileError, match="no sidecar"):
        TrainedMenuPolicy(copy)
