"""Errors raised by the catalog layer.

:class:`CatalogError` covers files: missing, not a catalog, a content hash that does
not match, a build that cannot proceed. :class:`CatalogQueryError` covers a search
request that cannot be answered; it carries a stable machine-readable ``code`` so
the platform can turn it into a structured rejection instead of a traceback.
"""

from __future__ import annotations

from ..core.errors import AcworldError

QUERY_ERROR_CODES: dict[str, str] = {
    "unknown_field": "the query names a field that does not exist",
    "bad_page": "page must be an integer from 1 to 10,000",
    "bad_page_size": "page_size must be an integer from 1 to 50",
    "bad_sort": "sort must be relevance, price_asc, price_desc or rating_desc",
    "bad_range": "a minimum is greater than its maximum, or a bound is negative",
    "bad_text": "the text query is too long",
    "bad_value": "a field has a value of the wrong type or out of range",
}
"""Every code :class:`CatalogQueryError` may carry, with its meaning."""


class CatalogError(AcworldError):
    """A catalog file cannot be opened, verified or built."""


class CatalogQueryError(CatalogError):
    """A search query is invalid. ``code`` is one of :data:`QUERY_ERROR_CODES`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """The error as a JSON-ready result: ``{"code": ..., "message": ...}``."""
        return {"code": self.code, "message": self.message}
