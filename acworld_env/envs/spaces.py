"""Observation and action spaces of the acworld environments.

Observation: a :class:`gymnasium.spaces.Dict` with two :class:`~gymnasium.spaces.Text` fields
(``text``: the rendered observation for LLMs; ``json``: the structured role-private observation
as ASCII JSON, see :func:`decode_observation`) and small numeric fields. The text charset is the
whole Basic Multilingual Plane except surrogates and control characters (tab and newline
allowed), so real product text fits; anything else (e.g. emoji) is replaced by U+FFFD.

Action: :class:`VCPActionSpace`, one VCP action given as a pydantic model, a dict or a JSON
string. ``contains`` validates against the protocol union and the role; ``sample`` draws a
valid, role-appropriate action from the ids the agent has seen (:mod:`.candidates`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Collection
from functools import cache
from itertools import chain
from typing import Any

import numpy as np
from gymnasium import spaces

try:  # a compiled encoder for the ``json`` field (see :func:`_obs_json`)
    import orjson as _orjson
except ImportError:  # pragma: no cover - a declared dependency; the standard encoder gives the same text
    _orjson = None

from ..vcp import Role, VCPAction, parse_action
from ..world.digest import spelled_as_json
from .candidates import TERMINAL_KINDS, menu_actions
from .known import Known

MAX_TEXT = 262_144
"""Longest text field, in characters."""
MAX_STEPS, MAX_ROUND, MAX_BALANCE, MAX_INBOX = 500, 1_000_000, 10**12, 10_000
_OUTSIDE = re.compile("[^\t\n\x20-\x7e\xa0-\ud7ff\ue000-\uffff]")
_PRINTABLE_LINES = bytes(range(0x20, 0x7F)) + b"\n"
"""Printable ASCII and newline: an ASCII text with nothing else needs no replacing. (Deleting these bytes
from its encoding and finding nothing left is ~4x quicker than ``str.isprintable`` on the text without
newlines, which looks each character up in the Unicode tables.)"""
_TEXT_PROTO: BMPText | None = None
TERMINAL_SHARE = 0.03
"""Probability that :meth:`VCPActionSpace.sample` draws a terminal action (answer, abstain, finish)."""
NUMERIC_FIELDS = {"step": (0, MAX_STEPS), "steps_left": (0, MAX_STEPS), "round": (0, MAX_ROUND),
                  "balance": (-MAX_BALANCE, MAX_BALANCE), "inbox_size": (0, MAX_INBOX)}


@cache
def charset() -> str:
    """Characters the text fields may hold (63,425 of them), built on first use; also ``CHARSET``."""
    return "\t\n" + "".join(map(chr, chain(range(0x20, 0x7F), range(0xA0, 0xD800), range(0xE000, 0x10000))))


def __getattr__(name: str) -> Any:
    """``CHARSET``: :func:`charset`, so importing the module does not build the 63,425-character string."""
    if name == "CHARSET":
        return charset()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def clean_text(text: str, limit: int = MAX_TEXT) -> str:
    """Replace characters outside :data:`CHARSET` and cut to ``limit`` characters."""
    if not (text.isascii() and not text.encode("ascii").translate(None, _PRINTABLE_LINES)):
        text = _OUTSIDE.sub("\ufffd", text)  # printable ASCII lines need no replacing (the common case, faster)
    if len(text) > limit:
        note = f"\n[... {len(text) - limit + 40} characters cut]"
        text = text[: limit - len(note)] + note
    return text


class BMPText(spaces.Text):
    """A :class:`~gymnasium.spaces.Text` over :data:`CHARSET` whose repr names the charset instead of listing it.

    ``contains``, ``sample`` and equality are Gymnasium's; only printing is short (the charset
    has 63,425 characters, so the default repr of an observation space runs to 127 KB).
    """

    def __repr__(self) -> str:
        return (f"Text({self.min_length}, {self.max_length}, charset=<{len(self.character_set)} characters: "
                "the Basic Multilingual Plane without controls and surrogates, plus tab and newline>)")


def _text_space() -> spaces.Text:
    global _TEXT_PROTO
    if _TEXT_PROTO is None:  # building the charset index takes ~0.1 s: do it once, copy after
        _TEXT_PROTO = BMPText(MAX_TEXT, min_length=0, charset=charset())
    return copy.copy(_TEXT_PROTO)


def observation_space() -> spaces.Dict:
    """A fresh observation space (own random generator)."""
    fields: dict[str, spaces.Space] = {"text": _text_space(), "json": _text_space()}
    for name, (low, high) in NUMERIC_FIELDS.items():
        fields[name] = spaces.Box(low=low, high=high, shape=(1,), dtype=np.int64)
    fields["last_accepted"] = spaces.Discrete(3)
    fields["role"] = spaces.Discrete(2)
    return spaces.Dict(fields)


_OBS_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=str)
"""The ``json`` field's encoder, made once (``json.dumps`` with these options builds one per call)."""


_ORJSON_OPTIONS = 0 if _orjson is None else (_orjson.OPT_SORT_KEYS | _orjson.OPT_PASSTHROUGH_SUBCLASS
                                              | _orjson.OPT_PASSTHROUGH_DATACLASS | _orjson.OPT_PASSTHROUGH_DATETIME)


def _not_plain(value: Any) -> Any:
    raise TypeError(type(value).__name__)


def _obs_json(raw: dict[str, Any]) -> str:
    """``_OBS_ENCODER.encode(raw)``, by the compiled encoder when that gives the same text.

    It does for plain data whose encoding is ASCII without DEL, with floats spelled alike
    (:func:`~acworld_env.world.digest.spelled_as_json`): the same sorted keys, separators and escapes.
    Anything else (non-ASCII text and DEL, which the standard encoder escapes; a float spelled
    differently; a value the standard encoder would pass to ``str``, which
    the compiled one is told to refuse) is encoded by the standard encoder. The one value left that
    both would write differently is a plain :class:`enum.Enum` member (its value, not ``str`` of it);
    observations are JSON data (World records, results, messages) and hold none.
    """
    if _orjson is not None:
        try:
            out = _orjson.dumps(raw, default=_not_plain, option=_ORJSON_OPTIONS)
        except TypeError:
            out = None
        if out is not None and out.isascii() and b"\x7f" not in out and spelled_as_json(out):
            text = out.decode("ascii")
            if len(_COMPILED) >= _COMPILED_KEPT:
                _COMPILED.pop(next(iter(_COMPILED), None), None)  # (another thread may have taken it)
            _COMPILED[id(text)] = text
            return text
    return _OBS_ENCODER.encode(raw)


_COMPILED: dict[int, str] = {}
"""The latest ``json`` texts the compiled encoder wrote, by identity (held here, so an id is not reused)."""
_COMPILED_KEPT = 64


def _fit_json(raw: dict[str, Any]) -> str:
    dump = _OBS_ENCODER.encode

    text = _obs_json(raw)
    if len(text) <= MAX_TEXT:
        return text
    raw = dict(raw)
    if raw.get("last_result"):
        raw["last_result"] = {**raw["last_result"], "result": {"truncated": True}}
    inbox = [{**m, "text": str(m.get("text", ""))[:500]} for m in raw.get("inbox", [])]
    while inbox:
        raw["inbox"] = inbox
        text = dump({**raw, "inbox_truncated": True})
        if len(text) <= MAX_TEXT:
            return text
        inbox = inbox[: len(inbox) // 2]
    return dump({**raw, "inbox": [], "inbox_truncated": True, "request": str(raw.get("request", ""))[:4000]})


def encode_observation(raw: dict[str, Any], text: str) -> dict[str, Any]:
    """The space element for a raw observation and its rendered text."""
    get = raw.get
    last = get("last_result")
    step, max_steps = get("step", 0), get("max_steps", 0)
    if type(step) is not int or type(max_steps) is not int:  # ``int()`` of an ``int`` is itself: skipped
        step, max_steps = int(step), int(max_steps)
    obs: dict[str, Any] = {"text": clean_text(text), "json": _fit_json(raw)}
    round_, balance = get("round", 0), get("balance", 0)
    if type(round_) is not int or type(balance) is not int:
        round_, balance = int(round_), int(balance)
    left, inbox = max_steps - step, len(get("inbox", ()))
    # each value within its NUMERIC_FIELDS bounds, in their order, compared inline (the calls of min and max
    # were half the cost); each field a shape-(1,) int64 array: a slice of one array, made in one call
    values = np.array((0 if step < 0 else MAX_STEPS if step > MAX_STEPS else step,
                       0 if left < 0 else MAX_STEPS if left > MAX_STEPS else left,
                       0 if round_ < 0 else MAX_ROUND if round_ > MAX_ROUND else round_,
                       -MAX_BALANCE if balance < -MAX_BALANCE else MAX_BALANCE if balance > MAX_BALANCE else balance,
                       MAX_INBOX if inbox > MAX_INBOX else inbox), dtype=np.int64)
    obs["step"], obs["steps_left"], obs["round"] = values[0:1], values[1:2], values[2:3]
    obs["balance"], obs["inbox_size"] = values[3:4], values[4:5]
    obs["last_accepted"] = _INT64[0 if last is None else (1 if last.get("accepted") else 2)]
    obs["role"] = _INT64[0 if get("role") == "buyer" else 1]
    return obs


_INT64 = (np.int64(0), np.int64(1), np.int64(2))
"""The discrete fields' values as ``np.int64`` scalars (immutable: made once, shared)."""


def decode_observation(obs: dict[str, Any]) -> dict[str, Any]:
    """The structured observation (request, mandate, inbox, last result, ...) a policy acts on.

    A text the compiled encoder wrote (one of the latest, the very object) is read back by the
    compiled decoder: its integers are within 64 bits and its floats are ``repr``'s shortest digits,
    which both decoders read alike (to the same double). Any other text is read by ``json.loads``.
    """
    text = obs["json"]
    if _COMPILED.get(id(text)) is text:
        return _orjson.loads(text)
    return json.loads(text)


class VCPActionSpace(spaces.Space[dict]):
    """Every VCP action a role may propose. ``sample`` draws valid actions from seen ids."""

    def __init__(self, role: Role | str = Role.BUYER, known: Known | None = None,
                 seed: int | np.random.Generator | None = None) -> None:
        super().__init__(shape=None, dtype=None, seed=seed)
        self.known = known if known is not None else Known(role=str(Role(role)))
        self.role = Role(role)

    def bind(self, role: Role | str, known: Known) -> None:
        """Point the space at an agent's role and memory (done by the env at reset)."""
        self.role = Role(role)
        self.known = known
        known.role = self.role.value

    def contains(self, x: Any) -> bool:
        """True for a well-formed action (model, dict or JSON) of a kind this role may use."""
        action = parse_action(x)
        return isinstance(action, VCPAction) and self.role in action.roles

    def sample(self, mask: Collection[str] | None = None, probability: Any = None) -> dict[str, Any]:
        """A valid action dict built from ids the agent has seen. ``mask``: allowed kinds, if given."""
        pool: dict[str, list[dict[str, Any]]] = {}
        for action in menu_actions(self.known):
            if action is not None and (mask is None or action["kind"] in mask):
                pool.setdefault(action["kind"], []).append(action)
        if not pool:
            return {"kind": "get_inbox", "unread_only": True}
        rng = self.np_random
        terminal = [k for k in pool if k in TERMINAL_KINDS]
        other = [k for k in pool if k not in TERMINAL_KINDS]
        kinds = terminal if terminal and (not other or rng.random() < TERMINAL_SHARE) else other
        kind = kinds[int(rng.integers(len(kinds)))]
        options = pool[kind]
        action = dict(options[int(rng.integers(len(options)))])
        if kind in {"propose_offer", "counter_offer"}:
            action["unit_price"] = max(1, int(round(action["unit_price"] * rng.uniform(0.9, 1.1))))
        return action

    @property
    def is_np_flattenable(self) -> bool:
        """Actions are structured JSON, not arrays."""
        return False

    def to_jsonable(self, sample_n: Any) -> list[str]:
        """Actions as JSON strings."""
        return [a if isinstance(a, str) else json.dumps(
            a.model_dump(mode="json", exclude_none=True) if isinstance(a, VCPAction) else a, sort_keys=True)
            for a in sample_n]

    def from_jsonable(self, sample_n: list[str]) -> list[dict[str, Any]]:
        """JSON strings back to action dicts."""
        return [json.loads(s) for s in sample_n]

    def __repr__(self) -> str:
        return f"VCPActionSpace(role={self.role.value})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VCPActionSpace) and other.role == self.role
