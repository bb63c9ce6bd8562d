"""Predicate kinds for T3 Preference (none yet)."""

from __future__ import annotations
