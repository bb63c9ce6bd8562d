"""Money as text: the one formatter of integer minor units, and ISO 4217 exponents.

Money is integer minor units everywhere (cents for the market's own dollar amounts); no float
ever carries it. Every readable amount (observations, transcripts, platform notices, task
requests, catalog listings) is written by :func:`format_money`.
"""

from __future__ import annotations

ZERO_DECIMAL = frozenset(
    ["BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF"]
)
THREE_DECIMAL = frozenset(["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"])


def exponent(currency: str) -> int:
    """Number of minor-unit digits of ``currency`` (2 unless ISO 4217 says otherwise)."""
    code = currency.upper()
    if code in ZERO_DECIMAL:
        return 0
    if code in THREE_DECIMAL:
        return 3
    return 2


def format_money(minor: int, currency: str | None = None, *, trim_zero_cents: bool = False) -> str:
    """Human form of an amount in minor units.

    With a currency (catalog listings): ``format_money(2499, "USD") == "24.99 USD"``,
    ``format_money(4280, "JPY") == "4280 JPY"``. Without one, the market's dollars:
    ``format_money(9550) == "$95.50"``; ``trim_zero_cents=True`` writes a whole-dollar amount
    as task requests do, ``"$95"`` (and ``"$95.50"`` still for 9550).
    """
    if currency is not None:
        exp = exponent(currency)
        if exp == 0:
            return f"{minor} {currency}"
        sign = "-" if minor < 0 else ""
        whole, frac = divmod(abs(minor), 10**exp)
        return f"{sign}{whole}.{frac:0{exp}d} {currency}"
    if trim_zero_cents and minor % 100 == 0:
        return f"${minor // 100}"
    return f"${minor // 100}.{minor % 100:02d}"
