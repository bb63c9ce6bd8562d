"""Predicate kinds for T7 Order lifecycle and after-sales (none yet)."""

from __future__ import annotations
