"""The observation's ``json`` field is the standard encoder's text whichever encoder wrote it (issue 32).

:func:`acworld_env.envs.spaces._obs_json` uses ``orjson`` only where its text is the same as
``json.JSONEncoder(sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=str)``; these
tests give it what could differ (non-ASCII text, DEL, floats, big integers, values only ``str`` can
write) and plain observations, which must take the quick path.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acworld_env.envs import spaces
from acworld_env.envs.spaces import _obs_json


def _standard(raw: dict) -> str:
    return json.dumps(raw, sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=str)


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=10)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-2**70, max_value=2**70),
                     st.floats(allow_nan=False, allow_infinity=False), _TEXT, st.sampled_from(["\x7f", "é", "a\tb"]))
_JSON = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(_TEXT, inner, max_size=4)), max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_TEXT, _JSON, max_size=6))
def test_any_observation_has_the_standard_text(raw: dict) -> None:
    assert _obs_json(raw) == _standard(raw)


@dataclass
class _Row:
    n: int


class _Name(str):
    pass


@pytest.mark.parametrize("value", [
    {"x"}, _Row(1), datetime.date(2026, 1, 2), _Name("sub"), b"bytes", 2**64, 1.5, 1e-05, "\x7f", "naïve",
    {1: "int key"}, (1, 2),
])
def test_values_the_encoders_write_differently_get_the_standard_text(value: object) -> None:
    raw = {"actor": "buyer_0", "last_result": {"result": value}}
    assert _obs_json(raw) == _standard(raw)


def test_a_plain_observation_takes_the_compiled_path() -> None:
    if spaces._orjson is None:
        pytest.skip("orjson is not installed")
    raw = {"actor": "buyer_0", "round": 3, "inbox": [{"text": "Offer: $84.00 (30-day returns)", "read": False}],
           "last_result": None, "mandate": {"ceiling": 9000}}
    assert spaces._orjson.dumps(raw, option=spaces._orjson.OPT_SORT_KEYS).decode() == _standard(raw)
    assert _obs_json(raw) == _standard(raw)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_TEXT, _JSON, max_size=6))
def test_decoding_gives_what_json_loads_gives(raw: dict) -> None:
    text = _obs_json(raw)
    decoded = spaces.decode_observation({"json": text})
    assert decoded == json.loads(text)
    assert json.dumps(decoded, sort_keys=True) == json.dumps(json.loads(text), sort_keys=True)  # types too (1 vs 1.0)


def test_a_text_the_compiled_encoder_did_not_write_is_read_by_json() -> None:
    text = '{"big":123456789012345678901234567890,"f":1e400}'
    assert spaces.decode_observation({"json": text}) == {"big": 123456789012345678901234567890, "f": float("inf")}
