"""Market input integrity: only canonical actions reach the platform, finished actors stay finished,
and hostile JSON (huge integers, NaN, deep nesting, shared structure) is a recorded rejection."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest
from foundation_kit import list_order, make_market, ok, rejected
from pydantic import field_serializer

from acworld_env.artifacts import save_run, verify_run
from acworld_env.market import Market
from acworld_env.vcp import ParseError, parse_action
from acworld_env.vcp.base import ANY_ROLE, Role
from acworld_env.vcp.union import MAX_NESTING, TERMINAL_KINDS, TOOLS

PlaceOrder = TOOLS["place_order"]
UpdateListing = TOOLS["update_listing"]
SendMessage = TOOLS["send_message"]
ProposeOffer = TOOLS["propose_offer"]
TERMINAL = sorted(TERMINAL_KINDS)
LIST_ORDER = {"kind": "place_order", "merchant_id": "m1", "lines": [{"listing_id": "L1", "quantity": 1}]}


def _json_ok(m: Market, tmp_path: Any) -> None:
    """Every lineage record is plain JSON and the run verifies."""
    for rec in m.trace.records:
        json.dumps(rec.to_dict(), allow_nan=False)
    save_run(m, tmp_path / "run")
    v = verify_run(tmp_path / "run")
    assert v.ok, v.message


def _nested(depth: int) -> Any:
    """A value whose JSON nesting is ``depth`` containers."""
    value: Any = 1
    for _ in range(depth):
        value = {"x": value}
    return value


# -- model instances are re-validated against the canonical union ---------------------------------


class AnyonePlacesOrders(PlaceOrder):  # type: ignore[misc, valid-type]
    """A subclass that widens the roles allowed to place an order."""

    roles: ClassVar[frozenset[Role]] = ANY_ROLE


class LoudMessage(SendMessage):  # type: ignore[misc, valid-type]
    """A subclass that claims a message ends the episode."""

    terminal: ClassVar[bool] = True


def test_a_subclass_widening_roles_cannot_let_a_merchant_order(tmp_path):
    m = make_market()
    sneaky = AnyonePlacesOrders(**{k: v for k, v in LIST_ORDER.items() if k != "kind"})
    rejected(m, "m2", sneaky, "role_forbidden")
    assert m.world.state["orders"] == {}
    ok(m, "b1", AnyonePlacesOrders(**{k: v for k, v in LIST_ORDER.items() if k != "kind"}))
    _json_ok(m, tmp_path)


def test_only_canonical_classes_reach_the_platform():
    action = parse_action(AnyonePlacesOrders(merchant_id="m1", lines=[{"listing_id": "L1"}]))
    assert type(action) is PlaceOrder


def test_a_subclass_cannot_make_a_message_terminal():
    m = make_market()
    r = ok(m, "b1", LoudMessage(to="m1", text="hello"))
    assert not r.terminal and "b1" not in m.finished
    ok(m, "b1", {"kind": "get_balance"})


def test_a_subclass_with_an_extra_field_is_refused():
    class WithBackdoor(SendMessage):  # type: ignore[misc, valid-type]
        backdoor: str = "open"

    m = make_market()
    rejected(m, "b1", WithBackdoor(to="m1", text="hi"), "unknown_field")


@pytest.mark.parametrize(
    ("actor", "build", "code"),
    [
        ("m1", lambda: UpdateListing.model_construct(listing_id="L1", price=-500), "bad_money"),
        ("b1", lambda: ProposeOffer.model_construct(to="m1", listing_id="L1", unit_price=-1), "bad_money"),
        ("b1", lambda: ProposeOffer.model_construct(to="m1", listing_id="L1", unit_price=float("nan")),
         "bad_number"),
        ("b1", lambda: ProposeOffer.model_construct(to="m1", listing_id="L1", unit_price=10**5000), "bad_number"),
        ("b1", lambda: ProposeOffer.model_construct(to="m1", listing_id="L1", unit_price=object()), "malformed_action"),
        ("b1", lambda: ProposeOffer.model_construct(to="m1", unit_price=800), "missing_field"),
        ("b1", lambda: SendMessage.model_construct(to="m1", text="x" * 5_000), "oversized"),
        ("b1", lambda: PlaceOrder.model_construct(merchant_id="m1", lines=[{"listing_id": "L1", "quantity": 0}]),
         "invalid_field"),
    ],
    ids=["price -500", "offer -1", "nan", "huge int", "object", "missing price", "long text", "zero quantity"],
)
def test_model_construct_cannot_bypass_validation(actor, build, code, tmp_path):
    m = make_market()
    rejected(m, actor, build(), code)
    assert m.world.state["listings"]["L1"]["price"] == 1_000
    _json_ok(m, tmp_path)


def test_a_validated_instance_mutated_afterwards_is_revalidated():
    offer = ProposeOffer(to="m1", listing_id="L1", unit_price=800)
    object.__setattr__(offer, "unit_price", -800)
    rejected(make_market(), "b1", offer, "bad_money")


def test_a_subclass_whose_serialiser_raises_is_a_recorded_rejection(tmp_path):
    class Broken(SendMessage):  # type: ignore[misc, valid-type]
        @field_serializer("text")
        def _boom(self, value: str) -> str:
            raise RuntimeError("boom")

    m = make_market()
    rejected(m, "b1", Broken(to="m1", text="hi"), "malformed_action")
    _json_ok(m, tmp_path)


def test_an_overridden_model_dump_is_not_what_gets_validated():
    """The fields are read with pydantic's own serialiser, not a subclass's ``model_dump``."""

    class Forged(UpdateListing):  # type: ignore[misc, valid-type]
        def model_dump(self, *args: Any, **kwargs: Any) -> dict:
            return {"kind": "update_listing", "listing_id": "L2", "price": 1}

    m = make_market()
    ok(m, "m1", Forged(listing_id="L1", price=1_200))
    assert m.world.state["listings"]["L1"]["price"] == 1_200
    assert m.world.state["listings"]["L2"]["price"] == 2_500


# -- a finished actor stays finished ------------------------------------------------------------------

TERMINAL_ACTIONS = {
    "finish": {"kind": "finish", "summary": "done"},
    "abstain": {"kind": "abstain", "reason": "nothing fits"},
    "submit_answer": {"kind": "submit_answer", "answer": {"listing_id": "L1"}},
}


def test_every_terminal_kind_is_covered():
    assert set(TERMINAL) == set(TERMINAL_ACTIONS)


@pytest.mark.parametrize("kind", TERMINAL)
def test_after_a_terminal_action_every_action_is_rejected(kind, tmp_path):
    m = make_market()
    first = ok(m, "b1", {**TERMINAL_ACTIONS[kind], "idempotency_key": "end"})
    assert first.terminal and "b1" in m.finished
    later = [
        {"kind": "get_balance"},
        LIST_ORDER,
        {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800},
        TERMINAL_ACTIONS[kind],  # the terminal action again, without its key
        {**TERMINAL_ACTIONS["finish"], "idempotency_key": "end", "summary": "other"},  # a reused key
        {"kind": "send_message", "to": "m1", "text": "one more thing", "idempotency_key": "new"},
        "not json at all",
        {"kind": "teleport"},
    ]
    for raw in later:
        r = rejected(m, "b1", raw, "actor_finished")
        assert "finished" in r.message and not r.terminal and not r.replayed
    assert m.world.state["orders"] == {}
    commits = len(m.world.commits)
    retry = m.submit("b1", {**TERMINAL_ACTIONS[kind], "idempotency_key": "end"})  # an exact keyed retry
    assert retry.replayed and retry.code == "idempotent_replay" and retry.commit_seq is None
    assert len(m.world.commits) == commits and m.trace.records[-1]["replayed"] is True
    rejected(m, "b1", {"kind": "get_balance"}, "actor_finished")
    ok(m, "b2", LIST_ORDER)  # others go on trading
    ok(m, "m1", {"kind": "get_balance"})
    _json_ok(m, tmp_path)


def test_a_rejected_terminal_action_does_not_finish():
    m = make_market()
    rejected(m, "b1", {"kind": "abstain", "reason": "x" * 3_000}, "oversized")
    assert "b1" not in m.finished
    ok(m, "b1", {"kind": "get_balance"})


# -- hostile JSON ---------------------------------------------------------------------------------

HUGE = "9" * 5_000
DEEP = MAX_NESTING + 1

HOSTILE = [
    ("huge int in money", '{"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": ' + HUGE + "}",
     "bad_number"),
    ("huge negative int", '{"kind": "get_balance", "idempotency_key": -' + HUGE + "}", "bad_number"),
    ("huge int in a list", '{"kind": "submit_answer", "answer": {"n": [' + HUGE + "]}}", "bad_number"),
    ("huge int bytes", ('{"kind": "authorize_payment", "order_id": "ord-0001", "amount": ' + HUGE + "}").encode(),
     "bad_number"),
    ("NaN", '{"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": NaN}', "bad_number"),
    ("Infinity", '{"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": Infinity}',
     "bad_number"),
    ("overflow float", '{"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 1e999}',
     "bad_number"),
    ("nested past the limit", json.dumps({"kind": "submit_answer", "answer": {"a": _nested(DEEP)}}),
     "malformed_json"),
    ("nested lists past the limit", '{"kind": "search_listings", "query": ' + "[" * DEEP + "]" * DEEP + "}",
     "malformed_json"),
    ("dict huge int", {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 10**5000},
     "bad_number"),
    ("dict huge int in a key's value", {"kind": "get_balance", "note": {"a": [-(10**5000)]}}, "bad_number"),
    ("dict float nan", {"kind": "authorize_payment", "order_id": "ord-0001", "amount": float("nan")},
     "bad_number"),
    ("dict -inf in a list", {"kind": "submit_answer", "answer": {"n": [float("-inf")]}}, "bad_number"),
    ("dict nested past the limit", {"kind": "submit_answer", "answer": {"a": _nested(DEEP)}},
     "malformed_action"),
]


@pytest.mark.parametrize(("raw", "code"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_hostile_json_is_a_recorded_rejection(raw, code, tmp_path):
    m = make_market()
    list_order(m, "b1", "m1", "L1")
    r = rejected(m, "b1", raw, code)
    assert len(r.message) < 300
    _json_ok(m, tmp_path)


def test_parse_action_names_the_limits():
    deep = parse_action(json.dumps({"kind": "submit_answer", "answer": {"a": _nested(DEEP)}}))
    assert isinstance(deep, ParseError) and str(MAX_NESTING) in deep.message
    huge = parse_action('{"kind": "get_balance", "x": ' + HUGE + "}")
    assert isinstance(huge, ParseError) and "digits" in huge.message


def test_nesting_at_the_limit_is_not_a_nesting_error():
    raw = {"kind": "search_listings", "query": "grinder", "attributes": _nested(MAX_NESTING - 1)}
    result = parse_action(raw)
    assert not (isinstance(result, ParseError) and "nested" in result.message)


@pytest.mark.timeout(20)
def test_shared_structure_is_refused_quickly():
    """A small object graph that expands to 2**25 JSON nodes is refused, not serialised."""
    node: Any = [1]
    for _ in range(25):
        node = [node, node]
    r = rejected(make_market(), "b1", {"kind": "submit_answer", "answer": {"a": node}}, "oversized")
    assert "limit" in r.message


def test_a_cyclic_dict_is_a_recorded_rejection():
    loop: dict = {"kind": "submit_answer"}
    loop["answer"] = {"again": loop}
    rejected(make_market(), "b1", loop, "malformed_action")
