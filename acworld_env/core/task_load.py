"""Reading tasks written by users (JSON text, dicts, JSONL files): every problem is one :class:`TaskError`
naming where it was read (file and line), the task id and the field path, never a raw ``ValueError``,
``KeyError`` or a pydantic error without the task.

The fast path is pydantic's own JSON reader (frozen suites are read this way); only a task that fails
is read again, with Python's reader and bounded numbers, to name its task and field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .task_checks import MAX_TASK_INT
from .taskspec import TaskError, TaskSpec, field_path

MAX_INT_DIGITS = len(str(MAX_TASK_INT)) + 1
"""Digits beyond which an integer is not even converted (it is out of range anyway)."""
_OUT_OF_RANGE = MAX_TASK_INT * 10
"""What an over-long integer reads as: a value that the range check then names, with its field."""


def _bounded_int(text: str) -> int:
    return _OUT_OF_RANGE if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


def _task_id(data: Any) -> str | None:
    raw = data.get("task_id") if isinstance(data, Mapping) else None
    return raw if isinstance(raw, str) else None


def as_task_error(exc: ValidationError, data: Any, source: str = "") -> TaskError:
    """The :class:`TaskError` a validation error of ``data`` stands for (task id, field path, reason)."""
    first = exc.errors(include_input=False)[0]
    ctx = first.get("ctx") or {}
    if "field" in ctx and "message" in ctx:
        return TaskError(ctx.get("task_id"), ctx["field"], ctx["message"], source=source)
    message = "missing required field" if first["type"] == "missing" else first["msg"]
    return TaskError(_task_id(data), field_path(tuple(first["loc"])), message, source=source)


def task_from_data(data: Any, *, source: str = "") -> TaskSpec:
    """A task from a dict (or a :class:`TaskSpec`, checked again); :class:`TaskError` names what is wrong."""
    if isinstance(data, TaskSpec):
        data = data.model_dump(mode="python")
    if not isinstance(data, Mapping):
        raise TaskError(None, "(task)", f"a task is a JSON object, not {type(data).__name__}", source=source)
    try:
        return TaskSpec.model_validate(data)
    except ValidationError as exc:
        raise as_task_error(exc, data, source) from None
    except RecursionError:
        raise TaskError(_task_id(data), "(task)", "nested too deeply", source=source) from None


def task_from_json(text: str | bytes, *, source: str = "") -> TaskSpec:
    """A task from JSON text (a task file, a suite line); :class:`TaskError` names what is wrong."""
    try:
        return TaskSpec.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors(include_input=False)[0]
        if "field" in (first.get("ctx") or {}):
            raise as_task_error(exc, None, source) from None
    try:
        data = json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise TaskError(None, "(json)", f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                        source=source) from None
    except RecursionError:
        raise TaskError(None, "(json)", "not valid JSON: nested too deeply", source=source) from None
    except ValueError as exc:
        raise TaskError(None, "(json)", f"not valid JSON: {str(exc)[:200]}", source=source) from None
    return task_from_data(data, source=source)


def read_task_lines(path: str | Path) -> list[TaskSpec]:
    """Every task of a JSONL file (one task per line; blank lines skipped).

    :class:`TaskError` for an unreadable file or the first bad line, with ``source`` = ``path: line N``.
    """
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskError(None, "(file)", f"cannot read the task file: {exc}", source=str(p)) from None
    return [task_from_json(line, source=f"{p}: line {n}") for n, line in enumerate(lines, start=1) if line.strip()]
