"""Every code a validation record can carry, with its meaning: the one table users filter runs by.

A proposal is judged in this order: parsing (VCP), then the platform's cross-cutting checks
(identity, role, reply link, privacy, third-party data), then the action's rule; the market adds the few codes
of its own (a finished actor, an idempotent retry, a transition the World refused). A test
(``tests/foundation/test_codes.py``) fails on a code used anywhere in the package but not
listed here, and on a code listed here but used nowhere; ``docs/rejection-codes.md`` is
generated from this module (``python -m acworld_env.cip.codes``) and checked against it.
"""

from __future__ import annotations

from ..catalog.errors import QUERY_ERROR_CODES

ACCEPTED_CODES: dict[str, str] = {
    "ok": "accepted (also the code of a scheduled market event)",
    "idempotent_replay": "a retry with the same idempotency key and payload: the original result, no new commit",
}
"""Codes of records that are not rejections."""

PARSE_CODES: dict[str, str] = {
    "malformed_json": "the action is not valid JSON (or a JSON string nested too deeply)",
    "malformed_action": "the action is not a JSON object of plain data (wrong type, non-string keys, unreadable object)",
    "bad_number": "a number is NaN, infinite or has too many digits",
    "invalid_text": "text is not valid Unicode (a lone surrogate)",
    "oversized": "the action, or one of its strings or lists, is larger than the limit",
    "unknown_tool": "no action has this kind",
    "missing_field": "a required field is missing (also: a list-price order without merchant_id)",
    "unknown_field": "the action has a field its kind does not define",
    "bad_money": "a money field (typed Money) is not a whole number of cents within range",
    "invalid_field": "a field has a value of the wrong type or out of range",
}
"""Codes of actions that could not be read (VCP parsing: :mod:`acworld_env.vcp.union`)."""

CHECK_CODES: dict[str, str] = {
    "unknown_actor": "the acting actor, or an actor the action names, is not registered",
    "identity_mismatch": "the action claims to come from another actor than the bound one",
    "role_forbidden": "the actor's role may not use this action",
    "unknown_message": "the message replied to or answered does not exist",
    "not_addressed": "the message or market event was not delivered to this actor",
    "privacy_leak": "free text would reveal one of the sender's sealed private limits; nothing was sent",
    "third_party_data": "free text would disclose another customer's orders, payments or returns to someone who "
                        "is not that customer; nothing was sent",
}
"""Codes of the cross-cutting checks run on every proposal (:mod:`.checks`)."""

RULE_CODES: dict[str, str] = {
    # records and parties
    "unknown_id": "no record with this id (order, payment, thread, quote, return, dispute, ...)",
    "unknown_listing": "no listing with this id (or none of the merchant's own, for inventory)",
    "not_party": "the actor is not a party to the record (buyer or merchant as required)",
    "not_owner": "the listing is not sold by the acting merchant",
    "wrong_counterparty": "the counterparty is not of the required role, is oneself, or does not sell the listing",
    "listing_inactive": "the listing is not active",
    "bad_price": "the listing has no positive price",
    "out_of_stock": "not enough units in stock for the order or allocation",
    # negotiation
    "offer_closed": "the negotiation thread is no longer open",
    "not_your_turn": "the open offer is the actor's own: wait for the counterparty's answer",
    "not_your_offer": "only the author of the open offer can withdraw it",
    "round_limit": "the thread reached its limit of offers: accept or reject",
    "same_price": "a counter-offer must change the price",
    # quotes and orders
    "already_quoted": "the quote request was already answered",
    "quote_arithmetic": "quoted lines plus fees do not add up to the stated total",
    "quote_mismatch": "quoted lines differ from the requested listings and quantities",
    "quote_closed": "the quote is no longer open",
    "quote_expired": "the quote's validity has passed",
    "quote_not_accepted": "an order from a quote needs the quote accepted first",
    "ambiguous_order": "an order must give exactly one of thread_id, quote_id or lines",
    "no_agreement": "an order from a thread needs an agreed price",
    "order_cancelled": "the order is cancelled",
    "already_confirmed": "the order is already confirmed",
    # payment
    "order_not_payable": "the order is cancelled or closed and cannot be paid",
    "amount_mismatch": "the payment differs from the order total, or a capture exceeds what is authorised",
    "insufficient_funds": "the buyer's balance is below the amount",
    "not_capturable": "the payment is not in a state that can be captured",
    "already_captured": "the payment is fully captured",
    "stale_authorization": "the authorisation is older than its validity in rounds",
    "nothing_to_void": "the payment has nothing uncaptured to void",
    # fulfilment
    "order_not_paid": "the order is not paid yet",
    "already_allocated": "the order's inventory is already allocated (or it moved past allocation)",
    "not_in_order": "the listing is not part of the order",
    "over_fill": "a partial fill asks for more units than were ordered",
    "not_shippable": "the order is not in a state that can be shipped",
    "nothing_allocated": "the order has no allocated units to ship",
    "already_delivered": "the shipment is already delivered",
    "eta_in_past": "an ETA cannot be before the current round",
    # after-sales
    "not_cancellable": "the order can no longer be cancelled",
    "not_delivered": "the order is not delivered (needed to return or review)",
    "return_window_closed": "the return window has closed",
    "over_return": "a return asks for more units than were delivered",
    "already_decided": "the return was already authorised or refused",
    "refund_exceeds_capture": "the refund exceeds what was captured and not yet refunded",
    "return_mismatch": "the return is not for the order of the payment",
    "return_not_authorized": "the return is not authorised",
    "nothing_to_dispute": "the order was never paid",
    "dispute_closed": "the dispute is no longer open",
    "already_closed": "the order's ledger is already closed",
    "not_settled": "the ledger can only be closed for a delivered or cancelled order",
    # listings, reviews, market events
    "unknown_claim": "the listing makes no such claim",
    "already_reviewed": "one review per purchased listing",
    "own_review": "an actor cannot flag its own review",
    "already_classified": "the market event was already classified",
    # citations of market notices
    "unknown_notice": "the cited market notice does not exist",
    "notice_not_addressed": "the cited market notice was not sent to this actor",
    "notice_mismatch": "the cited notice asks for another action or concerns another order or payment",
}
"""Codes of the per-action rules (:mod:`.rules_trade`, :mod:`.rules_after`, :mod:`.queries`, :mod:`.citations`)."""

QUERY_CODES: dict[str, str] = {f"bad_query_{code}": meaning for code, meaning in QUERY_ERROR_CODES.items()}
"""A catalog search the catalog refused: ``bad_query_`` + a :data:`~acworld_env.catalog.errors.QUERY_ERROR_CODES` code."""

MARKET_CODES: dict[str, str] = {
    "idempotency_conflict": "the idempotency key was already used with a different payload",
    "actor_finished": "the actor already ended its episode with a terminal action",
    "transition_refused": "the platform accepted the action but the World refused its events (nothing committed)",
}
"""Codes the market and the platform's idempotency store add around validation."""

CODES: dict[str, str] = {
    **ACCEPTED_CODES, **PARSE_CODES, **CHECK_CODES, **RULE_CODES, **QUERY_CODES, **MARKET_CODES,
}
"""Every code a validation record can carry, with its one-line meaning."""

REJECTION_CODES: frozenset[str] = frozenset(CODES) - frozenset(ACCEPTED_CODES)
"""Every code of a rejected proposal."""

_SECTIONS = (
    ("Not rejections", ACCEPTED_CODES),
    ("Parsing (the action could not be read)", PARSE_CODES),
    ("Checks on every proposal", CHECK_CODES),
    ("Action rules", RULE_CODES),
    ("Catalog search", QUERY_CODES),
    ("Market", MARKET_CODES),
)


def markdown() -> str:
    """The table of codes as Markdown (the text of ``docs/rejection-codes.md``)."""
    out = [
        "# Validation codes",
        "",
        "Every lineage record's `validation.code`, with its meaning. Generated from",
        "`acworld_env/cip/codes.py` by `python -m acworld_env.cip.codes > docs/rejection-codes.md`;",
        "a test checks that this file matches the module and that the module lists every code the",
        f"package uses ({len(REJECTION_CODES)} rejection codes).",
    ]
    for title, table in _SECTIONS:
        out += ["", f"## {title}", "", "| code | meaning |", "|---|---|"]
        out += [f"| `{code}` | {meaning} |" for code, meaning in table.items()]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
