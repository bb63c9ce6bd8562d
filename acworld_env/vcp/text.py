"""Free text on the wire: the marker that tells the platform's privacy guard which fields to read.

A field typed :data:`Text`, :data:`ShortText`, :data:`TextKey`, :data:`FreeStr` or :data:`TextId`
carries words the actor chose (a message, a note, a reason, a listing title, a fee name, an
evidence id). :func:`text_paths` finds every such field of an action model, however deeply
it is nested (lists, dict keys and values, sub-models), so the guard's list of fields comes
from the models themselves and cannot fall behind them.

Actions registered from outside the package (``register_action``) are guarded by default:
every string their own classes declare is read as free text, however it is typed, unless the
author marks it :data:`NotText` / :data:`NOT_FREE_TEXT` (``Annotated[str, NOT_FREE_TEXT]``) or
``Field(json_schema_extra={"free_text": False})``. Only the package's own models
(``acworld_env.vcp``) rely on their markers alone; an extension forgetting a marker leaks nothing.

A path is a tuple of steps: a field name, ``"[]"`` (every item of a list), ``"{}"`` (every
value of a dict) or ``"{k}"`` (every key of a dict).
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

from .base import Id


@dataclass(frozen=True, slots=True)
class FreeText:
    """Annotation marker: this string is free text the actor wrote."""


FREE_TEXT = FreeText()
"""The one marker instance (any :class:`FreeText` instance is recognised)."""


@dataclass(frozen=True, slots=True)
class NotFreeText:
    """Annotation marker: this string (and everything under the field) is not free text (a code, an id).

    Needed only in actions registered from outside the package, whose strings are otherwise guarded.
    """


NOT_FREE_TEXT = NotFreeText()
"""The one opt-out marker instance (any :class:`NotFreeText` instance is recognised)."""
FREE_TEXT_KEY = "free_text"
"""``Field(json_schema_extra={"free_text": False})`` marks a field as not free text (``True``: free text)."""
PROTOCOL_PACKAGE = __name__.rpartition(".")[0]
"""Models declared in this package mark their free text explicitly; every other model's strings are guarded."""

Text = Annotated[str, FREE_TEXT, Field(max_length=2000)]
"""Long free text (messages, descriptions, reasons)."""
ShortText = Annotated[str, FREE_TEXT, Field(max_length=200)]
"""Short free text (notes, titles, claim values, fee names)."""
TextKey = Annotated[str, FREE_TEXT]
"""A dict key the actor chose (a claim name, an answer field)."""
FreeStr = Annotated[str, FREE_TEXT]
"""Free text without a length bound of its own (kept where the field never had one)."""
TextId = Annotated[Id, FREE_TEXT]
"""An id the actor typed itself (cited evidence): validated as an id, read as text."""
NotText = Annotated[str, NOT_FREE_TEXT]
"""A string of a registered action that is not free text (a code, a fixed token): not guarded."""
PlainId = Annotated[Id, NOT_FREE_TEXT]
"""An identifier field of a registered action: validated as an id, not guarded."""

TextPath = tuple[str, ...]
ITEMS, VALUES, KEYS = "[]", "{}", "{k}"


Leaf = tuple[TextPath, Any, bool, bool]
"""``(path, annotation, marked free text, guarded by default)``: the last is true for an unmarked string
declared outside the protocol package (an extension's), which :func:`text_paths` reads as free text."""


def _is_text(meta: tuple[Any, ...]) -> bool:
    return any(isinstance(m, FreeText) for m in meta) or _flag(meta) is True


def _is_plain(meta: tuple[Any, ...]) -> bool:
    return any(isinstance(m, NotFreeText) for m in meta) or _flag(meta) is False


def _flag(meta: tuple[Any, ...]) -> bool | None:
    """The ``free_text`` entry of a ``Field(json_schema_extra=...)`` among ``meta``, if any."""
    for m in meta:
        extra = getattr(m, "json_schema_extra", None) if isinstance(m, FieldInfo) else None
        if isinstance(extra, dict) and isinstance(extra.get(FREE_TEXT_KEY), bool):
            return extra[FREE_TEXT_KEY]
    return None


def _declared_by_protocol(model: type[BaseModel], name: str) -> bool:
    """Whether field ``name`` of ``model`` is declared by a class of this package (not an extension's)."""
    for klass in model.__mro__:
        if name in vars(klass).get("__annotations__", {}):
            return klass.__module__.startswith(PROTOCOL_PACKAGE + ".") or klass.__module__ == PROTOCOL_PACKAGE
    return True


def _walk(tp: Any, path: TextPath, out: list[Leaf], seen: frozenset[type], guard: bool) -> None:
    """Append a :data:`Leaf` for every string leaf reachable in ``tp`` (``guard``: unmarked strings are text)."""
    origin = get_origin(tp)
    if origin is Annotated:
        base, *meta = get_args(tp)
        if _is_text(tuple(meta)):
            out.append((path, tp, True, True))
        elif _is_plain(tuple(meta)):
            return
        elif base is str:
            out.append((path, tp, False, guard))
        else:
            _walk(base, path, out, seen, guard)
    elif tp is str:
        out.append((path, tp, False, guard))
    elif origin in (Union, types.UnionType):
        for arg in get_args(tp):
            _walk(arg, path, out, seen, guard)
    elif origin in (list, tuple, set, frozenset, typing.Sequence):
        for arg in get_args(tp):
            if arg is not Ellipsis:
                _walk(arg, (*path, ITEMS), out, seen, guard)
    elif origin is dict:
        key, value = get_args(tp)
        _walk(key, (*path, KEYS), out, seen, guard)
        _walk(value, (*path, VALUES), out, seen, guard)
    elif origin is Literal:
        return
    elif isinstance(tp, type) and issubclass(tp, BaseModel) and tp not in seen:
        hints = get_type_hints(tp, include_extras=True)
        for name, info in tp.model_fields.items():
            flag = _flag((info,))
            if flag is False:
                continue
            guarded = flag is True or not _declared_by_protocol(tp, name)
            _walk(hints[name], (*path, name), out, seen | {tp}, guarded)


@cache
def _leaves(model: type[BaseModel]) -> tuple[Leaf, ...]:
    out: list[Leaf] = []
    _walk(model, (), out, frozenset(), False)
    return tuple(out)


def string_leaves(model: type[BaseModel]) -> tuple[tuple[TextPath, Any, bool], ...]:
    """Every string-valued place in ``model``: ``(path, annotation, is marked free text)``."""
    return tuple((path, annotation, marked) for path, annotation, marked, _ in _leaves(model))


@cache
def text_paths(model: type[BaseModel]) -> tuple[TextPath, ...]:
    """Paths of every free-text field of ``model``, in field order: those marked with :class:`FreeText`,
    and every unmarked string an extension's class declares (guarded by default, see the module doc)."""
    return tuple(dict.fromkeys(path for path, _, marked, guarded in _leaves(model) if marked or guarded))


def texts_at(data: Any, path: TextPath, label: str = "") -> typing.Iterator[tuple[str, str]]:
    """``(label, text)`` for every string found at ``path`` in plain JSON ``data`` (a dumped action).

    The label names the field (``note``, ``fees[0].name``, ``claims.material``, ``claims[key]``),
    never its content beyond a dict key the actor chose.
    """
    if not path:
        if isinstance(data, str):
            yield label, data
        return
    step, rest = path[0], path[1:]
    if step == ITEMS:
        if isinstance(data, list):
            for i, item in enumerate(data):
                yield from texts_at(item, rest, f"{label}[{i}]")
    elif step == VALUES:
        if isinstance(data, dict):
            for key, item in data.items():
                yield from texts_at(item, rest, f"{label}.{key}")
    elif step == KEYS:
        if isinstance(data, dict):
            for key in data:
                yield from texts_at(key, rest, f"{label}[key]")
    elif isinstance(data, dict) and step in data:
        yield from texts_at(data[step], rest, f"{label}.{step}" if label else step)
