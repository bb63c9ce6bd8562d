"""Citations: a payment, fulfilment or refund may name the market notice it answers.

A notice is a delivered market event (``market_events`` in the World). A cited notice must
exist, must have been delivered to the acting actor, must ask for this kind of action, and
must concern the same order or payment. Whether the notice was fresh, in sequence or a
repeat is *not* judged here: a real platform carries out what it is asked, and telling a
good notice from a bad one is the agent's job (the scorer checks the link in the World).
"""

from __future__ import annotations

from ..vcp.union import TOOLS
from .context import RuleContext
from .result import require

ANSWERS: dict[str, frozenset[str]] = {kind: t.answers for kind, t in TOOLS.items() if t.answers}
"""Action kind -> the notice types it can answer (``answers`` on the action class)."""


def check_citation(ctx: RuleContext, kind: str, event_id: str | None, **about: str | None) -> None:
    """Reject a citation of a notice that is unknown, someone else's, of another type or about another object.

    ``about`` names the objects the action touches (``order_id``, ``payment_id``); the notice
    must carry the same value for at least one of them, and no different value for any.
    """
    if event_id is None:
        return
    notice = ctx.state["market_events"].get(event_id)
    require(notice is not None, "unknown_notice", f"no market notice {event_id!r}")
    require(notice.get("to") == ctx.actor, "notice_not_addressed", f"notice {event_id} was not sent to you")
    asked = notice.get("type")
    require(asked in ANSWERS.get(kind, frozenset()), "notice_mismatch",
            f"notice {event_id} is a {asked}; {kind} cannot answer it")
    shared = [f for f, v in about.items() if v is not None and notice.get(f) is not None]
    concerns = ", ".join(str(notice[f]) for f in sorted(about) if notice.get(f) is not None) or "nothing named"
    require(bool(shared) and all(notice[f] == about[f] for f in shared), "notice_mismatch",
            f"notice {event_id} concerns {concerns}, not " + ", ".join(str(v) for v in about.values() if v))
