"""T2 Grounding (family ``T2_grounding``): is a claim supported by the authoritative record?

20 tasks (8 Buyer, 12 Merchant). The authority is the catalog product record (and the World's
current prices); sellers' listing copy, resale listings, marketing drafts and the buyer's
hopes are sources that may be wrong, in other units, or unbacked. Claims are structured
(answer fields, listing claims named by spec or comparison) or, in replies to buyers, numbers
with units found in the text; each is checked against the record, and the trace must show
the record was read before the claim. An answer is held to what was asked: the figure asked, in
the unit asked, on the fields the request named; true figures nobody asked for cost its credit.
Factors: 1-5 sources, fields, comparisons, requested attributes, incorrect or unsupported
claims, unit conversions.

Modules: ``grounding_records`` (catalog products and wording), ``grounding_buyer`` and
``grounding_merchant`` (one builder per capability), ``grounding_build`` (the plan and task
assembly), ``grounding_policy`` (the plan-replaying reference), ``grounding_shortcuts`` and
``grounding_spray`` (baseline shortcuts).
Predicate kinds: :mod:`acworld_env.scoring.kinds_grounding`.
"""

from __future__ import annotations

from ..names import register_family
from ..spec import TaskSpec
from . import (
    grounding_policy,  # noqa: F401  (registers the reference policy)
    grounding_shortcuts,  # noqa: F401  (registers the baseline shortcuts)
    grounding_spray,  # noqa: F401  (registers the spray shortcut)
)
from .grounding_build import FAMILY, build_all

__all__ = ["FAMILY", "build"]


@register_family(FAMILY)
def build(seed: int = 0, frozen: bool = True) -> list[TaskSpec]:
    """The 20 frozen T2 tasks, or fresh ones drawn from ``seed``."""
    return build_all(seed, frozen)
