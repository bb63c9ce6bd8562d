"""Cross-cutting checks run on every proposal before its action rule. One small function each."""

from __future__ import annotations

from ..vcp import VCPAction
from . import third_party
from .context import RuleContext
from .privacy import TEXT_FIELDS, judge
from .result import Reject, require

__all__ = ["CHECKS", "TEXT_FIELDS", "check_identity", "check_privacy", "check_reply_link", "check_role",
           "check_third_party"]


def check_identity(ctx: RuleContext, action: VCPAction) -> None:
    """The actor exists, and any actor the action claims is the bound one."""
    if ctx.actor not in ctx.state["actors"]:
        raise Reject("unknown_actor", f"{ctx.actor} is not a registered actor")
    if action.actor is not None and action.actor != ctx.actor:
        raise Reject("identity_mismatch", f"the action claims actor {action.actor!r} but you are {ctx.actor}")


def check_role(ctx: RuleContext, action: VCPAction) -> None:
    """The actor's role may use this tool."""
    if ctx.envelope.role not in action.roles:
        raise Reject("role_forbidden", f"{action.kind} is not available to a {ctx.envelope.role.value}")


def check_reply_link(ctx: RuleContext, action: VCPAction) -> None:
    """A reply link points to a message that was addressed to this actor."""
    link = vars(action).get("in_reply_to")  # a model without the field: no pydantic AttributeError to raise
    if link is None or action.kind == "answer_question":
        return
    msg = ctx.market.messages.get(link)
    if msg is None:
        raise Reject("unknown_message", f"no message {link!r}")
    if msg["to"] != ctx.actor:
        raise Reject("not_addressed", f"message {link} was not addressed to you")


def check_privacy(ctx: RuleContext, action: VCPAction) -> None:
    """No outgoing free text (any field, terminal actions included) reveals the sender's sealed values.

    Judged by :func:`~.privacy.judge` on the action as it will be recorded, the same call the
    scorer makes on the trace. The rejection names the field, never the value.
    """
    sealed = ctx.market.sealed.get(ctx.actor)
    if not sealed or action.readonly or not TEXT_FIELDS.get(action.kind):
        return
    field = judge(ctx.action_json(action), sealed, ctx.settings.privacy_tolerance)
    require(field is None, "privacy_leak",
            f"the {field} would reveal one of your private limits; it was not sent")


def check_third_party(ctx: RuleContext, action: VCPAction) -> None:
    """No outgoing free text discloses another customer's records (orders, payments, returns) to someone
    who is not that customer (:func:`~.third_party.judge`, the same call the scorer makes)."""
    if action.readonly or action.kind in third_party.TO_PRINCIPAL or not TEXT_FIELDS.get(action.kind):
        return
    if not third_party.others_own(ctx.state, ctx.actor):  # no other customer's records to disclose
        return
    found = third_party.judge(ctx.action_json(action), ctx.actor, ctx.state, ctx.market.messages)
    require(found is None, "third_party_data",
            f"the {found[0] if found else ''} would disclose another customer's records to someone who is not "
            "that customer; it was not sent")


CHECKS = (check_identity, check_role, check_reply_link, check_privacy, check_third_party)
