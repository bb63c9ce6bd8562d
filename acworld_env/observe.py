"""Role-private observations: what one actor may see, as structured data and as text for LLMs."""

from __future__ import annotations

import json
from json.encoder import c_make_encoder, encode_basestring
from typing import TYPE_CHECKING, Any

from .core.money import format_money

if TYPE_CHECKING:
    from .market import Market, StepResult


def observe(market: Market, actor: str, *, request: str, last: StepResult | None, step: int,
            max_steps: int) -> dict[str, Any]:
    """Build ``actor``'s observation: only its own mandate, unread inbox and results. Changes nothing."""
    unread = market.unread(actor)  # copied once below, without the read flag
    return {
        "actor": actor,
        "role": market.role(actor)._value_,  # ``.value`` without the enum's Python-level descriptor
        "round": market.round,
        "step": step,
        "max_steps": max_steps,
        "request": request,
        "mandate": market.mandates.get(actor, {}),
        "inbox": [{k: v for k, v in m.items() if k != "read"} for m in unread],
        "last_result": last.to_dict() if last is not None else None,
        "balance": market.world.state["actors"][actor]["balance"],
    }


def with_hints(raw: dict[str, Any], task: Any, mode: str) -> dict[str, Any]:
    """``raw`` plus, in ``"structured"`` mode and for the task's evaluated actor only, ``hints``: the
    requirements the task's scorer parsed from the request (``task.oracle["hints"]``). Off by default."""
    if mode == "structured" and raw.get("actor") == task.actor:
        raw["hints"] = json.loads(json.dumps(task.oracle.get("hints") or {}))
    return raw


_BRIEF_DROP = ("description", "url", "product_id", "currency", "tags", "status")
"""Listing fields left out of search-result lines (``get_listing`` shows the whole record)."""
_DROPPED = frozenset(_BRIEF_DROP)
_EMPTY = (None, {}, [])
"""Values left out of search-result lines. (Made once: written inside the loop, the tuple with a new dict and
list in it was built again for every field of every hit, half the time of a search result's compacting.)"""


def compact_result(result: Any) -> Any:
    """A result as an agent should read it: search hits without their long or empty fields."""
    if isinstance(result, dict) and isinstance(result.get("items"), list):
        items = [{k: v for k, v in item.items() if k not in _DROPPED and v not in _EMPTY}
                 if isinstance(item, dict) else item for item in result["items"]]
        return {**result, "items": items}
    return result


_RESULT_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False)
"""``json.dumps(value, sort_keys=True, ensure_ascii=False)``, made once (``dumps`` builds one per call)."""


_MARKERS: dict[int, Any] = {}
"""The circular-reference marks of :data:`_RESULT_C` (empty between calls; cleared if a call fails)."""
_RESULT_C = None if c_make_encoder is None else c_make_encoder(
    _MARKERS, _RESULT_ENCODER.default, encode_basestring, _RESULT_ENCODER.indent, _RESULT_ENCODER.key_separator,
    _RESULT_ENCODER.item_separator, _RESULT_ENCODER.sort_keys, _RESULT_ENCODER.skipkeys, _RESULT_ENCODER.allow_nan)
"""The C encoder ``_RESULT_ENCODER.encode`` builds on every call, built once (most results are a few bytes,
where building it was most of the cost)."""


def _result_json(value: Any) -> str:
    """``_RESULT_ENCODER.encode(value)``, by the encoder built once.

    Marks left in :data:`_MARKERS` mean a call is under way in another thread (the C encoder runs
    Python code, and so lets another thread in, only inside a container it has marked): that call
    keeps the shared encoder and this one builds its own, as ``encode`` does.
    """
    if _RESULT_C is None or _MARKERS or isinstance(value, str):
        return _RESULT_ENCODER.encode(value)
    try:
        return "".join(_RESULT_C(value, 0))
    except BaseException:
        _MARKERS.clear()  # a failed call may leave marks behind; the next call starts clean, as a new encoder would
        raise


def _short(value: Any, limit: int = 16000) -> str:
    text = _result_json(value)
    return text if len(text) <= limit else text[: limit - 20] + f"... ({len(text)} chars)"


def render_text(obs: dict[str, Any]) -> str:
    """The observation as plain text: request, inbox, last result."""
    lines = [
        f"You are {obs['actor']}, a {obs['role']} in an online marketplace. "
        f"Round {obs['round']}, step {obs['step']} of {obs['max_steps']}. "
        f"Your balance: {format_money(obs['balance'])}. All amounts are in cents.",
        "",
        "Your request:",
        obs["request"],
    ]
    if obs["inbox"]:
        lines += ["", "New in your inbox:"]
        for m in obs["inbox"]:
            extra = "".join(f" [{k}={m[k]}]" for k in ("thread_id", "order_id", "event_id", "in_reply_to")
                            if m.get(k))
            lines.append(f"- {m['message_id']} from {m['from']} ({m['kind']}){extra}: {m['text']}")
    last = obs.get("last_result")
    if last:
        lines += ["", f"Result of your last action ({last['kind']}):"]
        if last["accepted"]:
            lines.append(f"accepted{' (replayed)' if last['replayed'] else ''}: "
                         f"{_short(compact_result(last['result']))}")
        else:
            lines.append(f"REJECTED [{last['code']}]: {last['message']}")
    return "\n".join(lines)
