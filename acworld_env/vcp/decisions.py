"""Protocol-event handling and terminal decisions."""


from typing import Literal

from pydantic import Field

from .base import Id, VCPAction
from .text import FreeStr, ShortText, Text, TextId, TextKey

AnswerValue = FreeStr | int | bool | list[FreeStr] | None


class ClassifyEvent(VCPAction):
    """Decide what a delivered market event (webhook, certificate, notice) is, and whether to apply it."""

    group = "events"
    one_shot = True
    kind: Literal["classify_event"] = "classify_event"
    event_id: Id = Field(description="The market event.")
    verdict: Literal["apply", "duplicate", "stale", "out_of_order", "foreign"] = Field(
        description="apply: valid and new; duplicate: already applied; stale: expired or superseded; "
        "out_of_order: arrived before an event it depends on; foreign: belongs to another order or actor."
    )
    note: ShortText | None = Field(None, description="Optional explanation.")


class SubmitAnswer(VCPAction):
    """Finish with a structured answer, citing the records it rests on."""

    terminal = True
    group = "decision"
    kind: Literal["submit_answer"] = "submit_answer"
    answer: dict[TextKey, AnswerValue] = Field(
        max_length=20, description="Answer fields, e.g. {'listing_id': 'L-00042'}."
    )
    evidence: list[TextId] = Field(default_factory=list, max_length=50, description="Ids of records relied on.")
    rationale: Text = Field("", description="Short explanation.")


class Abstain(VCPAction):
    """Finish without acting, because nothing satisfies the request."""

    terminal = True
    group = "decision"
    kind: Literal["abstain"] = "abstain"
    reason: Text = Field(description="Why nothing can be done.")


class Finish(VCPAction):
    """Finish: you consider the request handled."""

    terminal = True
    group = "decision"
    kind: Literal["finish"] = "finish"
    summary: Text = Field("", description="Short summary of what was done.")


DECISIONS = (ClassifyEvent, SubmitAnswer, Abstain, Finish)
