"""Business tools for talking and negotiating: messages, questions and offers."""


from typing import Literal

from pydantic import Field

from .base import BUYER, Id, PositiveMoney, Quantity, VCPAction
from .text import ShortText, Text


class SendMessage(VCPAction):
    """Send a free-text message. Messages never change the World."""

    group = "messaging"
    kind: Literal["send_message"] = "send_message"
    to: Id = Field(description="The recipient actor id.")
    text: Text = Field(description="The message text.")
    thread_id: Id | None = Field(None, description="Negotiation thread this message belongs to, if any.")
    in_reply_to: Id | None = Field(None, description="Id of the message this replies to, if any.")


class AskQuestion(VCPAction):
    """Ask a merchant a question about a listing."""

    roles = BUYER
    group = "messaging"
    kind: Literal["ask_question"] = "ask_question"
    to: Id = Field(description="The merchant to ask.")
    listing_id: Id = Field(description="The listing the question is about.")
    text: Text = Field(description="The question.")


class AnswerQuestion(VCPAction):
    """Answer a question that was addressed to you."""

    group = "messaging"
    one_shot = True
    kind: Literal["answer_question"] = "answer_question"
    in_reply_to: Id = Field(description="Id of the question message you answer.")
    text: Text = Field(description="The answer.")


class ProposeOffer(VCPAction):
    """Open a negotiation thread with a price offer for a listing."""

    group = "offers"
    kind: Literal["propose_offer"] = "propose_offer"
    to: Id = Field(description="The counterparty: the merchant selling, or the buyer you offer to.")
    listing_id: Id = Field(description="The listing negotiated.")
    quantity: Quantity = Field(1, description="Units covered by the offer.")
    unit_price: PositiveMoney = Field(description="Offered price per unit, in cents.")
    note: ShortText | None = Field(None, description="Optional short note sent with the offer.")


class CounterOffer(VCPAction):
    """Answer the open offer in a thread with a different price."""

    group = "offers"
    kind: Literal["counter_offer"] = "counter_offer"
    thread_id: Id = Field(description="The negotiation thread.")
    unit_price: PositiveMoney = Field(description="Counter price per unit, in cents.")
    note: ShortText | None = Field(None, description="Optional short note sent with the counter.")


class AcceptOffer(VCPAction):
    """Accept the counterparty's open offer: the price becomes a binding agreement."""

    group = "offers"
    one_shot = True
    kind: Literal["accept_offer"] = "accept_offer"
    thread_id: Id = Field(description="The negotiation thread.")


class RejectOffer(VCPAction):
    """Reject the counterparty's open offer and close the thread."""

    group = "offers"
    one_shot = True
    kind: Literal["reject_offer"] = "reject_offer"
    thread_id: Id = Field(description="The negotiation thread.")
    reason: ShortText | None = Field(None, description="Optional reason.")


class WithdrawOffer(VCPAction):
    """Withdraw your own open offer before the counterparty answers."""

    group = "offers"
    one_shot = True
    kind: Literal["withdraw_offer"] = "withdraw_offer"
    thread_id: Id = Field(description="The negotiation thread.")


NEGOTIATION = (
    SendMessage, AskQuestion, AnswerQuestion, ProposeOffer, CounterOffer, AcceptOffer,
    RejectOffer, WithdrawOffer,
)
