"""Protocol-event handling and terminal decisions."""


import math
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field

from .base import Id, VCPAction
from .text import FreeStr, ShortText, Text, TextId, TextKey


def _decimal_as_text(value: object) -> object:
    """A decimal number in an answer (``0.18``) kept as the text of its shortest form (``"0.18"``).

    Traces and states hold no floats (their canonical JSON must be the same bytes everywhere), and
    answers are read as text anyway (``"0.18 in"``, ``"4.5"``): a model that writes a decimal as a
    JSON number is not refused for it. A whole number (``3.0``) stays a number; inside a list,
    where answers are text, it becomes ``"3"``. NaN and infinities are refused.
    """
    if isinstance(value, list):
        return [str(_decimal_as_text(v)) if isinstance(v, float) else v for v in value]
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("an answer value must be a finite number")
        return int(value) if value.is_integer() else repr(value)
    return value


AnswerValue = Annotated[FreeStr | int | bool | list[FreeStr] | None, BeforeValidator(_decimal_as_text)]


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
