"""Request bodies read safely: after the credential check, as a counted stream, parsed without surprises.

A route reads its body only once the request's credential (a header) has passed, so a client
without one never makes the server hold a byte of its body. :func:`read_body` counts bytes as
they arrive and stops at the route's limit (413), whatever ``Content-Length`` claims or when
there is none (chunked). :func:`parse_json` refuses what the standard library would turn into a
crash or into a value no route can use: an integer longer than :data:`MAX_INT_DIGITS` digits
(Python refuses to convert beyond 4,300 digits with a ``ValueError``), ``NaN``, ``Infinity`` and
floats that overflow. The refusal is a 422 naming the field (``action.unit_price``).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError

from .records import RemoteError

MAX_INT_DIGITS = 40
"""Longest integer a body may hold (money in cents and seeds need 19 digits at most)."""
BODY_DONE = "acworld.body_done"
"""Scope key set once a route has read its whole body (a refusal before that closes the connection)."""


class _Unusable:
    """A number :func:`parse_json` will refuse, kept in place so the refusal can name its field."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


def too_large(limit: int, size: str = "more than that") -> RemoteError:
    """The 413 of a body over ``limit`` bytes."""
    return RemoteError(413, "body_too_large", f"request body of {size} bytes; the limit is {limit}")


async def read_body(request: Any, limit: int) -> bytes:
    """The request's body, read as a stream and never past ``limit`` bytes (413 beyond)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        declared = declared.strip()
        if not declared.isdigit():
            raise RemoteError(400, "malformed_body", "Content-Length is not a number of bytes")
        if len(declared) > 15 or int(declared) > limit:
            raise too_large(limit, declared if len(declared) <= 15 else "more than 10**15")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large(limit)
    request.scope[BODY_DONE] = True
    return bytes(body)


def _int(text: str) -> int | _Unusable:
    digits = len(text) - (text[0] == "-")
    return _Unusable(f"an integer of {digits} digits (at most {MAX_INT_DIGITS})") if digits > MAX_INT_DIGITS \
        else int(text)


def _float(text: str) -> float | _Unusable:
    value = float(text)
    return _Unusable("a number too large for a float") if value in (float("inf"), float("-inf")) else value


def _constant(text: str) -> _Unusable:
    return _Unusable(f"{text} (not a JSON number)")


def _find(value: Any, path: str) -> tuple[str, str] | None:
    if isinstance(value, _Unusable):
        return path or "body", value.why
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, sub in items:
        found = _find(sub, f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key)))
        if found is not None:
            return found
    return None


def parse_json(body: bytes) -> Any:
    """The JSON value of ``body``: 400 when it is not JSON, 422 naming the field of an unusable number."""
    if not body.strip():
        return None
    flagged: list[bool] = []

    def mark(parse: Any) -> Any:
        def inner(text: str) -> Any:
            value = parse(text)
            if isinstance(value, _Unusable):
                flagged.append(True)
            return value
        return inner

    try:
        data = json.loads(body, parse_int=mark(_int), parse_float=mark(_float), parse_constant=mark(_constant))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise RemoteError(400, "malformed_body", f"request body is not valid JSON: {str(exc)[:200]}") from None
    if flagged:
        try:
            found = _find(data, "")
        except RecursionError:
            found = None
        where, why = found if found is not None else ("body", "an unusable number")
        raise RemoteError(422, "bad_request", f"{where}: {why}")
    return data


def field_path(loc: tuple[Any, ...]) -> str:
    """``("tasks", 0, "task_id")`` -> ``tasks[0].task_id``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "body"


def parse_model(model: type[BaseModel], data: Any) -> Any:
    """``data`` validated as ``model``; a 422 naming the first wrong field otherwise."""
    if data is None:
        data = {}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_input=False)[0]
        raise RemoteError(422, "bad_request", f"{field_path(tuple(first['loc']))}: {first['msg']}") from None
