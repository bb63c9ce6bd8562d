"""Predicate kinds for T9 Adversarial content and prompt injection (none yet)."""

from __future__ import annotations
