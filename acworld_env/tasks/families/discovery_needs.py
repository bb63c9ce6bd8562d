"""T1 needs as data: check one against a listing record, and turn the filterable ones into a query.

A need is a JSON dict (see :mod:`.discovery_vocab`). The reference policy checks needs against
the records it read; the builder checks them over the whole catalog; ``hints="structured"``
shows them to a learner as ``filters`` (a ready search query) plus ``checks`` (what only the
full listing record can confirm).
"""

from __future__ import annotations

from typing import Any

UNFILTERABLE_FIELDS = ("description", "review_count")
"""Fields no search filter can express (a description feature, a count of reviews)."""


def filterable(need: dict[str, Any]) -> bool:
    """Whether a search filter can express the need."""
    return need["field"] not in UNFILTERABLE_FIELDS


def _value(record: dict[str, Any], field: str) -> Any:
    node: Any = record
    for part in field.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def satisfies(record: dict[str, Any], need: dict[str, Any]) -> bool:
    """Whether a listing record (a search hit or ``get_listing`` result) meets the need."""
    got, want, op = _value(record, need["field"]), need["value"], need["op"]
    if got is None:
        return False
    if op == "has":
        return str(want).casefold() in str(got).casefold()
    if op in {"min", "max"}:
        if isinstance(got, bool) or not isinstance(got, int | float):
            return False
        return got >= want if op == "min" else got <= want
    if isinstance(want, bool) or isinstance(got, bool):
        return got is want
    if isinstance(want, str) and isinstance(got, str):
        return got.strip().casefold() == want.strip().casefold()
    return bool(got == want)


def to_query(base: dict[str, Any], needs: list[dict[str, Any]]) -> dict[str, Any]:
    """``base`` (category, product type, stock, budget) plus every filterable need, as a search query."""
    q: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for need in needs:
        if not filterable(need):
            continue
        field, op, value = need["field"], need["op"], need["value"]
        group, _, key = field.partition(".")
        if field == "rating":
            q["min_rating"] = value
        elif field == "price":
            q["max_price"] = value
        elif not key:
            q[field] = value
        elif op == "eq":
            q.setdefault(group, {})[key] = value
        else:
            bound = q.setdefault(group, {}).setdefault(key, {})
            bound["min" if op == "min" else "max"] = value
    return q


def unit_price_key(record: dict[str, Any], unit: str) -> tuple[float, str]:
    """Sort key of a listing by price per unit (e.g. per gram); ties by listing id."""
    amount = _value(record, unit)
    per = record["price"] / amount if isinstance(amount, int | float) and amount > 0 else float("inf")
    return per, str(record.get("listing_id", ""))
