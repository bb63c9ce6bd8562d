"""The quick size bound of an action (issue 32) says what the exact measure says.

:func:`acworld_env.vcp.union._unencodable` accepts an action whose compact ``orjson`` form is within a
quarter of :data:`~acworld_env.vcp.union.MAX_ACTION_BYTES` without measuring it with ``json``; every
verdict (accepted, ``oversized``, ``invalid_text``) must be the one the exact measure gives, on both
sides of the bound and the limit.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acworld_env.vcp import union
from acworld_env.vcp.union import MAX_ACTION_BYTES, ParseError, _unencodable


def _exact(obj: object) -> ParseError | None:
    saved, union._orjson = union._orjson, None
    try:
        return _unencodable(obj)
    finally:
        union._orjson = saved


def _same(a: ParseError | None, b: ParseError | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and a.code == b.code and a.message == b.message)


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10**30, max_value=10**30),
                     st.floats(allow_nan=False, allow_infinity=False), _TEXT)
_JSON = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                        st.dictionaries(_TEXT, inner, max_size=6)), max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_TEXT, _JSON, max_size=6))
def test_small_actions_get_the_exact_verdict(obj: dict) -> None:
    assert _same(_unencodable(obj), _exact(obj))


@pytest.mark.parametrize("size", [MAX_ACTION_BYTES // 4 - 40, MAX_ACTION_BYTES // 4 + 40, MAX_ACTION_BYTES // 2,
                                  MAX_ACTION_BYTES - 60, MAX_ACTION_BYTES - 20, MAX_ACTION_BYTES + 10])
@pytest.mark.parametrize("filler", ["x", "é", 1e-05, 7])
def test_actions_near_the_bound_and_the_limit_get_the_exact_verdict(size: int, filler: object) -> None:
    if isinstance(filler, str):
        obj: dict = {"kind": "send_message", "text": filler * (size // len(filler.encode()))}
    else:
        obj = {"kind": "send_message", "values": [filler] * (size // len(json.dumps(filler)) // 2)}
    assert _same(_unencodable(obj), _exact(obj))


def test_a_lone_surrogate_is_invalid_text_either_way() -> None:
    obj = {"kind": "send_message", "text": "\ud800"}
    assert _unencodable(obj).code == "invalid_text" and _same(_unencodable(obj), _exact(obj))
