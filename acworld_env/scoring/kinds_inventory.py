"""Predicate kinds for T6 Inventory, fulfilment and supply changes (none yet)."""

from __future__ import annotations
