"""Free text on the wire: the marker that tells the platform's privacy guard which fields to read.

A field typed :data:`Text`, :data:`ShortText`, :data:`TextKey`, :data:`FreeStr` or :data:`TextId`
carries words the actor chose (a message, a note, a reason, a listing title, a fee name, an
evidence id). :func:`text_paths` finds every such field of an action model, however deeply
it is nested (lists, dict keys and values, sub-models), so the guard's list of fields comes
from the models themselves and cannot fall behind them.

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

from .base import Id


@dataclass(frozen=True, slots=True)
class FreeText:
    """Annotation marker: this string is free text the actor wrote."""


FREE_TEXT = FreeText()
"""The one marker instance (any :class:`FreeText` instance is recognised)."""

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

TextPath = tuple[str, ...]
ITEMS, VALUES, KEYS = "[]", "{}", "{k}"


def _is_text(meta: tuple[Any, ...]) -> bool:
    return any(isinstance(m, FreeText) for m in meta)


def _walk(tp: Any, path: TextPath, out: list[tuple[TextPath, Any, bool]], seen: frozenset[type]) -> None:
    """Append ``(path, annotation, is_free_text)`` for every string leaf reachable in ``tp``."""
    origin = get_origin(tp)
    if origin is Annotated:
        base, *meta = get_args(tp)
        if _is_text(tuple(meta)):
            out.append((path, tp, True))
        elif base is str:
            out.append((path, tp, False))
        else:
            _walk(base, path, out, seen)
    elif tp is str:
        out.append((path, tp, False))
    elif origin in (Union, types.UnionType):
        for arg in get_args(tp):
            _walk(arg, path, out, seen)
    elif origin in (list, tuple, set, frozenset, typing.Sequence):
        for arg in get_args(tp):
            if arg is not Ellipsis:
                _walk(arg, (*path, ITEMS), out, seen)
    elif origin is dict:
        key, value = get_args(tp)
        _walk(key, (*path, KEYS), out, seen)
        _walk(value, (*path, VALUES), out, seen)
    elif origin is Literal:
        return
    elif isinstance(tp, type) and issubclass(tp, BaseModel) and tp not in seen:
        hints = get_type_hints(tp, include_extras=True)
        for name in tp.model_fields:
            _walk(hints[name], (*path, name), out, seen | {tp})


@cache
def string_leaves(model: type[BaseModel]) -> tuple[tuple[TextPath, Any, bool], ...]:
    """Every string-valued place in ``model``: ``(path, annotation, is_free_text)``."""
    out: list[tuple[TextPath, Any, bool]] = []
    _walk(model, (), out, frozenset())
    return tuple(out)


@cache
def text_paths(model: type[BaseModel]) -> tuple[TextPath, ...]:
    """Paths of every free-text field of ``model`` (marked with :class:`FreeText`), in field order."""
    return tuple(dict.fromkeys(path for path, _, is_text in string_leaves(model) if is_text))


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
