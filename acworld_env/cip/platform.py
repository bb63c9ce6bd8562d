"""The Commerce Intelligence Platform: validate a bound proposal and turn it into World events."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..vcp import Envelope, ParseError, VCPAction
from ..world.digest import canonical, sha256
from . import queries, rules_after, rules_trade  # noqa: F401  (register rules)
from .checks import CHECKS
from .context import RuleContext
from .result import Outcome, Reject
from .rules import RULES

if TYPE_CHECKING:
    from ..catalog import Catalog


class Platform:
    """Stateless checks plus the episode's idempotency store and sealed mandates."""

    def __init__(self, catalog: Catalog | None, settings: dict[str, Any]) -> None:
        self.catalog = catalog
        self.settings = settings
        self.idempotency: dict[tuple[str, str], tuple[str, dict]] = {}

    def idempotent_replay(self, envelope: Envelope, action: VCPAction) -> dict | None | Reject:
        """Stripe semantics: the stored result for a repeated key and payload; a conflict for a new payload."""
        if action.idempotency_key is None or action.readonly:
            return None
        if action.actor is not None and action.actor != envelope.actor:
            return None  # a claim of another actor is never answered from the store: validation rejects it
        stored = self.idempotency.get((envelope.actor, action.idempotency_key))
        if stored is None:
            return None
        fingerprint, result = stored
        if fingerprint != self.fingerprint(action):
            return Reject("idempotency_conflict",
                          f"key {action.idempotency_key!r} was already used with a different request")
        return result

    @staticmethod
    def fingerprint(action: VCPAction) -> str:
        """Digest of an action's business payload."""
        return sha256(canonical(action.payload()))

    def remember(self, envelope: Envelope, action: VCPAction, result: dict) -> None:
        """Store the outcome of an accepted keyed request for later retries.

        As with Stripe, a request that failed validation saves nothing: a corrected retry
        under the same key is judged afresh.
        """
        if not result.get("accepted"):
            return
        if action.actor is not None and action.actor != envelope.actor:
            return  # a request claiming someone else is not this actor's request: it binds no key
        if action.idempotency_key is not None and not action.readonly:
            # the first request owns its key: a later conflicting request must not replace it
            self.idempotency.setdefault((envelope.actor, action.idempotency_key), (self.fingerprint(action), result))

    def validate(self, state: dict, envelope: Envelope, action: VCPAction | ParseError) -> Outcome:
        """Run every check, then the action's rule. Never raises for bad input."""
        if isinstance(action, ParseError):
            return Outcome(False, action.code, action.message)
        ctx = RuleContext(state, envelope, self.catalog, self.settings)
        try:
            for check in CHECKS:
                check(ctx, action)
            return RULES[action.kind](ctx, action)
        except Reject as rej:
            return Outcome(False, rej.code, rej.message)
