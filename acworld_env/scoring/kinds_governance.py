"""Predicate kinds for T8 Multi-merchant markets and governance (none yet)."""

from __future__ import annotations
