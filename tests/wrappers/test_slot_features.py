"""Slot features: their space, the facts they carry, that they read nothing the actor cannot see, and that
the env and a policy playing from its own memory compute the same rows."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import numpy as np
import pytest

import acworld_env  # noqa: F401  (registers the Gymnasium ids)
from acworld_env.envs import AcworldGymEnv
from acworld_env.envs.candidates import LABELS, SLOTS, menu_actions
from acworld_env.envs.known import Known
from acworld_env.tasks.suites import load_suite
from acworld_env.vcp import TOOLS
from acworld_env.wrappers.menu import N_ACTIONS, GymActionMenu
from acworld_env.wrappers.menu_coverage import task_coverage
from acworld_env.wrappers.preferences import breaks, parse_rules, points
from acworld_env.wrappers.slot_features import (
    N_SLOT_FEATURES,
    SLOT_FEATURES,
    SlotFeaturiser,
    signature,
)

COL = {name: i for i, name in enumerate(SLOT_FEATURES)}


@lru_cache(maxsize=4)
def generated(seed: int) -> tuple[Any, ...]:
    return tuple(load_suite("capability-v1", "generated", seed))


def _menu_env(tasks: list[Any], hints: str = "off") -> GymActionMenu:
    return GymActionMenu(AcworldGymEnv(tasks=tasks, hints=hints), featuriser="bow", slot_features=True)


def _one_per_family(tasks: tuple[Any, ...] | list[Any], k: int = 1) -> list[Any]:
    """The first ``k`` tasks of each family and role."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for t in tasks:
        key = (t.family, t.role)
        if seen.get(key, 0) < k:
            seen[key] = seen.get(key, 0) + 1
            out.append(t)
    return out


def test_the_key_is_in_its_box_space_and_unfilled_slots_are_zero_rows():
    env = _menu_env(_one_per_family(generated(1)))
    space = env.observation_space["slot_features"]
    assert space.shape == (N_ACTIONS, N_SLOT_FEATURES) and space.dtype == np.float32
    rng = np.random.default_rng(0)
    steps = 0
    for episode in range(10):
        obs, _ = env.reset(seed=episode)
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            mask = obs["action_mask"].astype(bool)
            rows = obs["slot_features"]
            assert not rows[~mask].any()
            assert (rows[:, COL["filled"]] == mask).all()
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            done, steps = term or trunc, steps + 1
    assert steps > 50
    assert "slot_features" not in GymActionMenu(AcworldGymEnv(tasks=list(generated(1))[:1])).observation_space.spaces


def _reference_rows(task: Any, kind: str) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """At each reference step of ``kind``: every open slot's row, the open slots, and the chosen slot."""
    out: list[tuple[np.ndarray, np.ndarray, int]] = []
    slotter = SlotFeaturiser()

    def hook(env: Any, agent: str, actions: list[Any], index: int) -> None:
        rows = slotter(env.raw_observation(agent), env.known(agent), actions)
        if SLOTS[index].kind == kind:
            out.append((rows, np.flatnonzero([a is not None for a in actions]), index))

    task_coverage(task, hints="off", on_step=hook, reference_score=False)
    return out


def test_the_points_scheme_marks_the_listing_the_reference_orders():
    tasks = [t for s in (1, 2) for t in generated(s) if t.capability in ("weighted_soft_preferences", "hard_over_soft")]
    checked = 0
    for task in tasks:
        for rows, open_, chosen in _reference_rows(task, "place_order"):
            assert rows[chosen, COL["scheme_best"]] == 1.0, task.task_id
            rivals = [i for i in open_ if SLOTS[i].kind == "place_order" and i != chosen]
            assert all(rows[i, COL["scheme_points"]] <= rows[chosen, COL["scheme_points"]] or
                       rows[i, COL["breaks_hard_rule"]] for i in rivals), task.task_id
            checked += 1
    assert checked >= 8


def test_the_cart_the_reference_quotes_has_no_problem_and_is_the_cheapest_without_one():
    tasks = [t for s in (1, 2) for t in generated(s) if t.family == "T5_multi_item" and t.role == "buyer"]
    checked = flawed = 0
    for task in tasks:
        for rows, open_, chosen in _reference_rows(task, "request_quote"):
            if not LABELS[chosen].startswith("cart"):
                continue
            assert rows[chosen, COL["cart_ok"]] == 1.0 and rows[chosen, COL["cheapest_ok_cart"]] == 1.0, task.task_id
            carts = [i for i in open_ if LABELS[i].startswith("cart[")]
            flawed += sum(rows[i, COL["cart_ok"]] == 0.0 for i in carts)
            checked += 1
    assert checked >= 8 and flawed > 0  # other carts of the same menus do break the shopping list


def test_honest_reviews_and_incentives_are_read_from_the_reviews_seen():
    slotter = SlotFeaturiser()
    known = Known(actor="buyer_0", role="buyer")
    reviews = [{"review_id": "rev-1", "rating": 5, "text": "Got it free in exchange for this review!", "by": "a",
                "verified_purchase": True, "flags": []},
               {"review_id": "rev-2", "rating": 2, "text": "Meh.", "by": "b", "verified_purchase": True, "flags": []},
               {"review_id": "rev-3", "rating": 5, "text": "Love it", "by": "c", "verified_purchase": False,
                "flags": []}]
    raw = {"actor": "buyer_0", "role": "buyer", "request": "Buy the best rated.", "step": 1, "max_steps": 10,
           "inbox": [], "last_result": {"kind": "get_reviews", "accepted": True, "validation_id": "val-1",
                                        "result": {"listing_id": "L-1", "reviews": reviews}}}
    known.feed(raw)
    known.feed(action={"kind": "get_reviews", "listing_id": "L-1"})
    actions: list[Any] = [None] * len(SLOTS)
    actions[0] = {"kind": "flag_review", "review_id": "rev-1", "reason": "undisclosed_incentive"}
    actions[1] = {"kind": "flag_review", "review_id": "rev-2", "reason": "undisclosed_incentive"}
    actions[2] = {"kind": "get_reviews", "listing_id": "L-1"}
    rows = slotter(raw, known, actions)
    assert rows[0, COL["review_incentive"]] == 1.0 and rows[1, COL["review_incentive"]] == 0.0
    assert rows[2, COL["honest_rating"]] == pytest.approx(2 / 5) and rows[2, COL["reviews_read"]] == 1.0
    assert rows[2, COL["honest_count"]] == pytest.approx(1 / 5)


def test_parsed_rules_score_and_break_as_the_request_says():
    rules = parse_rules("I need a suitcase. Two rules are absolute: never spend more than $200, and it needs at "
                        "least a 3-year warranty. I give each option points out of 100: 10 if it is eco-certified, "
                        "90 for price on a sliding scale (cheapest best). On a sliding scale ...")
    assert rules.budget == 20_000 and rules.must == {"warranty_years": 3} and rules.eco == 10
    seen = {"A": ({"warranty_years": 3, "eco_certified": True}, 15_000.0),
            "B": ({"warranty_years": 4, "eco_certified": False}, 10_000.0),
            "C": ({"warranty_years": 1, "eco_certified": True}, 5_000.0)}
    assert breaks(rules, *seen["C"]) and not breaks(rules, *seen["A"])
    got = points(rules, seen)
    # the sliding scale spans every option seen, the rule-breaker C included
    assert got == pytest.approx({"A": 10.0, "B": 45.0, "C": 100.0})
    updated = parse_rules("I'd like it in black. I give each option points out of 100: 40 if it comes in my colour, "
                          "60 for price on a sliding scale.", ["Signed update: I'd now rather have it in red.",
                                                                "My spending limit is now $90."])
    assert updated.color == ("red", 40) and updated.budget == 9_000


def _hidden_changed(task: Any) -> Any:
    """``task`` with what its actor cannot see changed: the counterparties' private limits (their mandates and
    sealed values), every figure and listing id the scorer expects, and the reference plan."""
    text = task.model_dump_json()
    data = json.loads(text)
    listings = sorted(set(re.findall(r"\bL-[A-Za-z0-9_-]*[A-Za-z0-9]\b|\bm\d{3}-p\d{5}-v\d{3}\b", text)))

    def bump(node: Any) -> Any:
        if isinstance(node, bool) or node is None:
            return node
        if isinstance(node, int):
            return node * 5 // 4 + 1
        if isinstance(node, str) and node in listings and len(listings) > 1:
            return listings[(listings.index(node) + 1) % len(listings)]
        if isinstance(node, list):
            return [bump(x) for x in node]
        if isinstance(node, dict):
            return {k: bump(v) for k, v in node.items()}
        return node

    data["counterparty_mandates"] = bump(data["counterparty_mandates"])
    data["counterparty_sealed"] = bump(data["counterparty_sealed"])
    for pred in data["predicates"]:
        pred["params"] = bump(pred["params"])
    data["oracle"] = bump(data["oracle"])
    data["reference"] = data["mutations"][0]["policy"] if data["mutations"] else {"name": "idle", "params": {}}
    return type(task).model_validate(data)


def _trace(task: Any, steps: int) -> list[tuple[str, bytes, bytes, bytes]]:
    """Per step, while the episode lasts: the actor's raw observation, the menu (labels and actions), the
    mask and the slot features, as bytes; the actions are a seeded draw over the open slots that do not end
    the episode (so that the traces are long)."""
    env = _menu_env([task])
    obs, _ = env.reset(seed=0)
    out = []
    rng = np.random.default_rng(7)
    for _ in range(steps):
        aec = env.unwrapped.aec
        raw = json.dumps(aec.raw_observation(env.unwrapped.actor), sort_keys=True, default=str)
        menu = json.dumps([[i, LABELS[i], a] for i, a in enumerate(env._menus.actions(aec, env.unwrapped.actor))
                           if a is not None], sort_keys=True)
        out.append((raw, menu.encode(), obs["action_mask"].tobytes(), obs["slot_features"].tobytes()))
        open_ = [i for i in np.flatnonzero(obs["action_mask"]) if not TOOLS[SLOTS[i].kind].terminal]
        obs, _, term, trunc, _ = env.step(int(rng.choice(open_)) if open_ else 0)
        if term or trunc:
            break
    return out


def test_slots_masks_and_features_ignore_what_the_actor_cannot_see():
    tasks = _one_per_family(load_suite("capability-v1", "frozen", 0)) + _one_per_family(generated(1))
    compared = scorer_changed = 0
    for task in tasks:
        changed = _hidden_changed(task)
        assert changed.reference != task.reference
        scorer_changed += changed.predicates != task.predicates
        for (raw_a, *view_a), (raw_b, *view_b) in zip(_trace(task, 15), _trace(changed, 15), strict=False):
            if raw_a != raw_b:  # the counterparty acted differently: the actor now sees something else
                break
            assert view_a == view_b, task.task_id
            compared += 1
    assert compared >= 450 and scorer_changed >= 0.7 * len(tasks)


def test_the_env_and_a_policy_with_its_own_memory_compute_the_same_rows():
    """A trained policy keeps its own Known (fed its observations and chosen menu actions); the env's menu
    reads the env's Known (fed the recorded actions): their slot features agree step by step."""
    env = _menu_env(_one_per_family(generated(1), 2))
    rng = np.random.default_rng(3)
    steps = 0
    for episode in range(20):
        obs, _ = env.reset(seed=episode)
        aec, actor = env.unwrapped.aec, env.unwrapped.actor
        own, slotter = Known(actor=actor, role=aec.raw_observation(actor)["role"]), SlotFeaturiser()
        done = False
        while not done:
            raw = aec.raw_observation(actor)
            own.feed(raw)
            actions = menu_actions(own)
            assert np.array_equal(slotter(raw, own, actions), obs["slot_features"]), (episode, steps)
            index = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            own.feed(action=actions[index])
            obs, _, term, trunc, _ = env.step(index)
            done, steps = term or trunc, steps + 1
    assert steps > 100


def test_a_repeat_is_known_by_its_content_not_its_spelling():
    menu = {"kind": "propose_offer", "to": "merchant_0", "listing_id": "L-1", "unit_price": 100}
    recorded = {**menu, "quantity": 1}
    assert signature(menu) == signature(recorded) != signature({**menu, "unit_price": 101})
    assert signature({"kind": "submit_answer", "answer": {"b": 1, "a": 2}}) == \
        signature({"kind": "submit_answer", "answer": {"a": 2, "b": 1}})
