"""Prices as integer minor units, per ISO 4217 currency exponent.

Shopify storefront and Admin exports give prices as decimal strings in major units
("24.99"); ``/products/<handle>.js`` gives integers in hundredths of the major unit
whatever the currency. Both are converted here, exactly (``Decimal``, half-up), so no
float ever carries money.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

ZERO_DECIMAL = frozenset(
    ["BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF"]
)
THREE_DECIMAL = frozenset(["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"])


class PriceError(ValueError):
    """A price that cannot be read as a number."""


def exponent(currency: str) -> int:
    """Number of minor-unit digits of ``currency`` (2 unless ISO 4217 says otherwise)."""
    code = currency.upper()
    if code in ZERO_DECIMAL:
        return 0
    if code in THREE_DECIMAL:
        return 3
    return 2


def is_currency_code(text: str) -> bool:
    """True for a plausible ISO 4217 code: three ASCII capitals."""
    return len(text) == 3 and text.isascii() and text.isalpha() and text.isupper()


def _to_minor(amount: Decimal, currency: str) -> int:
    scaled = amount.scaleb(exponent(currency)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return int(scaled)


def major_to_minor(value: str | int | float, currency: str) -> int:
    """Convert a major-unit amount ("24.99", 24.99, 25) to minor units of ``currency``."""
    if isinstance(value, bool):
        raise PriceError(f"not a price: {value!r}")
    try:
        amount = Decimal(str(value).strip().replace(",", "")) if isinstance(value, str) else Decimal(str(value))
    except InvalidOperation:
        raise PriceError(f"not a price: {value!r}") from None
    if not amount.is_finite():
        raise PriceError(f"not a price: {value!r}")
    return _to_minor(amount, currency)


def cents_to_minor(value: int, currency: str) -> int:
    """Convert Shopify ``.js`` hundredths (always two digits) to minor units of ``currency``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise PriceError(f"not an integer price: {value!r}")
    return _to_minor(Decimal(value).scaleb(-2), currency)


def format_money(minor: int, currency: str) -> str:
    """Human form of a minor-unit amount: ``format_money(2499, "USD") == "24.99 USD"``."""
    exp = exponent(currency)
    if exp == 0:
        return f"{minor} {currency}"
    sign = "-" if minor < 0 else ""
    whole, frac = divmod(abs(minor), 10**exp)
    return f"{sign}{whole}.{frac:0{exp}d} {currency}"
