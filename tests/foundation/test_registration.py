"""Actions registered from outside: their text is privacy-guarded by default, and registration checks
everything it can at once (a rule, a plain kind name, no built-in rule replaced), never later in a step."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

import pytest
from foundation_kit import BUYER_CEILING, make_market, ok, rejected
from pydantic import Field

from acworld_env.cip import rules as cip_rules
from acworld_env.cip.privacy import TEXT_FIELDS
from acworld_env.cip.result import Outcome
from acworld_env.core.errors import AcworldError
from acworld_env.vcp import union
from acworld_env.vcp.base import BUYER, Id, VCPAction
from acworld_env.vcp.text import NOT_FREE_TEXT, NotText, PlainId, text_paths
from acworld_env.vcp.union import TOOLS, ActionRegistryError, register_action

LEAK = f"my budget is ${BUYER_CEILING // 100}.{BUYER_CEILING % 100:02d}"
"""What b1's sealed ceiling looks like in words."""


@pytest.fixture(autouse=True)
def sandbox(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Whatever a test registers is gone afterwards (the registries are process-wide)."""
    tables = [TOOLS, union.RULES, TEXT_FIELDS]
    saved = [dict(t) for t in tables]
    for name in ("ACTION_TYPES", "Action", "ACTION_ADAPTER"):
        monkeypatch.setattr(union, name, getattr(union, name))
    yield
    for table, copy in zip(tables, saved, strict=True):
        table.clear()
        table.update(copy)


def _accept(ctx: Any, action: Any) -> Outcome:
    return Outcome(True, result={"noted": True})


class Memo(VCPAction):
    """A buyer's note to a merchant, with plain ``str`` fields (no text marker at all)."""

    roles = BUYER
    kind: Literal["x_memo"] = "x_memo"
    to: str = Field(description="Merchant.")
    memo: str = ""
    tags: list[str] = Field(default_factory=list)
    code: NotText = ""
    ref: PlainId = "R-1"
    flag: str = Field("", json_schema_extra={"free_text": False})
    token: Annotated[str, NOT_FREE_TEXT] = ""
    listing_id: Id = "L1"


# -- item 16: the privacy guard reads every text field of a registered action -------------------

def test_every_unmarked_string_of_a_registered_action_is_guarded() -> None:
    paths = set(text_paths(Memo))
    assert {("to",), ("memo",), ("tags", "[]"), ("listing_id",)} <= paths
    assert not paths & {("code",), ("ref",), ("flag",), ("token",), ("actor",), ("idempotency_key",)}


@pytest.mark.parametrize("field, value", [("memo", LEAK), ("tags", ["hello", LEAK])])
def test_a_registered_plain_str_field_cannot_deliver_a_sealed_value(field: str, value: Any) -> None:
    register_action(Memo, rule=_accept)
    m = make_market()
    r = rejected(m, "b1", {"kind": "x_memo", "to": "m1", field: value}, "privacy_leak")
    assert str(BUYER_CEILING // 100) not in r.message
    ok(m, "b1", {"kind": "x_memo", "to": "m1", field: "hello" if field == "memo" else ["hello"]})


def test_fields_marked_not_free_text_are_not_read() -> None:
    register_action(Memo, rule=_accept)
    ok(make_market(), "b1", {"kind": "x_memo", "to": "m1", "code": "9500", "flag": "95.00", "token": "$95"})


def test_built_in_actions_keep_their_marked_fields() -> None:
    from acworld_env.vcp.negotiation import SendMessage

    class Chatty(SendMessage):
        comment: str = ""

    assert text_paths(SendMessage) == (("text",),)
    assert set(text_paths(Chatty)) == {("text",), ("comment",)}  # the extension's own field is guarded


# -- item 17: registration is checked when it happens ------------------------------------------

class Orphan(VCPAction):
    kind: Literal["x_orphan"] = "x_orphan"
    note: str = ""


class Invisible(VCPAction):
    kind: Literal["x\u200bnote"] = "x\u200bnote"


class Lookalike(VCPAction):
    kind: Literal["x_n\u043ete"] = "x_n\u043ete"  # a Cyrillic o


def test_a_kind_without_a_rule_is_refused_at_registration() -> None:
    before = dict(TOOLS)
    with pytest.raises(ActionRegistryError, match="has no platform rule") as info:
        register_action(Orphan)
    assert isinstance(info.value, AcworldError) and "x_orphan" in str(info.value)
    assert before == TOOLS and "x_orphan" not in union.RULES


def test_a_rule_first_then_the_action_is_accepted_and_steps() -> None:
    cip_rules.rule("x_orphan")(_accept)
    register_action(Orphan)
    ok(make_market(), "b1", {"kind": "x_orphan", "note": "hi"})


@pytest.mark.parametrize("cls", [Invisible, Lookalike])
def test_a_kind_that_is_not_a_plain_identifier_is_refused(cls: type[VCPAction]) -> None:
    before = dict(TOOLS)
    with pytest.raises(ActionRegistryError, match="not a plain identifier"):
        register_action(cls, rule=_accept)
    assert before == TOOLS


@pytest.mark.parametrize("kind", ["x\u200bnote", "", "1st", "a b", "x" * 65])
def test_a_rule_under_a_name_that_is_not_a_plain_identifier_is_refused(kind: str) -> None:
    with pytest.raises(ActionRegistryError, match="not a plain identifier"):
        cip_rules.rule(kind)


@pytest.mark.parametrize("kind", ["place_order", "send_message", "search_listings"])
def test_a_built_in_rule_cannot_be_replaced(kind: str) -> None:
    built_in = union.RULES[kind]

    def _accept_everything(ctx: Any, action: Any) -> Outcome:
        return Outcome(True)

    with pytest.raises(ActionRegistryError, match="built-in"):
        cip_rules.rule(kind)(_accept_everything)
    assert union.RULES[kind] is built_in
    assert cip_rules.rule(kind)(built_in) is built_in  # the same rule again is no change


def test_a_rule_given_with_the_action_must_not_replace_another() -> None:
    cip_rules.rule("x_orphan")(_accept)

    def _other(ctx: Any, action: Any) -> Outcome:
        return Outcome(True)

    with pytest.raises(ActionRegistryError, match="another platform rule"):
        register_action(Orphan, rule=_other)
    with pytest.raises(ActionRegistryError, match="must be callable"):
        register_action(Memo, rule="not a function")  # type: ignore[arg-type]
    assert "x_orphan" not in TOOLS and "x_memo" not in TOOLS
