"""Plain helpers of the remote tests (fixtures live in conftest.py; tests import helpers from here, since
another folder's ``conftest`` module may be the one imported under that name in a whole-suite run)."""

from __future__ import annotations


def bearer(token: str) -> dict[str, str]:
    """The ``Authorization`` header carrying ``token``."""
    return {"Authorization": f"Bearer {token}"}
