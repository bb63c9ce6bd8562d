"""Policies by name, so tasks (which are data) can name their counterparties and references."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.name_tables import register_in
from .base import FixedPolicy
from .mutants import AppendPolicy, PrependPolicy
from .negotiators import ScriptedBuyer, ScriptedMerchant

PolicyFactory = Callable[..., Any]
POLICIES: dict[str, PolicyFactory] = {
    "scripted_merchant": ScriptedMerchant,
    "scripted_buyer": ScriptedBuyer,
    "fixed": FixedPolicy,
    "prepend": PrependPolicy,
    "append": AppendPolicy,
}


def register_policy(name: str) -> Callable[[PolicyFactory], PolicyFactory]:
    """Register a policy factory under ``name`` (third-party packages may add their own)."""
    return register_in(POLICIES, name)


def make_policy(ref: Any) -> Any:
    """Build a policy from a ``PolicyRef``, a ``{"name":..., "params":...}`` dict or a bare name."""
    if isinstance(ref, str):
        name, params = ref, {}
    elif isinstance(ref, dict):
        name, params = ref["name"], ref.get("params", {})
    else:
        name, params = ref.name, ref.params
    if name not in POLICIES:
        _load_builtin_families()
    if name not in POLICIES:
        raise KeyError(f"unknown policy {name!r}; known: {', '.join(sorted(POLICIES))}")
    return POLICIES[name](**params)


def _load_builtin_families() -> None:
    """Import task families (their reference and counterparty policies) and the baselines so they register."""
    from ..tasks import families  # noqa: F401
    from . import baselines  # noqa: F401
