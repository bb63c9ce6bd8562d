"""What a call cost: a small table of list prices in USD per million tokens.

Prices are the providers' published standard (non-batch, uncached) rates at the time of
writing; they change, so treat the figures as estimates and pass ``price`` to
:func:`policy_from_spec` to override. A model not in the table has cost ``None``
(unknown), never a guess. Dated snapshots (``gpt-4o-2024-08-06``,
``claude-sonnet-4-20250514``) and ``-latest`` aliases take their family's price.
"""

from __future__ import annotations

import re

Price = tuple[float, float]
"""(input, output) USD per 1M tokens."""

PRICES: dict[str, dict[str, Price]] = {
    "openai": {
        "gpt-4o": (2.50, 10.00),
        "gpt-4o-mini": (0.15, 0.60),
        "gpt-4.1": (2.00, 8.00),
        "gpt-4.1-mini": (0.40, 1.60),
        "gpt-4.1-nano": (0.10, 0.40),
        "o3": (2.00, 8.00),
        "o3-mini": (1.10, 4.40),
        "o4-mini": (1.10, 4.40),
        "gpt-5": (1.25, 10.00),
        "gpt-5-mini": (0.25, 2.00),
        "gpt-5-nano": (0.05, 0.40),
    },
    "anthropic": {
        "claude-3-5-haiku": (0.80, 4.00),
        "claude-3-5-sonnet": (3.00, 15.00),
        "claude-3-7-sonnet": (3.00, 15.00),
        "claude-sonnet-4": (3.00, 15.00),
        "claude-sonnet-4-5": (3.00, 15.00),
        "claude-opus-4": (15.00, 75.00),
        "claude-opus-4-1": (15.00, 75.00),
        "claude-haiku-4-5": (1.00, 5.00),
    },
}

_SNAPSHOT = re.compile(r"^(-\d{4}-\d{2}-\d{2}|-\d{8}|-latest)?$")


def price_of(provider: str, model: str) -> Price | None:
    """The table price of ``model``, or None when unknown.

    ``openai-compatible`` endpoints serve models under local names, so they are never
    priced from the table.
    """
    table = PRICES.get(provider)
    if not table:
        return None
    name = model.strip().lower()
    for family in sorted(table, key=len, reverse=True):
        if name.startswith(family) and _SNAPSHOT.match(name[len(family):]):
            return table[family]
    return None


def cost_usd(price: Price | None, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """Cost of one call, rounded to 1e-8 USD; None when the price or the usage is unknown."""
    if price is None or input_tokens is None or output_tokens is None:
        return None
    return round((input_tokens * price[0] + output_tokens * price[1]) / 1_000_000, 8)
