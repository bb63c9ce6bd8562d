"""CIP: the Commerce Intelligence Platform. Validates proposals; never writes the World itself."""

from .platform import Platform
from .privacy import leaks, money_mentions
from .result import Outcome, Reject
from .rules import RULES

__all__ = ["Outcome", "Platform", "RULES", "Reject", "leaks", "money_mentions"]
