"""The envelope that binds an action to its authenticated actor."""


from pydantic import BaseModel, ConfigDict, Field

from .base import Role


class Envelope(BaseModel):
    """Who acts, in which role, in which thread, in reply to what, at which logical round.

    Built by the market, never by the policy: the actor is the authenticated session's,
    whatever the action claims.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    envelope_id: str = Field(description="Deterministic id: episode seed and proposal sequence.")
    actor: str = Field(description="The authenticated actor.")
    role: Role | None = Field(description="The actor's role (None for an unregistered actor, always rejected).")
    round: int = Field(ge=0, description="Logical round of the market clock.")
    seq: int = Field(ge=0, description="Proposal sequence number in the episode.")
    thread_id: str | None = Field(None, description="Negotiation thread, when the action has one.")
    in_reply_to: str | None = Field(None, description="Message answered, when the action has one.")
    idempotency_key: str | None = Field(None, description="The client's retry key, if any.")
