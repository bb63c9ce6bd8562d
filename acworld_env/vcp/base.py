"""Shared building blocks of the VCP wire protocol: roles, field types and the action base class."""


import types
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, ClassVar, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


class Role(StrEnum):
    """The role an actor plays in the market."""

    BUYER = "buyer"
    MERCHANT = "merchant"


BUYER = frozenset({Role.BUYER})
MERCHANT = frozenset({Role.MERCHANT})
ANY_ROLE = frozenset({Role.BUYER, Role.MERCHANT})

MAX_MONEY = 10**11
"""Largest amount, in minor units, any field accepts (one billion dollars)."""


def _not_bool(value: object) -> object:
    """Refuse booleans where a number is expected (pydantic would read ``true`` as 1)."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    return value


NotBool = BeforeValidator(_not_bool)


@dataclass(frozen=True, slots=True)
class MoneyMark:
    """Annotation marker: this integer is an amount of money in minor units (a bad value is ``bad_money``)."""


MONEY = MoneyMark()
"""The one marker instance (any :class:`MoneyMark` instance is recognised)."""

Money = Annotated[int, NotBool, MONEY, Field(ge=0, le=MAX_MONEY, description="Amount in integer minor units (cents).")]
PositiveMoney = Annotated[
    int, NotBool, MONEY, Field(gt=0, le=MAX_MONEY, description="Positive amount in integer minor units (cents).")
]
Quantity = Annotated[int, NotBool, Field(ge=1, le=10_000, description="Number of units, at least 1.")]
Id = Annotated[str, Field(min_length=1, max_length=64, description="Identifier of a market object.")]
ShortText = Annotated[str, Field(max_length=200)]
Text = Annotated[str, Field(max_length=2000)]


class VCPAction(BaseModel):
    """Base of every action. Subclasses set ``kind`` and the class-level metadata."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    roles: ClassVar[frozenset[Role]] = ANY_ROLE
    """Roles allowed to use this action."""
    readonly: ClassVar[bool] = False
    """True for read-only queries: they never produce a commit."""
    group: ClassVar[str] = "misc"
    """Lifecycle group, used to organise schemas and skills."""
    terminal: ClassVar[bool] = False
    """True when the action ends the actor's episode (answer, abstain, finish)."""
    one_shot: ClassVar[bool] = False
    """True when, once accepted, the action makes no sense again on the same record (ship an order)."""
    answers: ClassVar[frozenset[str]] = frozenset()
    """Types of market notice the action may cite in its ``event_id`` (a payment request, a ship request)."""

    actor: Id | None = Field(
        default=None,
        description="Optional claim of the acting actor's id. The platform binds the real actor; "
        "a claim naming anyone else is rejected.",
    )
    idempotency_key: Annotated[str, Field(min_length=1, max_length=64)] | None = Field(
        default=None,
        description="Client key making retries safe: the same key with the same payload returns "
        "the original result without a new commit; with a different payload it is rejected.",
    )

    def payload(self) -> dict:
        """The business payload (everything but the envelope hints), as plain JSON types."""
        return self.model_dump(mode="json", exclude={"actor", "idempotency_key"})


def _is_money(tp: Any) -> bool:
    """True when annotation ``tp`` (or an alternative of an optional/union) carries :class:`MoneyMark`."""
    if get_origin(tp) is Annotated:
        base, *meta = get_args(tp)
        return any(isinstance(m, MoneyMark) for m in meta) or _is_money(base)
    if get_origin(tp) in (Union, types.UnionType):
        return any(_is_money(arg) for arg in get_args(tp))
    return False


@cache
def money_fields(model: type[BaseModel]) -> frozenset[str]:
    """Names of the top-level fields of ``model`` typed :data:`Money` or :data:`PositiveMoney`."""
    hints = get_type_hints(model, include_extras=True)
    return frozenset(name for name in model.model_fields if _is_money(hints.get(name)))
