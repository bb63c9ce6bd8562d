"""Facts about an action live on its class; every action has a rule, every event a World handler."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from foundation_kit import make_market, rejected

import acworld_env.world  # noqa: F401  (registers the World's handlers)
from acworld_env.cip import RULES
from acworld_env.cip.citations import ANSWERS
from acworld_env.envs.known import ONE_SHOT
from acworld_env.tasks.frozen import load_frozen
from acworld_env.vcp.base import money_fields
from acworld_env.vcp.union import ONE_SHOT_KINDS, QUERY_KINDS, TERMINAL_KINDS, TOOLS
from acworld_env.world.transition import HANDLERS

CIP = Path(__file__).resolve().parents[2] / "acworld_env" / "cip"


def _event_types(path: Path) -> set[str]:
    """Event types a module builds as literal ``{"type": "...", ...}`` dicts."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (isinstance(key, ast.Constant) and key.value == "type"
                        and isinstance(value, ast.Constant) and isinstance(value.value, str)):
                    out.add(value.value)
    return out


def test_every_action_has_a_rule_and_every_rule_an_action():
    assert sorted(set(TOOLS) - set(RULES)) == [], "actions without a platform rule (a KeyError at validation)"
    assert sorted(set(RULES) - set(TOOLS)) == [], "rules for kinds no action model declares"


@pytest.mark.parametrize("path", sorted(CIP.glob("*.py")), ids=lambda p: p.name)
def test_every_event_a_rule_can_emit_has_a_world_handler(path):
    missing = sorted(_event_types(path) - set(HANDLERS))
    assert missing == [], f"{path.name} emits event types the World cannot apply"


def test_queries_emit_no_events():
    assert _event_types(CIP / "queries.py") == set()


def test_rules_emit_events_at_all():  # guards the static inspection above against matching nothing
    emitted = set().union(*(_event_types(p) for p in CIP.glob("rules*.py")))
    assert {"order_placed", "payment_authorized", "listing_materialized"} <= emitted


def test_scheduled_market_events_have_handlers():
    types = {ev["type"] for task in load_frozen("capability-v1") for item in task.schedule
             for ev in item.get("events", [])}
    assert sorted(types - set(HANDLERS)) == []


def test_class_facts_are_consistent():
    assert {k for k, t in TOOLS.items() if t.readonly} == QUERY_KINDS
    assert ONE_SHOT == ONE_SHOT_KINDS == {k for k, t in TOOLS.items() if t.one_shot}
    assert not (QUERY_KINDS & ONE_SHOT_KINDS), "a read-only query cannot be one-shot"
    assert not (QUERY_KINDS & TERMINAL_KINDS)
    assert {"get_order", "list_orders", "search_listings"} <= QUERY_KINDS
    assert {"ship_order", "accept_offer", "issue_refund"} <= ONE_SHOT_KINDS


def test_every_amount_in_cents_is_typed_money():
    """A top-level integer field described in cents must carry the Money marker (so bad input is bad_money)."""
    for kind, model in TOOLS.items():
        for name, info in model.model_fields.items():
            if "in cents" in (info.description or ""):
                assert name in money_fields(model), f"{kind}.{name} is described in cents but not typed Money"
    assert money_fields(TOOLS["propose_offer"]) == {"unit_price"}
    assert money_fields(TOOLS["search_listings"]) == {"min_price", "max_price"}


def test_a_bad_optional_money_field_is_bad_money():
    m = make_market()
    rejected(m, "m1", {"kind": "update_listing", "listing_id": "L1", "compare_at_price": -1}, "bad_money")
    rejected(m, "m1", {"kind": "search_listings", "min_price": "cheap"}, "bad_money")


def test_citing_actions_are_those_with_an_optional_event_id():
    citing = {k for k, t in TOOLS.items() if "event_id" in t.model_fields and not t.model_fields["event_id"].is_required()}
    assert set(ANSWERS) == citing
    assert ANSWERS["ship_order"] == {"ship_request"}
    assert all("answers" not in t.model_fields for t in TOOLS.values())
