"""The Commerce Intelligence Platform: validate a bound proposal and turn it into World events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..vcp import Envelope, ParseError, VCPAction
from ..world.digest import canonical, sha256
from . import queries, rules_after, rules_trade  # noqa: F401  (register rules)
from .checks import CHECKS
from .context import MarketView, RuleContext, RuleSettings
from .result import Outcome, Reject
from .rules import RULES

if TYPE_CHECKING:
    from ..catalog import Catalog


@dataclass(frozen=True, slots=True)
class KeyCheck:
    """What the idempotency store says about one proposal: new, a retry to replay, or a conflict.

    At most one of the fields is set; both None means "judge the proposal afresh".
    """

    replay: dict | None = None
    """The stored result of the accepted request this one repeats (same key, same payload)."""
    conflict: Outcome | None = None
    """The rejection of a request that reuses a key with a different payload."""


NEW_REQUEST = KeyCheck()
"""The answer for a proposal the store knows nothing about."""


class Platform:
    """Stateless checks plus the episode's idempotency store; reads the market's live state through a view."""

    def __init__(self, catalog: Catalog | None, settings: RuleSettings | None = None,
                 market: MarketView | None = None) -> None:
        self.catalog = catalog
        self.settings = settings or RuleSettings()
        self.market = market or MarketView()
        self.idempotency: dict[tuple[str, str], tuple[str, dict]] = {}

    def check_key(self, envelope: Envelope, action: VCPAction) -> KeyCheck:
        """Stripe semantics: the stored result for a repeated key and payload; a conflict for a new payload."""
        if action.idempotency_key is None or action.readonly:
            return NEW_REQUEST
        if action.actor is not None and action.actor != envelope.actor:
            return NEW_REQUEST  # a claim of another actor is never answered from the store: validation rejects it
        stored = self.idempotency.get((envelope.actor, action.idempotency_key))
        if stored is None:
            return NEW_REQUEST
        fingerprint, result = stored
        if fingerprint != self.fingerprint(action):
            return KeyCheck(conflict=Outcome(
                False, "idempotency_conflict",
                f"key {action.idempotency_key!r} was already used with a different request"))
        return KeyCheck(replay=result)

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

    def validate(self, state: dict, envelope: Envelope, action: VCPAction | ParseError, *,
                 recorded: dict | None = None) -> Outcome:
        """Run every check, then the action's rule. Never raises for bad input.

        ``recorded``: the action's JSON form as the trace records it, when the caller made it already
        (the checks that judge text read it instead of dumping the action again)."""
        if isinstance(action, ParseError):
            return Outcome(False, action.code, action.message)
        ctx = RuleContext(state, envelope, self.catalog, self.settings, self.market, recorded)
        try:
            for check in CHECKS:
                check(ctx, action)
            handler = RULES.get(action.kind)
            if handler is None:  # unreachable for a registered kind (registration needs a rule)
                return Outcome(False, "unknown_tool", f"action kind {action.kind!r} has no platform rule")
            return handler(ctx, action)
        except Reject as rej:
            return Outcome(False, rej.code, rej.message)
