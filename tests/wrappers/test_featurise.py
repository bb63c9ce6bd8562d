"""The ``bow`` featuriser: what it reads, and that the env and a trained policy compute the same vector."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import acworld_env  # noqa: F401  (registers the Gymnasium ids)
from acworld_env.envs.candidates import N_READ
from acworld_env.envs.known import Known
from acworld_env.eval.rollout import run_episode
from acworld_env.tasks.suites import load_suite
from acworld_env.wrappers.featurise import (
    LISTING_FEATURES,
    REQUEST_BUCKETS,
    Featuriser,
    check_featuriser,
    hashed_bits,
)
from acworld_env.wrappers.menu import N_ACTIONS, N_FEATURES, GymActionMenu, n_features
from acworld_env.wrappers.trained import (
    PolicyFileError,
    TrainedMenuPolicy,
    sidecar_path,
    write_sidecar,
)

MATCH, BEST, WITHIN, CHEAPEST, IN_STOCK, RATING_OK, FITS = 1, 2, 3, 5, 6, 8, 13
"""Column indices of a listing's row (see the module docstring of acworld_env.wrappers.featurise)."""


def _listing_block(vector: np.ndarray) -> np.ndarray:
    start = N_FEATURES + REQUEST_BUCKETS + 64
    return vector[start:start + N_READ * LISTING_FEATURES].reshape(N_READ, LISTING_FEATURES)


def test_an_unknown_featuriser_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown featuriser 'tfidf'; known: None, 'bow'"):
        check_featuriser("tfidf")
    inner = gymnasium.make("acworld/capability-v1", disable_env_checker=True)
    with pytest.raises(ValueError, match="unknown featuriser"):
        GymActionMenu(inner, featuriser="tfidf")


def test_hashed_words_are_the_same_in_every_process():
    bits = hashed_bits(["coffee", "1kg"], REQUEST_BUCKETS)
    assert bits.sum() == 2 and bits.dtype == np.float32
    assert np.flatnonzero(bits).tolist() == sorted({1401235891 % 128, 2402750498 % 128})  # CRC-32, not hash()


def _search_page(items: list[dict]) -> dict:
    return {"actor": "buyer_0", "role": "buyer", "step": 1, "max_steps": 20,
            "request": "Find me whole-bean coffee in the 1kg size, rated at least 4 stars, at most $53.",
            "mandate": {"budget": 5300}, "inbox": [], "balance": 100000,
            "last_result": {"kind": "search_listings", "accepted": True, "code": "ok", "message": "",
                            "result": {"items": items}}}


def _item(lid: str, title: str, price: int, rating: float, quantity: int) -> dict:
    return {"listing_id": lid, "merchant_id": "m001", "title": title, "category": "Coffee", "price": price,
            "in_stock": quantity > 0, "quantity": quantity, "rating": rating, "options": {"size": "1kg"}}


def test_each_listing_row_says_how_well_it_matches_the_request():
    raw = _search_page([
        _item("L-tea", "Green Tea Leaves 1kg", 2000, 4.8, 5),
        _item("L-fits", "Whole Bean Coffee 1kg", 4400, 4.3, 3),
        _item("L-dear", "Whole Bean Coffee 1kg Reserve", 9900, 4.9, 3),
        _item("L-poor", "Whole Bean Coffee 1kg Budget", 3000, 3.1, 0),
    ])
    known = Known(actor="buyer_0", role="buyer")
    known.feed(raw)
    known.sync()
    featuriser = Featuriser("bow")
    vector = np.concatenate([np.zeros(N_FEATURES, np.float32), featuriser(raw, known)])
    assert vector.shape == (n_features("bow"),)
    rows = dict(zip(list(known["listings"]), _listing_block(vector), strict=False))
    assert rows["L-fits"][MATCH] > rows["L-tea"][MATCH] and rows["L-fits"][BEST] == 1
    assert rows["L-fits"][FITS] == 1
    assert rows["L-dear"][WITHIN] == 0 and rows["L-dear"][FITS] == 0       # over the $53 budget
    assert rows["L-poor"][IN_STOCK] == 0 and rows["L-poor"][RATING_OK] == 0  # sold out, 3.1 < 4 stars
    assert rows["L-tea"][CHEAPEST] == 1 and rows["L-tea"][FITS] == 0
    assert featuriser(raw, known).tolist() == featuriser(raw, known).tolist()  # absorbing twice changes nothing


@pytest.fixture()
def random_policy(tmp_path: Path):
    """A policy file with random weights over the bow features (its greedy slots vary with the input)."""
    def make(hints: str) -> Path:
        rng = np.random.default_rng(7)
        n_in = N_ACTIONS + n_features("bow")
        arrays = {"mlp_extractor.policy_net.0.weight": rng.normal(0, 0.3, (16, n_in)).astype(np.float32),
                  "mlp_extractor.policy_net.0.bias": np.zeros(16, np.float32),
                  "action_net.weight": rng.normal(0, 1.0, (N_ACTIONS, 16)).astype(np.float32),
                  "action_net.bias": np.zeros(N_ACTIONS, np.float32)}
        path = tmp_path / f"random-{hints}.npz"
        np.savez(path, **arrays)
        write_sidecar(path, hints=hints, featuriser="bow", net_arch=[16])
        return path
    return make


@pytest.mark.parametrize("hints", ["structured", "off"])
def test_the_env_and_a_trained_policy_compute_the_same_vector(random_policy, hints):
    path = random_policy(hints)
    tasks = load_suite("capability-v1", "generated", 4)[::20]  # one task of each family
    policy = TrainedMenuPolicy(path)
    seen: list[np.ndarray] = []
    vector = policy.vector
    policy.vector = lambda observation: seen.append(vector(observation)) or seen[-1]  # type: ignore[method-assign]
    env = GymActionMenu(gymnasium.make("acworld/capability-v1", tasks=tasks, hints=hints, disable_env_checker=True),
                        featuriser="bow")
    steps = 0
    for task in tasks:
        seen.clear()
        played = run_episode(task, policy, seed=0).score.score
        obs, _ = env.reset(seed=0, options={"task_id": task.task_id})
        done, i = False, 0
        while not done:
            assert env.observation_space.contains(obs)
            assert np.array_equal(obs["observation"], seen[i]), f"{task.task_id} step {i}"
            slot = int(np.argmax(policy.logits(obs["observation"], obs["action_mask"])))
            obs, _, term, trunc, _ = env.step(slot)
            done, i = term or trunc, i + 1
        assert i == len(seen) and env.unwrapped.aec.score.score == pytest.approx(played)
        steps += i
    assert steps > len(tasks)


def test_a_sidecar_naming_an_unknown_featuriser_or_the_wrong_width_is_refused(random_policy):
    path = random_policy("off")
    side = sidecar_path(path)
    meta = json.loads(side.read_text())
    side.write_text(json.dumps({**meta, "featuriser": "tfidf"}))
    with pytest.raises(PolicyFileError, match="featuriser 'tfidf' is not known"):
        TrainedMenuPolicy(path)
    side.write_text(json.dumps({**meta, "n_features": N_FEATURES}))
    with pytest.raises(PolicyFileError, match="do not match this menu with featuriser 'bow'"):
        TrainedMenuPolicy(path)
