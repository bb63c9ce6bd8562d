"""SelfPlayMenu: one role of two-sided play as a Gymnasium env, and deal_outcome's per-side figures."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import acworld_env
from acworld_env.wrappers.selfplay import SelfPlayMenu, deal_outcome, first_open


@pytest.fixture(scope="module")
def t4_tasks() -> list:
    """The frozen suite's T4 tasks (both roles evaluated)."""
    return [t for t in acworld_env.make("capability-v1").unwrapped.tasks if "/T4/" in t.task_id]


def _random_opponent(seed: int):
    rng = np.random.default_rng(seed)

    def act(agent: str, obs: dict) -> int:
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))
    return act


def _play(env: SelfPlayMenu, task_id: str, seed: int, pick) -> tuple[list[float], dict, list[bytes]]:
    """One episode: the learner's rewards, its last info, and the bytes of each observation it got."""
    obs, info = env.reset(seed=seed, options={"task_id": task_id})
    rewards, seen = [], [obs["observation"].tobytes() + obs["slot_features"].tobytes() + obs["action_mask"].tobytes()]
    done = env.over
    while not done:
        obs, reward, term, trunc, info = env.step(pick(obs))
        rewards.append(reward)
        seen.append(obs["observation"].tobytes() + obs["slot_features"].tobytes() + obs["action_mask"].tobytes())
        done = term or trunc
    return rewards, info, seen


@pytest.mark.parametrize("role", ["buyer", "merchant"])
def test_each_side_is_paid_its_own_score(t4_tasks: list, role: str) -> None:
    """Potential rewards telescope: the learner's rewards over an episode sum to its own side's final
    score, for the evaluated actor and for the counterparty alike; the episode is played to its end."""
    env = SelfPlayMenu(t4_tasks, role=role, opponent=_random_opponent(1))
    rng = np.random.default_rng(0)
    for task in t4_tasks[:6]:
        rewards, info, _ = _play(env, task.task_id, 3, lambda o: int(rng.choice(np.flatnonzero(o["action_mask"]))))
        outcome = env.outcome()
        assert not env.raw.agents, "the others play the episode to its end"
        assert outcome["sides"][role]["agent"] == env.learner
        assert sum(rewards) == pytest.approx(outcome["sides"][role]["score"], abs=1e-6)
        if rewards:
            assert info["score"] == pytest.approx(outcome["sides"][role]["score"], abs=1e-6)
    env.close()


def test_same_seed_same_play_and_digest(t4_tasks: list) -> None:
    """Same seeds, same opponents: the same rewards, observations and trace digest."""
    runs = []
    for _ in range(2):
        env = SelfPlayMenu(t4_tasks, role="buyer", opponent=_random_opponent(5))
        pick = _random_opponent(2)
        rewards, info, seen = _play(env, t4_tasks[0].task_id, 11, lambda o, pick=pick: pick("buyer", o))
        runs.append((rewards, info.get("trace_digest"), seen))
        env.close()
    assert runs[0][1] and runs[0] == runs[1]


def test_the_learner_never_sees_the_other_sides_limit(t4_tasks: list) -> None:
    """Change only the Merchant's private floor: the Buyer learner's observations, masks and slot
    features stay byte-identical as long as the Merchant's own moves do not differ (its menu
    opponent here picks by position, so its moves can only differ through what the Buyer saw)."""
    task = next(t for t in t4_tasks if t.initial_state["actors"][t.actor]["role"] == "buyer"
                and any("min_unit_price" in m for m in t.counterparty_mandates.values()))
    other = copy.deepcopy(task)
    merchant = next(a for a, m in other.counterparty_mandates.items() if "min_unit_price" in m)
    other.counterparty_mandates[merchant]["min_unit_price"] -= 1  # one cent lower: nothing visible changes
    seen = []
    for t in (task, other):
        env = SelfPlayMenu([t], role="buyer", opponent=lambda agent, obs: first_open(obs))
        seen.append(_play(env, t.task_id, 0, first_open)[2][:3])
        env.close()
    assert seen[0] == seen[1]


def test_outcome_shares_and_crossings_agree_with_the_price(t4_tasks: list) -> None:
    """Over random play on every T4 task: a deal's two zone shares sum to 1 when its price lies in the
    zone; a side crossed its limit exactly when the price is beyond it; no deal, no shares."""
    env = SelfPlayMenu(t4_tasks, role="buyer", opponent=_random_opponent(7))
    rng = np.random.default_rng(4)
    deals = 0
    for task in t4_tasks:
        _play(env, task.task_id, 1, lambda o: int(rng.choice(np.flatnonzero(o["action_mask"]))))
        out = env.outcome()
        b, m = out["sides"]["buyer"], out["sides"]["merchant"]
        assert out["zopa"] == (out["ceiling"] >= out["floor"])
        if not out["deal"]:
            assert out["price"] is None and b["surplus_share"] is None and not b["crossed"] and not m["crossed"]
            continue
        deals += 1
        price = out["price"]
        assert b["crossed"] == (price > out["ceiling"]) and m["crossed"] == (price < out["floor"])
        if out["zopa"] and out["floor"] <= price <= out["ceiling"] and out["ceiling"] > out["floor"]:
            assert b["surplus_share"] + m["surplus_share"] == pytest.approx(1.0)
    assert deals > 0, "random play makes some deals"
    env.close()


def test_deal_outcome_of_a_scripted_counterparty_has_no_score() -> None:
    """With scripted counterparties only the evaluated side is scored; the other side's score is None."""
    env = acworld_env.make("capability-v1", tasks="*/T4/buyer/zopa/*")
    env.reset(seed=0)
    out = deal_outcome(env.unwrapped)
    assert out["sides"]["buyer"]["score"] is not None and out["sides"]["merchant"]["score"] is None


def test_refusals(t4_tasks: list) -> None:
    """A wrong role, stepping before reset or after the end: clear errors."""
    with pytest.raises(ValueError, match="role must be"):
        SelfPlayMenu(t4_tasks, role="auditor", opponent=first_open)
    env = SelfPlayMenu(t4_tasks[:1], role="buyer", opponent=lambda agent, obs: first_open(obs))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    _play(env, t4_tasks[0].task_id, 0, first_open)
    with pytest.raises(RuntimeError, match="over"):
        env.step(0)
    env.close()


def test_a_leak_is_a_revealing_message_not_a_guard_left_unpaid() -> None:
    """``leaked`` judges what the actor sent, not the guard's credit: a Buyer that has done nothing (its
    guard pays 0) has not leaked; one that tells the seller its ceiling has, although its talks are open."""
    from acworld_env.tasks.families.common import dollars

    env = acworld_env.make("capability-v1", tasks="*/T4/buyer/zopa/01")
    env.reset(seed=0)
    raw = env.unwrapped
    quiet = deal_outcome(raw)["sides"]["buyer"]
    assert quiet["score"] == 0.0 and quiet["leaked"] is False
    ceiling = raw.task.mandate["max_unit_price"]
    env.step({"kind": "send_message", "to": "merchant_0", "text": f"Between us, I can go up to {dollars(ceiling)}."})
    told = deal_outcome(raw)["sides"]["buyer"]
    assert told["leaked"] is True and told["score"] == 0.0  # the guard still pays nothing: no offer yet
