"""Slot-scorer policy files: they play through the evaluation runner, greedily and deterministically, and
files made for other slot features or with wrong shapes are refused with one clear line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from acworld_env.eval.rollout import run_episode
from acworld_env.tasks.suites import load_suite
from acworld_env.wrappers.menu import n_features
from acworld_env.wrappers.slot_scorer import (
    ARCHITECTURE,
    N_TEMPLATES,
    TEMPLATES,
    scorer_logits,
    scorer_shapes,
    slot_signature,
)
from acworld_env.wrappers.trained import (
    PolicyFileError,
    TrainedMenuPolicy,
    sidecar_path,
    write_sidecar,
)

HIDDEN = 16


def _write(path: Path, *, seed: int = 0, slots: str | None = None, drop: str | None = None) -> Path:
    rng = np.random.default_rng(seed)
    weights = {k: rng.normal(0, 0.5, shape).astype(np.float32)
               for k, shape in scorer_shapes(n_features("bow"), HIDDEN).items() if k != drop}
    with open(path, "wb") as fh:
        np.savez(fh, **weights)
    write_sidecar(path, hints="off", featuriser="bow", net_arch=[HIDDEN], algorithm="slot-scorer PPO",
                  extra={"architecture": ARCHITECTURE, "slots": slots or slot_signature()})
    return path


def test_a_scorer_plays_greedily_and_the_same_twice(tmp_path):
    path = _write(tmp_path / "scorer.npz")
    tasks = load_suite("capability-v1", "frozen", 0)[::40]
    first = [run_episode(t, TrainedMenuPolicy(path), seed=0).score.score for t in tasks]
    again = [run_episode(t, TrainedMenuPolicy(path), seed=0).score.score for t in tasks]
    assert first == again and len(first) == 5


def test_the_numpy_scorer_is_the_formula_of_its_docstring():
    rng = np.random.default_rng(1)
    w = {k: rng.normal(size=s).astype(np.float32) for k, s in scorer_shapes(5, 3).items()}
    x, slots = rng.normal(size=5).astype(np.float32), np.array([0, 7, 30])
    rows = rng.random((3, w["slot.weight"].shape[1])).astype(np.float32)
    mask = np.zeros(len(TEMPLATES), dtype=np.float32)
    mask[slots] = 1.0
    o = np.tanh(w["obs.weight"] @ np.concatenate([mask, x]) + w["obs.bias"])
    want = [w["score.weight"] @ np.tanh(w["ctx.weight"] @ o + w["hidden.bias"] + w["slot.weight"] @ r
                                        + w["template.weight"][TEMPLATES[s]]) + w["template_bias.weight"][TEMPLATES[s]]
            + w["index.weight"][s] @ o for r, s in zip(rows, slots, strict=True)]
    assert np.allclose(scorer_logits(w, x, rows, slots), want, atol=1e-5)
    assert TEMPLATES.max() == N_TEMPLATES - 1


def test_files_for_other_slot_features_or_with_wrong_weights_are_refused(tmp_path):
    with pytest.raises(PolicyFileError, match="trained for other slot features"):
        TrainedMenuPolicy(_write(tmp_path / "old.npz", slots="0123456789abcdef"))
    with pytest.raises(PolicyFileError, match="template.weight should be"):
        TrainedMenuPolicy(_write(tmp_path / "short.npz", drop="template.weight"))
    path = _write(tmp_path / "edited.npz")
    side = sidecar_path(path)
    meta = json.loads(side.read_text())
    side.write_text(json.dumps({**meta, "architecture": "transformer/9"}))
    with pytest.raises(PolicyFileError, match="architecture 'transformer/9' is not known"):
        TrainedMenuPolicy(path)
    side.write_text(json.dumps(meta))
    path.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(PolicyFileError, match="SHA-256"):
        TrainedMenuPolicy(path)
