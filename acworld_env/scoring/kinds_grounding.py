"""Predicate kinds for T2 Grounding (none yet)."""

from __future__ import annotations
