"""Prices as integer minor units, per ISO 4217 currency exponent.

Shopify storefront and Admin exports give prices as decimal strings in major units
("24.99"); ``/products/<handle>.js`` gives integers in hundredths of the major unit
whatever the currency. Both are converted here, exactly (``Decimal``, half-up), so no
float ever carries money.

Price text is read in the forms stores write, and nothing else (a price that cannot be
read for sure raises :class:`PriceError`, so the record is dropped, never stored wrong):

* plain decimals: ``24.99``, ``24.9``, ``7``;
* US thousands: ``1,299`` and ``1,299.50`` (a comma followed by exactly three digits is a
  thousands separator, so ``12,999`` is twelve thousand);
* European: ``12,99`` and ``0,5`` (a comma followed by one or two digits is the decimal
  mark), ``1.299,00``, ``1.299.000``, ``1 299,00`` (space, no-break space or ``'`` groups);
* ``1.299`` (one dot, three digits after it) is ambiguous, a decimal point or a European
  thousands dot, and raises, except in three-decimal currencies (KWD, BHD, ...).

Exponent notation (``1e30``), ``NaN``/``Infinity``, underscores, and amounts of
:data:`MAX_MINOR` minor units or more raise.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from ..core.errors import AcworldError
from ..core.money import exponent

MAX_MINOR = 10**13
"""Amounts of this many minor units or more are not believed (and would not fit the columns)."""

_PLAIN = re.compile(r"\d+(?:\.\d+)?|\.\d+")
_US = re.compile(r"[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?")
_EU_DECIMAL = re.compile(r"\d+,\d{1,2}|[1-9]\d{0,2}(?:\.\d{3})+,\d+")
_EU_GROUPS = re.compile(r"[1-9]\d{0,2}(?:\.\d{3}){2,}")
_SPACED = re.compile(r"[1-9]\d{0,2}(?:[ \u00a0\u202f']\d{3})+(?:[.,]\d{1,2})?")
_AMBIGUOUS = re.compile(r"[1-9]\d{0,2}\.\d{3}")


class PriceError(AcworldError, ValueError):
    """A price that cannot be read as a number."""


def is_currency_code(text: str) -> bool:
    """True for a plausible ISO 4217 code: three ASCII capitals."""
    return len(text) == 3 and text.isascii() and text.isalpha() and text.isupper()


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}...({len(text)} chars)"


def check_minor(minor: int, raw: object = None) -> int:
    """``minor`` if it is below :data:`MAX_MINOR` in size, else :class:`PriceError`."""
    if abs(minor) >= MAX_MINOR:
        raise PriceError(f"price too large: {_shown(minor if raw is None else raw)}")
    return minor


def _to_minor(amount: Decimal, currency: str, raw: object) -> int:
    scaled = amount.scaleb(exponent(currency))
    if abs(scaled) >= MAX_MINOR:
        raise PriceError(f"price too large: {_shown(raw)}")
    return int(scaled.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def decimal_text(text: str, currency: str) -> Decimal:
    """The amount a price string means (US or European form, see the module docstring)."""
    s = text.strip()
    sign = ""
    if s[:1] in ("-", "+"):
        sign, s = s[0], s[1:].lstrip()
    if _AMBIGUOUS.fullmatch(s) and exponent(currency) != 3:
        raise PriceError(f"ambiguous price {text!r}: a decimal point or a thousands separator?")
    if _PLAIN.fullmatch(s):
        plain = s
    elif _US.fullmatch(s):
        plain = s.replace(",", "")
    elif _EU_DECIMAL.fullmatch(s):
        plain = s.replace(".", "").replace(",", ".")
    elif _EU_GROUPS.fullmatch(s):
        plain = s.replace(".", "")
    elif _SPACED.fullmatch(s):
        plain = re.sub(r"[ \u00a0\u202f']", "", s).replace(",", ".")
    else:
        raise PriceError(f"not a price: {_shown(text)}")
    return Decimal(sign + plain)


def major_to_minor(value: str | int | float, currency: str) -> int:
    """Convert a major-unit amount ("24.99", "12,99", 24.99, 25) to minor units of ``currency``."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise PriceError(f"not a price: {_shown(value)}")
    if isinstance(value, str):
        amount = decimal_text(value, currency)
    else:
        try:
            amount = Decimal(value) if isinstance(value, int) else Decimal(str(value))
        except (InvalidOperation, ValueError):
            raise PriceError(f"not a price: {_shown(value)}") from None
    if not amount.is_finite():
        raise PriceError(f"not a price: {_shown(value)}")
    return _to_minor(amount, currency, value)


def cents_to_minor(value: int, currency: str) -> int:
    """Convert Shopify ``.js`` hundredths (always two digits) to minor units of ``currency``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise PriceError(f"not an integer price: {_shown(value)}")
    return _to_minor(Decimal(value).scaleb(-2), currency, value)

