"""The single discriminated union of every VCP action, and tolerant parsing into it."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter, ValidationError

from .aftersales import AFTERSALES
from .authoring import AUTHORING
from .base import Role, VCPAction
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

Action = Annotated[Union[ACTION_TYPES], Field(discriminator="kind")]  # noqa: UP007
ACTION_ADAPTER: TypeAdapter[VCPAction] = TypeAdapter(Action)

MAX_ACTION_BYTES = 16_384


@dataclass(frozen=True, slots=True)
class ParseError:
    """Why a proposed action could not be read; becomes a recorded rejection."""

    code: str
    message: str


def tools_for(role: Role | str) -> list[type[VCPAction]]:
    """The action types a role may use, queries first."""
    role = Role(role)
    return [t for t in ACTION_TYPES if role in t.roles]


def _has_bad_number(obj: Any) -> bool:
    if isinstance(obj, float):
        return math.isnan(obj) or math.isinf(obj)
    if isinstance(obj, dict):
        return any(_has_bad_number(v) for v in obj.values())
    if isinstance(obj, list):
        return any(_has_bad_number(v) for v in obj)
    return False


def _unencodable(obj: Any) -> ParseError | None:
    """Why ``obj`` cannot become canonical JSON (deep nesting, non-string keys, invalid text, too
    large), or None."""
    try:
        size = len(json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8"))
    except RecursionError:
        return ParseError("malformed_action", "action is nested too deeply")
    except UnicodeEncodeError:
        return ParseError("invalid_text", "action text is not valid Unicode (lone surrogate)")
    except (TypeError, ValueError) as exc:
        return ParseError("malformed_action", f"action is not a JSON object with string keys ({exc})")
    if size > MAX_ACTION_BYTES:
        return ParseError("oversized", f"action exceeds {MAX_ACTION_BYTES} bytes")
    return None


def parse_action(raw: Any) -> VCPAction | ParseError:
    """Read an action given as a model, a dict or a JSON string. Never raises."""
    if isinstance(raw, VCPAction):
        problem = _unencodable(raw.model_dump(mode="json"))
        return raw if problem is None else problem
    if isinstance(raw, bytes | bytearray):
        raw = raw.decode("utf-8", errors="replace")
    if isinstance(raw, str):
        if len(raw) > MAX_ACTION_BYTES:
            return ParseError("oversized", f"action is {len(raw)} characters; the limit is {MAX_ACTION_BYTES}")
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            return ParseError("malformed_json", f"action is not valid JSON: {exc.msg} at position {exc.pos}")
        except RecursionError:
            return ParseError("malformed_json", "action is nested too deeply")
    if not isinstance(raw, dict):
        return ParseError("malformed_action", f"an action must be a JSON object, got {type(raw).__name__}")
    problem = _unencodable(raw)
    if problem is not None:
        return problem
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in TOOLS:
        return ParseError("unknown_tool", f"unknown action kind {kind!r}")
    if _has_bad_number(raw):
        return ParseError("bad_number", "NaN or infinite numbers are not allowed")
    try:
        return ACTION_ADAPTER.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or kind
        code = "oversized" if first["type"] in {"string_too_long", "too_long"} else "invalid_field"
        if first["type"] == "missing":
            code = "missing_field"
        elif first["type"] == "extra_forbidden":
            code = "unknown_field"
        elif where in {"amount", "unit_price", "price", "total", "min_price", "max_price"}:
            code = "bad_money"
        return ParseError(code, f"{kind}: {where}: {first['msg']}")
