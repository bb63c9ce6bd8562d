"""What identifies an action when telling repeats apart: its ids, figures and words, not its wording.

A menu's action and the recorded form of the same action (fields at their defaults left out, mappings in
key order) have the same :func:`signature`, so the env's memory (recorded actions) and a policy's own (its
menu actions) agree on what was accepted or rejected before.
"""

from __future__ import annotations

from typing import Any

_SIG_FIELDS = ("kind", "listing_id", "thread_id", "order_id", "payment_id", "event_id", "return_id", "dispute_id",
               "quote_id", "request_id", "shipment_id", "review_id", "unit_price", "price", "amount", "quantity",
               "verdict", "text", "category", "sort", "to", "merchant_id", "lines", "answer", "total")
_NO = object()
_DEFAULTS: dict[str, Any] = {"sort": "relevance", "quantity": 1}
"""Fields whose default value the recorded action spells out and a menu action may leave out."""


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((str(k), _plain(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_plain(v) for v in value)
    return value


def signature(action: dict[str, Any]) -> str:
    """What identifies an action when telling repeats apart (ids, figures, words; not its wording).

    The same for a menu's action and the recorded form of it (fields at their defaults left out, mappings
    in key order), so the env's memory (recorded actions) and a policy's own (its menu actions) agree."""
    return repr(tuple((k, _plain(action[k])) for k in _SIG_FIELDS
                      if action.get(k) is not None and _DEFAULTS.get(k, _NO) != action[k]))
