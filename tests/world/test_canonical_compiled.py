"""The compiled canonical encoder writes exactly the standard encoder's bytes, or steps aside (issue 32).

:func:`acworld_env.world.digest.canonical` tries ``orjson`` first and falls back to
``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)``; every digest rests on those
bytes, so any JSON value (floats in every spelling, big integers, every escape, astral characters,
keys that only sort right by code point) must come out the same, and what the standard encoder
refuses must still be refused with the same error.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acworld_env.world import digest
from acworld_env.world.digest import _compiled, canonical


def _standard(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _nested(depth: int) -> list:
    value: list = [1]
    for _ in range(depth):
        value = [value]
    return value


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-2**70, max_value=2**70),
                     st.floats(allow_nan=False, allow_infinity=False), _TEXT)
_JSON = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                        st.dictionaries(_TEXT, inner, max_size=5)), max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(_JSON)
def test_any_json_value_has_the_standard_bytes(value: object) -> None:
    assert canonical(value) == _standard(value)


@pytest.mark.parametrize("value", [
    1e16, 1e-05, -0.0, 0.1, [1.5, "x"], {"a": 2.5e-7}, {"n": -12.0, "t": "ratio:1.5"}, 123456789012345678.0,
    {"\uffff": 1, "\U0001F600": 2, "\ue000": 3, "a": "\x00\x1f\x7f\u2028\"\\"}, 2**64 - 1, 2**64, -2**63 - 1,
    {1: "int key"}, (1, (2, 3)), [[[]]], {"deep": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}, _nested(300),
])
def test_floats_escapes_and_edges_have_the_standard_bytes(value: object) -> None:
    assert canonical(value) == _standard(value)


def test_a_float_spelled_unlike_json_goes_to_the_standard_encoder() -> None:
    for value in (1e16, [1, 2.5e-7], {"a": {"b": [0, -3e20]}}, {"x": 1e-05}, {"x": -0.00009}):
        assert _compiled(value) is None
    if digest._orjson is None:
        pytest.skip("orjson is not installed")
    for value in ([1.0], [1, 2.5], {"rating": 4.75, "t": "ratio:1.5"}, {"x": 0.0001}, [9999999999999998.0, -0.0]):
        assert _compiled(value) == _standard(value)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_has_the_standard_bytes_either_way(x: float) -> None:
    assert canonical({"v": [x]}) == _standard({"v": [x]})
    if digest._orjson is not None and digest.spelled_as_json(digest._orjson.dumps([x])):
        assert digest._orjson.dumps([x]) == _standard([x])


def test_a_record_without_floats_takes_the_compiled_path() -> None:
    body = {"n": 3, "prev": "3e5f" * 16, "action": {"kind": "send_message", "text": "$84.00, then 1e5 units"},
            "delta": [["orders", "ord-0001", {"total": 8400}]], "commit": None, "replayed": False}
    if digest._orjson is None:
        pytest.skip("orjson is not installed")
    assert _compiled(body) == _standard(body)


@pytest.mark.parametrize("value, error", [("\ud800", UnicodeEncodeError), ({1: 1, "a": 2}, TypeError),
                                          ({"s": {1, 2}}, TypeError), (object(), TypeError)])
def test_what_the_standard_encoder_refuses_is_still_refused(value: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        _standard(value)
    with pytest.raises(error):
        canonical(value)


def _spelled_by_the_plain_patterns(encoded: bytes) -> bool:
    """:func:`digest.spelled_as_json` as first written: one-byte-led patterns, every small-float spelling sought."""
    import re

    if encoded[:1] not in (b"{", b"["):
        return encoded.isdigit() or encoded in (b"true", b"false", b"null") or encoded[:1] == b'"'
    view = encoded.translate(digest._FLOAT_VIEW)
    if re.search(rb":0+[.eE]", view) is None:
        return True
    return re.search(rb":0+(?:\.0*)?[eE]", view) is None and not any(t in encoded for t in digest._BELOW_1E_4)


_NUMERIC_TEXT = st.text(alphabet="0123456789.eE-+:,[]{} a\"", max_size=16)


@settings(max_examples=400, deadline=None)
@given(st.recursive(st.one_of(_SCALARS, _NUMERIC_TEXT, st.floats(min_value=-1e-3, max_value=1e-3)),
                    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(_NUMERIC_TEXT, inner, max_size=5)),
                    max_leaves=30))
def test_the_quicker_float_patterns_answer_as_the_plain_ones(value: object) -> None:
    """``:00*`` for ``:0+`` (a two-byte literal start) and the one ``0.0000`` search before the four: the same
    answer on any compact JSON, floats near the spellings that differ and text that looks like numbers included."""
    if digest._orjson is None:
        pytest.skip("orjson is not installed")
    try:
        encoded = digest._orjson.dumps(value, option=digest._orjson.OPT_SORT_KEYS)
    except (TypeError, ValueError):
        encoded = _standard(value)
    assert digest.spelled_as_json(encoded) == _spelled_by_the_plain_patterns(encoded)
    assert digest.spelled_as_json(_standard(value)) == _spelled_by_the_plain_patterns(_standard(value))
