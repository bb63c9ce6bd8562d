"""A World's start: the initial state is checked once per exact image, and every World gets its own copy."""

from __future__ import annotations

import copy

import pytest

from acworld_env.world import World
from acworld_env.world.digest import NonCanonicalValue, state_digest
from acworld_env.world.world import _CHECKED


def _state(balance: object = 100) -> dict:
    return {"actors": {"buyer_0": {"role": "buyer", "balance": balance}}, "listings": {}, "orders": {}}


def test_worlds_from_one_state_share_nothing() -> None:
    initial = _state()
    before = copy.deepcopy(initial)
    a, b = World(initial), World(initial)
    a.state["actors"]["buyer_0"]["balance"] = 1
    a.initial_state["actors"]["buyer_0"]["balance"] = 2
    assert b.state == before and b.initial_state == before and initial == before
    assert World(initial).state_digest() == state_digest(before)


def test_a_float_is_refused_every_time_even_beside_a_checked_twin() -> None:
    World(_state(100))  # the integer twin passes and is remembered
    for _ in range(2):
        with pytest.raises(NonCanonicalValue):
            World(_state(100.0))


def test_types_count_true_is_not_one() -> None:
    World(_state(1))
    w = World(_state(True))
    assert w.state["actors"]["buyer_0"]["balance"] is True


def test_an_object_is_refused_and_nothing_is_remembered() -> None:
    n = len(_CHECKED)
    with pytest.raises(NonCanonicalValue):
        World(_state(object()))
    assert len(_CHECKED) == n


def test_the_memory_is_bounded() -> None:
    for i in range(300):
        World(_state(i))
    assert len(_CHECKED) <= 256
