"""Money as text: the one formatter of integer minor units, and ISO 4217 exponents.

Money is integer minor units everywhere (cents for the market's own dollar amounts); no float
ever carries it. Every readable amount (observations, transcripts, platform notices, task
requests, catalog listings) is written by :func:`format_money`.
"""

from __future__ import annotations

from .errors import AcworldError

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


class PriceError(AcworldError, ValueError):
    """A price typed on the command line that is not an amount."""


def parse_price(text: str) -> int:
    """A price as people type it, in cents: dollars ``50``, ``50.00``, ``$49.99``, or explicit cents ``5000c``.

    One convention for every command that takes a price: a bare number is dollars (at most two
    decimals); a trailing ``c`` marks whole cents. Raises :class:`PriceError` with a clear message.
    """
    raw = text.strip().replace(",", "").replace("_", "")
    try:
        if raw.lower().endswith("c"):
            digits = raw[:-1].strip()
            if not digits.isdigit():
                raise PriceError
            return int(digits)
        body = raw[1:] if raw.startswith("$") else raw
        whole, _, frac = body.partition(".")
        whole_ok = whole.isdigit() or (whole == "" and frac != "")
        frac_ok = frac == "" or (frac.isdigit() and len(frac) <= 2)
        if not (whole_ok and frac_ok):
            raise PriceError
        return int(whole or 0) * 100 + int(frac.ljust(2, "0"))
    except PriceError:
        raise PriceError(f"{text!r} is not a price: write dollars (50, 50.00, $49.99) or cents with a c "
                         "(4999c)") from None
