"""The single discriminated union of every VCP action, and tolerant parsing into it."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

try:  # a compiled encoder, for the quick size bound of :func:`_unencodable`
    import orjson as _orjson
except ImportError:  # pragma: no cover - a declared dependency; without it every action takes the exact path
    _orjson = None

from ..core.errors import AcworldError
from .aftersales import AFTERSALES
from .authoring import AUTHORING
from .base import Role, VCPAction, money_fields
from .checkout import CHECKOUT
from .decisions import DECISIONS
from .fulfilment import FULFILMENT
from .negotiation import NEGOTIATION
from .queries import QUERIES

ACTION_TYPES: tuple[type[VCPAction], ...] = (
    QUERIES + NEGOTIATION + CHECKOUT + FULFILMENT + AFTERSALES + AUTHORING + DECISIONS
)
TOOLS: dict[str, type[VCPAction]] = {t.model_fields["kind"].default: t for t in ACTION_TYPES}
"""Every action type by its ``kind`` tag."""
TERMINAL_KINDS: frozenset[str] = frozenset(k for k, t in TOOLS.items() if t.terminal)
"""Kinds that, once accepted, end the actor's episode (after one, every action is refused)."""
QUERY_KINDS: frozenset[str] = frozenset(k for k, t in TOOLS.items() if t.readonly)
"""Read-only kinds (searches, ``get_*``, ``list_*``): they never commit and are not business proposals."""
ONE_SHOT_KINDS: frozenset[str] = frozenset(k for k, t in TOOLS.items() if t.one_shot)
"""Kinds that, once accepted, make no sense again on the same record."""
BUILTIN_KINDS: frozenset[str] = frozenset(TOOLS)
"""The package's own action kinds: their platform rules cannot be replaced from outside."""
RULES: dict[str, Callable[..., Any]] = {}
"""The platform rule of every action kind, by kind. Filled by the platform layer
(``acworld_env.cip.rules.rule``, which serves this same table as ``RULES``); kept here so that
:func:`register_action` can refuse a kind that has no rule, at registration."""
KIND_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}", re.ASCII)
"""What an action kind may be called: a plain ASCII identifier of at most 64 characters (no
look-alike letters, no invisible characters such as a zero-width space)."""
IDLE_ACTION: dict[str, Any] = {"kind": "get_inbox", "unread_only": True}
"""What an agent does on a turn it takes no action (its policy returned None): read its unread messages."""

Action = Annotated[Union[ACTION_TYPES], Field(discriminator="kind")]  # noqa: UP007
ACTION_ADAPTER: TypeAdapter[VCPAction] = TypeAdapter(Action, config=ConfigDict(defer_build=True))
"""The union's validator, built on first use (``defer_build``, like every action model): importing the
package builds none; the first validated action of a process builds them all once (:func:`_build_validators`)."""

MAX_ACTION_BYTES = 16_384
"""Largest action, in bytes of JSON (and in characters of a JSON string)."""
MAX_NESTING = 32
"""Deepest nesting of objects and lists an action may have (the action object itself is level 1)."""
MAX_INT_DIGITS = 100
"""Most decimal digits an integer may have; larger ones are refused before Python converts them."""
_INT_LIMIT = 10**MAX_INT_DIGITS
_NUMBER_RULE = f"numbers must be finite, with at most {MAX_INT_DIGITS} digits"


@dataclass(frozen=True, slots=True)
class ParseError:
    """Why a proposed action could not be read; becomes a recorded rejection."""

    code: str
    message: str


class _Refused(Exception):
    """Raised inside the JSON decoder's hooks and the data walk; carries the rejection."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.error = ParseError(code, message)


class ActionRegistryError(AcworldError, ValueError):
    """An action type or rule that cannot be registered (not a VCPAction, kind taken or badly named,
    no platform rule, a built-in rule to replace, a fixed-set fact)."""


def check_kind_name(kind: object) -> str:
    """``kind`` if it is a plain identifier (:data:`KIND_NAME`); else :class:`ActionRegistryError`."""
    if not isinstance(kind, str) or not KIND_NAME.fullmatch(kind):
        raise ActionRegistryError(f"action kind {kind!r} is not a plain identifier (ASCII letters, digits and "
                                  "'_', not starting with a digit, at most 64 characters)")
    return kind


def _kind_of(cls: Any) -> str:
    """The ``kind`` tag of an action class to register, checked; :class:`ActionRegistryError` otherwise."""
    if not isinstance(cls, type) or not issubclass(cls, VCPAction) or cls is VCPAction:
        raise ActionRegistryError(f"{cls!r} is not a VCPAction subclass")
    field = cls.model_fields.get("kind")
    kind = field.default if field is not None else None
    if not isinstance(kind, str) or not kind:
        raise ActionRegistryError(f"{cls.__name__} needs a kind: Literal['name'] = 'name' field")
    return check_kind_name(kind)


def _rule_for(kind: str, rule: Callable[..., Any] | None) -> Callable[..., Any]:
    """The platform rule ``kind`` will use: ``rule``, or the one already registered; refused when neither."""
    have = RULES.get(kind)
    if rule is None:
        if have is None:
            raise ActionRegistryError(
                f"action kind {kind!r} has no platform rule: register one first with "
                f"acworld_env.cip.rules.rule({kind!r}), or pass register_action(cls, rule=fn)")
        return have
    if not callable(rule):
        raise ActionRegistryError(f"the rule of {kind!r} must be callable (ctx, action) -> Outcome, not {rule!r}")
    if have is not None and have is not rule:
        raise ActionRegistryError(f"action kind {kind!r} already has another platform rule")
    return rule


def register_action(cls: type[VCPAction], rule: Callable[..., Any] | None = None) -> type[VCPAction]:
    """Add an action type from outside the package; usable as a class decorator.

    The kind is then parsed, validated, role-checked, privacy-checked and traced like a built-in
    one. Everything is checked here, at registration, never later inside ``env.step``:

    * ``kind`` is a plain identifier (:data:`KIND_NAME`) not taken by another class;
    * the kind has a platform rule: ``rule`` (a function ``(ctx, action) -> Outcome``), or one
      registered before with ``acworld_env.cip.rules.rule(kind)``. A built-in kind's rule can
      never be replaced. The rule's World events still need handlers
      (``acworld_env.world.transition.handles``);
    * terminal, read-only and one-shot actions stay built-in (other layers read those kinds
      once, as fixed sets).

    **Privacy.** Every string field the class (or a model of yours it nests) declares is read by
    the privacy guard as free text, whatever its type, so a note such as "my budget is $74.00"
    is refused like a built-in message. Mark a field that is not free text (a code, an id) with
    ``acworld_env.vcp.text.NotText`` / ``PlainId`` (``Annotated[str, NOT_FREE_TEXT]``) or
    ``Field(json_schema_extra={"free_text": False})``.

    Registering the same class twice is a no-op. A refusal raises :class:`ActionRegistryError`
    (an :class:`~acworld_env.core.errors.AcworldError`) and changes nothing.
    """
    global ACTION_TYPES, Action, ACTION_ADAPTER
    kind = _kind_of(cls)
    if TOOLS.get(kind) is cls:
        _rule_for(kind, rule)
        return cls
    if kind in TOOLS:
        raise ActionRegistryError(f"action kind {kind!r} is already taken by {TOOLS[kind].__name__}")
    fixed = [fact for fact in ("terminal", "readonly", "one_shot") if getattr(cls, fact)]
    if fixed:
        raise ActionRegistryError(f"{cls.__name__}: {', '.join(fixed)} actions cannot be registered from outside")
    types = (*ACTION_TYPES, cls)
    try:
        union = Annotated[Union[types], Field(discriminator="kind")]  # noqa: UP007
        adapter: TypeAdapter[VCPAction] = TypeAdapter(union)
    except Exception as exc:  # pydantic refuses the class in the union (e.g. kind not a Literal)
        raise ActionRegistryError(f"{cls.__name__} cannot join the action union: {exc}") from None
    RULES[kind] = _rule_for(kind, rule)
    TOOLS[kind] = cls
    ACTION_TYPES, Action, ACTION_ADAPTER = types, union, adapter
    return cls


def tools_for(role: Role | str) -> list[type[VCPAction]]:
    """The action types a role may use, queries first."""
    role = Role(role)
    return [t for t in ACTION_TYPES if role in t.roles]


def _json_int(text: str) -> int:
    """``parse_int`` hook: refuse an over-long integer before ``int()`` sees it (and raises)."""
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused("bad_number", f"an integer of {len(text.lstrip('-'))} digits; {_NUMBER_RULE}")
    return int(text)


def _json_constant(name: str) -> float:
    """``parse_constant`` hook: ``NaN``, ``Infinity`` and ``-Infinity`` are refused."""
    raise _Refused("bad_number", f"{name} is not allowed; {_NUMBER_RULE}")


def _load_json(text: str) -> Any:
    """Decode a JSON action with bounded numbers; raises :class:`_Refused`."""
    try:
        return json.loads(text, parse_int=_json_int, parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        raise _Refused("malformed_json", f"action is not valid JSON: {exc.msg} at position {exc.pos}") from None
    except RecursionError:
        raise _Refused("malformed_json", f"action is nested too deeply; the limit is {MAX_NESTING} levels") from None
    except ValueError as exc:  # any other decoder complaint
        raise _Refused("malformed_json", f"action is not valid JSON: {str(exc)[:200]}") from None


def _leaf(value: Any) -> Any:
    """A plain JSON scalar equal to ``value`` (subclasses of str, int and float become exact types)."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        if not -_INT_LIMIT < value < _INT_LIMIT:
            raise _Refused("bad_number", f"an integer of more than {MAX_INT_DIGITS} digits; {_NUMBER_RULE}")
        return int.__index__(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise _Refused("bad_number", f"NaN or infinite numbers are not allowed; {_NUMBER_RULE}")
        return float.__float__(value)
    raise _Refused("malformed_action", f"a value of type {type(value).__name__} is not JSON data")


_FLAT_LEAVES = (str, int, bool, type(None))
"""Exact types a flat action's values may have for :func:`_flat_copy` (floats and containers: the full walk)."""


def _flat_copy(raw: Any) -> dict[str, Any] | None:
    """What :func:`_plain` returns for a flat dict (string keys; exact ``str``, ``int``, ``bool`` or None
    values; integers within bounds; within the size budget), or None for anything else.

    Most actions are such dicts; the walk would copy them value by value into a new dict, in reverse
    order (it pops the values off a stack), which this copy keeps.
    """
    if type(raw) is not dict:
        return None
    budget = MAX_ACTION_BYTES - 1
    for key, value in raw.items():
        kind = type(value)
        if type(key) is not str or kind not in _FLAT_LEAVES:
            return None
        if kind is str:
            budget -= len(value)
        elif kind is int and not -_INT_LIMIT < value < _INT_LIMIT:
            return None
        budget -= len(key) + 1
    if budget < 0:
        return None
    return dict(reversed(raw.items()))


def _plain(raw: Any, nested_code: str) -> Any:
    """A plain-JSON copy of ``raw`` (dicts with string keys, lists, scalars); raises :class:`_Refused`.

    Iterative and bounded: nesting deeper than :data:`MAX_NESTING` is refused with ``nested_code``
    (which also ends cycles), and more than :data:`MAX_ACTION_BYTES` values or characters is
    ``oversized`` (which also ends small graphs of shared lists that expand enormously).
    """
    flat = _flat_copy(raw)
    if flat is not None:
        return flat
    budget = MAX_ACTION_BYTES
    root: list[Any] = [None]
    stack: list[tuple[Any, list[Any] | dict[str, Any], Any, int]] = [(raw, root, 0, 1)]
    while stack:
        value, parent, slot, depth = stack.pop()
        budget -= 1 + (len(value) if isinstance(value, str) else 0)
        if budget < 0:
            raise _Refused("oversized", f"action exceeds {MAX_ACTION_BYTES} bytes (the limit)")
        if isinstance(value, dict | list | tuple):
            if depth > MAX_NESTING:
                raise _Refused(nested_code, f"action is nested more than {MAX_NESTING} levels deep "
                                            f"(or refers to itself); the limit is {MAX_NESTING}")
            if isinstance(value, dict):
                copy: dict[str, Any] | list[Any] = {}
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise _Refused("malformed_action", "action is not a JSON object with string keys "
                                                           f"(found a {type(key).__name__} key)")
                    budget -= len(key)
                    stack.append((item, copy, str.__str__(key), depth + 1))
            else:
                copy = [None] * len(value)
                stack.extend((item, copy, i, depth + 1) for i, item in enumerate(value))
            parent[slot] = copy
        else:
            parent[slot] = _leaf(value)
    return root[0]


def _unencodable(obj: Any) -> ParseError | None:
    """Why plain data ``obj`` cannot become canonical JSON (invalid text, too large), or None.

    The size is that of ``json.dumps(obj, sort_keys=True, ensure_ascii=False)`` in UTF-8. A quick bound
    settles most actions first: the compiled encoder's compact form, which writes every string and
    integer the same way and a float at most one character shorter, is at least a quarter of that
    size (a separator adds one character after every key and value), so a compact form within a
    quarter of the limit is within it; it also refuses all that ``json`` refuses here (lone surrogates).
    Anything larger, or that it refuses, is measured exactly.
    """
    if _orjson is not None:
        try:
            if 4 * len(_orjson.dumps(obj)) <= MAX_ACTION_BYTES:
                return None
        except (TypeError, ValueError):  # measured (and named) by the exact path below
            pass
    try:
        size = len(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    except UnicodeEncodeError:
        return ParseError("invalid_text", "action text is not valid Unicode (lone surrogate)")
    except (TypeError, ValueError, RecursionError) as exc:
        return ParseError("malformed_action", f"action is not plain JSON data ({str(exc)[:200]})")
    if size > MAX_ACTION_BYTES:
        return ParseError("oversized", f"action exceeds {MAX_ACTION_BYTES} bytes")
    return None


def _dumped(model: VCPAction) -> Any:
    """A model instance's field values, to be validated again as if they had arrived as a dict."""
    try:
        return BaseModel.model_dump(model, mode="python", warnings=False)
    except Exception as exc:  # a subclass or a model_construct object may hold anything
        raise _Refused("malformed_action", f"action object could not be read: {type(exc).__name__}") from None


def plain_record(raw: Any) -> dict[str, Any] | None:
    """A bounded, plain-JSON copy of a dict or action object, for a lineage record; None if it has none.

    Never raises: input too large, too deep, cyclic, with odd numbers or values yields None.
    """
    try:
        data = _plain(_dumped(raw) if isinstance(raw, VCPAction) else raw, "malformed_action")
    except _Refused:
        return None
    if not isinstance(data, dict) or _unencodable(data) is not None:
        return None
    return data


def parse_action(raw: Any) -> VCPAction | ParseError:
    """Read an action given as a model, a dict or a JSON string into its canonical class. Never raises.

    A model instance is not trusted as it is: a subclass (say, one widening ``roles``) or an
    object made with ``model_construct`` (skipping every constraint) is dumped and validated again
    through the canonical union, so only the union's own classes, validated, reach the platform.
    """
    try:
        if isinstance(raw, VCPAction):
            data = _plain(_dumped(raw), "malformed_action")
        elif isinstance(raw, str | bytes | bytearray):
            if len(raw) > MAX_ACTION_BYTES:
                return ParseError("oversized", f"action is {len(raw)} characters; the limit is {MAX_ACTION_BYTES}")
            text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes | bytearray) else raw
            data = _load_json(text)
            if isinstance(data, dict):
                data = _plain(data, "malformed_json")
        elif isinstance(raw, dict):
            data = _plain(raw, "malformed_action")
        else:
            data = raw
    except _Refused as refused:
        return refused.error
    if not isinstance(data, dict):
        return ParseError("malformed_action", f"an action must be a JSON object, got {type(data).__name__}")
    problem = _unencodable(data)
    if problem is not None:
        return problem
    return _validate(data)


def _build_validators() -> None:
    """Build every action model's validator, then the union's from theirs: each model's schema is built
    once (left to the union alone, every model would build its own again when first dumped)."""
    for model in ACTION_TYPES:
        model.model_rebuild()
    ACTION_ADAPTER.rebuild()


def _validate(raw: dict[str, Any]) -> VCPAction | ParseError:
    """Validate plain data through the canonical union, naming the first problem with a code."""
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in TOOLS:
        return ParseError("unknown_tool", f"unknown action kind {kind!r}")
    if not ACTION_ADAPTER.pydantic_complete:
        _build_validators()
    try:
        return ACTION_ADAPTER.validator.validate_python(raw)  # what ``ACTION_ADAPTER.validate_python`` runs
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or kind
        code = "oversized" if first["type"] in {"string_too_long", "too_long"} else "invalid_field"
        if first["type"] == "missing":
            code = "missing_field"
        elif first["type"] == "extra_forbidden":
            code = "unknown_field"
        elif where in money_fields(TOOLS[kind]):
            code = "bad_money"
        return ParseError(code, f"{kind}: {where}: {first['msg']}")
