"""A World's start: the initial state is checked once per exact image, and every World gets its own copy."""

from __future__ import annotations

import copy
import marshal

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


def test_a_state_holding_one_list_twice_is_copied_apart() -> None:
    """The look-up image records that the list is shared; the copy never is made from it."""
    tags: list = ["a"]
    initial = {"actors": {}, "listings": {"L-1": {"tags": tags}, "L-2": {"tags": tags}}}
    for _ in range(2):
        w = World(initial)
        assert w.state == initial and w.state["listings"]["L-1"]["tags"] is not w.state["listings"]["L-2"]["tags"]
        w.state["listings"]["L-1"]["tags"].append("b")
        assert w.state["listings"]["L-2"]["tags"] == ["a"] and tags == ["a"]


def test_a_state_holding_itself_is_refused_as_before() -> None:
    initial: dict = {"actors": {}, "x": []}
    initial["x"].append(initial)
    with pytest.raises(RecursionError):
        World(initial)


def test_a_state_referenced_from_elsewhere_is_found_again_unchecked() -> None:
    """An outside reference to one of the state's lists changes its quick image: the same checked image is
    found by the exact one, and nothing is checked or kept twice."""
    from acworld_env.world.world import _ALIASES, _checked_image

    initial = {"actors": {"buyer_0": {"role": "buyer", "balance": 7, "tags": ["x", "y"]}}, "orders": {}}
    first = _checked_image(initial)
    checked = len(_CHECKED)
    before = marshal.dumps(initial, 4)
    outside = [initial["actors"]["buyer_0"]["tags"], initial["actors"]["buyer_0"]["tags"]]  # noqa: F841
    assert marshal.dumps(initial, 4) != before and marshal.dumps(initial, 4) not in _ALIASES
    assert _checked_image(initial) is first and len(_CHECKED) == checked
    assert _ALIASES[marshal.dumps(initial, 4)] is first  # another quick image, for the same checked one
    assert World(initial).state == initial
    for i in range(300):
        _checked_image({"actors": {}, "n": i})
    assert len(_ALIASES) <= 256


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("odd", [2**63, 2**64 - 1, 2**70, -(2**63) - 1, ("a", 1), [("t",)], _nested(300),
                                 {"k": [True, False, None, 0, 1]}, "\u00e9\u4e2d\U0001f600"],
                         ids=["u64", "u64max", "big", "below-i64", "tuple", "nested-tuple", "deep", "flags", "unicode"])
def test_any_plain_value_starts_a_world_with_its_exact_types(odd: object) -> None:
    """States the compiled encoder cannot copy exactly (tuples, integers past 64 bits, deep nesting) start
    from their marshal image; the rest from JSON. Either way the copy holds the very same types."""
    initial = {"actors": {}, "x": odd, "y": [odd, {"z": odd}]}
    for _ in range(2):  # the first World checks the state, the second finds it checked
        w = World(initial)
        assert marshal.dumps(w.state, 2) == marshal.dumps(initial, 2)
        assert w.state_digest() == state_digest(initial)


@pytest.mark.parametrize(("odd", "error"), [(1.5, NonCanonicalValue), ({1: "a"}, NonCanonicalValue),
                                            ([{"a": float("nan")}], NonCanonicalValue),
                                            ({"a", "b"}, NonCanonicalValue), ("\ud800", UnicodeEncodeError)],
                         ids=["float", "int-key", "nan", "set", "lone-surrogate"])
def test_what_is_not_canonical_json_is_refused_every_time(odd: object, error: type[Exception]) -> None:
    n = len(_CHECKED)
    for _ in range(2):
        with pytest.raises(error):
            World({"actors": {}, "deep": [[{"x": odd}]]})
    assert len(_CHECKED) == n
