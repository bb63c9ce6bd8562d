"""Deterministic synthetic catalogs (generator, presets) calibrated on real Shopify dumps."""

from __future__ import annotations

from .build import synthesize
from .plan import CategoryTarget, SynthConfig
from .presets import (
    CAPABILITY_V1,
    LARGE_V1,
    PRESETS,
    build_preset,
    ensure_preset,
    make_capability_v1,
    open_preset,
)

__all__ = [
    "CAPABILITY_V1",
    "LARGE_V1",
    "PRESETS",
    "CategoryTarget",
    "SynthConfig",
    "build_preset",
    "ensure_preset",
    "make_capability_v1",
    "open_preset",
    "synthesize",
]
