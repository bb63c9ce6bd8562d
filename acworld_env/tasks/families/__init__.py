"""Task families. Importing this package registers every family's builder, policies and shortcuts.

A family is one module with ``build(seed, frozen) -> list[TaskSpec]`` registered with
``@register_family(name)``, plus its reference and counterparty policies registered with
``@register_policy(name)`` and its shortcut scripts with ``@register_shortcut(family, name)``,
all three from :mod:`acworld_env.tasks.names`.
"""

from __future__ import annotations

from . import (  # noqa: F401
    adversarial,
    demo,
    discovery,
    governance,
    grounding,
    inventory,
    lifecycle,
    multi_item,
    negotiation,
    preference,
    timing,
)
