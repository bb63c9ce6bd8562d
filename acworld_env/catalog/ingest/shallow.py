"""Reading a JSON document that Python's reader refuses as nested too deeply, one record at a time.

A dump of a thousand good products and one record nested thousands of levels deep should lose
that one record, counted with its position, not the whole file. :func:`loads_shallow` cuts every
value nested deeper than :data:`MAX_DEPTH` out of the text (an iterative scan, so it cannot
exhaust the stack), puts :data:`TOO_DEEP` in its place and reads the rest; :func:`holds_cut`
then tells which records lost a part, so the reader drops them with their index.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
"""Deepest nesting kept (the document itself is level 1); real storefront dumps need fewer than 10."""
TOO_DEEP = "\x00nested-too-deeply\x00"
"""What a cut value reads as (a string no storefront writes)."""
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


def cut_deep(text: str, max_depth: int = MAX_DEPTH) -> str:
    """``text`` with every value opened deeper than ``max_depth`` replaced by the JSON string :data:`TOO_DEEP`.

    Strings are skipped whole, so brackets inside them do not count. Unbalanced text stays
    unbalanced (the JSON reader then says where).
    """
    out: list[str] = []
    depth, start, pos = 0, -1, 0
    marker = json.dumps(TOO_DEEP)
    for m in _TOKENS.finditer(text):
        token = m.group()
        if token[0] == '"':
            continue
        if token in "[{":
            depth += 1
            if depth == max_depth + 1 and start < 0:
                start = m.start()
        else:
            if depth == max_depth + 1 and start >= 0:
                out += [text[pos:start], marker]
                pos, start = m.end(), -1
            depth -= 1
    out.append(text[pos:])
    return "".join(out)


def loads_shallow(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` of :func:`cut_deep` ``(text)``: raises ``ValueError`` for text that is not JSON."""
    return json.loads(cut_deep(text, max_depth))


def holds_cut(value: Any) -> bool:
    """Whether a value read by :func:`loads_shallow` lost a part that was nested too deeply."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item == TOO_DEEP:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
