"""The result line's encoder, built once, writes what ``json.dumps(sort_keys=True, ensure_ascii=False)``
writes and fails as it fails (issue 32); a failure leaves nothing behind for the next call."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acworld_env import observe
from acworld_env.observe import _result_json


def _standard(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_any_value_has_the_standard_text(value: object) -> None:
    assert _result_json(value) == _standard(value)


def _cycle() -> list:
    loop: list = []
    loop.append(loop)
    return loop


@pytest.mark.parametrize("bad", [_cycle(), {"s": {1}}, {1: 2, "a": 1}, [1, object()]])
def test_bad_values_fail_as_the_standard_encoder_fails_and_leave_no_marks(bad: object) -> None:
    with pytest.raises(Exception) as standard:
        _standard(bad)
    with pytest.raises(type(standard.value), match=str(standard.value)[:20].replace("(", r"\(")):
        _result_json(bad)
    assert observe._MARKERS == {}
    assert _result_json({"after": [1, {"x": 2}]}) == '{"after": [1, {"x": 2}]}'
