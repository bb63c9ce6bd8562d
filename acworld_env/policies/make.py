"""Build a policy from the name a task gives it: :func:`make_policy`.

The name table, :data:`~acworld_env.tasks.names.POLICIES`, lives in the tasks layer, so that
task families register their reference and counterparty policies without importing this layer.
This module adds the general-purpose policies of this layer to it by ``"module:attr"`` path
(imported on first use, so the mutation policies, which build their base policy here, import
this module and not the other way round), and on the first unknown name imports the task
families and the baselines so that theirs are registered too.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..tasks.names import POLICIES

POLICIES.update({
    "scripted_merchant": "acworld_env.policies.negotiators:ScriptedMerchant",
    "scripted_buyer": "acworld_env.policies.negotiators:ScriptedBuyer",
    "fixed": "acworld_env.policies.base:FixedPolicy",
    "prepend": "acworld_env.policies.mutants:PrependPolicy",
    "append": "acworld_env.policies.mutants:AppendPolicy",
})


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
    constructor = POLICIES[name]
    if isinstance(constructor, str):
        module, _, attr = constructor.partition(":")
        constructor = POLICIES[name] = getattr(importlib.import_module(module), attr)
    return constructor(**params)


def _load_builtin_families() -> None:
    """Import task families (their reference and counterparty policies) and the baselines so they register."""
    from ..tasks import families  # noqa: F401
    from . import baselines  # noqa: F401
