"""One result type for the idempotency store; rules read typed settings and a typed view of the market."""

from __future__ import annotations

import dataclasses

import pytest
from foundation_kit import make_market, ok

from acworld_env.cip.context import MarketView, RuleContext, RuleSettings
from acworld_env.cip.platform import NEW_REQUEST, KeyCheck
from acworld_env.vcp import parse_action

OFFER = {"kind": "propose_offer", "to": "m1", "listing_id": "L1", "unit_price": 800, "idempotency_key": "k1"}


def _check(m, raw):
    step = m.submit("b1", {"kind": "get_balance"})  # any envelope of b1 will do
    return m.platform.check_key(step.envelope, parse_action(raw))


def test_key_check_is_new_replay_or_conflict():
    m = make_market()
    assert _check(m, OFFER) is NEW_REQUEST
    first = ok(m, "b1", OFFER)
    replay = _check(m, OFFER)
    assert isinstance(replay, KeyCheck) and replay.conflict is None
    assert replay.replay is not None and replay.replay["validation_id"] == first.validation_id
    conflict = _check(m, {**OFFER, "unit_price": 900})
    assert conflict.replay is None and conflict.conflict is not None
    assert (conflict.conflict.accepted, conflict.conflict.code) == (False, "idempotency_conflict")
    assert _check(m, {**OFFER, "idempotency_key": None}) is NEW_REQUEST


def test_rule_context_fields_are_typed():
    fields = {f.name: f.type for f in dataclasses.fields(RuleContext)}
    assert fields["settings"] == "RuleSettings" and fields["market"] == "MarketView"
    s = RuleSettings.from_dict({"max_offers": 3, "privacy_tolerance": 50, "merchant_actors": {"M": "m1"}})
    assert (s.max_offers, s.auth_valid_rounds, s.return_window_rounds, s.privacy_tolerance) == (3, 20, 30, 50)
    assert dict(s.merchant_actors) == {"M": "m1"}
    assert RuleSettings.from_dict(None) == RuleSettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.max_offers = 4  # type: ignore[misc]


def test_market_settings_hold_task_settings_only_and_are_read_only():
    m = make_market(max_offers=2)
    assert dict(m.settings) == {"max_offers": 2}
    with pytest.raises(TypeError):
        m.settings["max_offers"] = 5  # type: ignore[index]
    view = m.platform.market
    assert isinstance(view, MarketView)
    assert view.messages is m.messages and view.inboxes is m.inboxes and view.mandates is m.mandates
    assert view.sealed is m.sealed
    assert m.platform.settings.max_offers == 2
