"""The quick copy of a flat action is the walk's copy (issue 32).

:func:`acworld_env.vcp.union._plain` copies a flat dict (string keys, plain scalar values) without
walking it; the copy must equal the walk's, key order included, and anything the walk would refuse
or treat differently (floats, nesting, subclasses, huge integers, oversized text) must take the walk.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acworld_env.vcp import union
from acworld_env.vcp.union import MAX_ACTION_BYTES, _plain, parse_action


def _walked(raw: Any) -> tuple[str, Any]:
    saved = union._flat_copy
    union._flat_copy = lambda _raw: None
    try:
        return "ok", _plain(raw, "malformed_action")
    except union._Refused as refused:
        return refused.error.code, refused.error.message
    finally:
        union._flat_copy = saved


def _quick(raw: Any) -> tuple[str, Any]:
    try:
        return "ok", _plain(raw, "malformed_action")
    except union._Refused as refused:
        return refused.error.code, refused.error.message


class _Text(str):
    pass


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-10**120, max_value=10**120),
                    st.text(max_size=20), st.floats(allow_nan=True), st.lists(st.integers(), max_size=2),
                    st.builds(_Text, st.text(max_size=5)))


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=10), _VALUES, max_size=8))
def test_a_dict_is_copied_as_the_walk_copies_it(raw: dict) -> None:
    quick, walked = _quick(raw), _walked(raw)
    assert quick == walked
    if quick[0] == "ok":
        assert list(quick[1].items()) == list(walked[1].items())
        assert [type(v) for v in quick[1].values()] == [type(v) for v in walked[1].values()]


@pytest.mark.parametrize("size", [MAX_ACTION_BYTES - 40, MAX_ACTION_BYTES - 25, MAX_ACTION_BYTES])
def test_text_near_the_budget_gets_the_walks_verdict(size: int) -> None:
    raw = {"kind": "send_message", "text": "x" * size}
    assert _quick(raw) == _walked(raw)


def test_a_flat_action_still_parses() -> None:
    action = parse_action({"kind": "get_inbox", "unread_only": True})
    assert action.kind == "get_inbox" and action.unread_only is True
