"""Predicate kinds for T5 Multi-item planning and checkout (none yet)."""

from __future__ import annotations
