"""The authority-boundary and invalid-action gates pass on the frozen suite and catch a platform that lets through."""

from __future__ import annotations

import pytest

from acworld_env.eval.boundary_gates import (
    authority_failures,
    invalid_action_failures,
    malformed_variants,
)
from acworld_env.tasks.suites import load_suite

TASKS = load_suite("capability-v1")
T10 = [t for t in TASKS if t.family.startswith("T10")]


def test_no_impostor_commits_on_any_frozen_task() -> None:
    assert [f for t in TASKS for f in authority_failures(t)] == []


def test_every_malformed_variant_is_a_recorded_rejection() -> None:
    assert [f for t in TASKS for f in invalid_action_failures(t)] == []


def test_the_authority_gate_catches_a_platform_that_trusts_the_wrong_identity(monkeypatch) -> None:
    """A platform that judges every proposal as if the task's own actor made it (identity not bound)."""
    from acworld_env.cip.platform import Platform
    from acworld_env.vcp.base import Role

    real = Platform.validate
    task = next(t for t in T10 if t.role == "buyer")

    def unbound(self, state, envelope, action, **kwargs):
        owner = task.actor
        envelope = envelope.model_copy(update={"actor": owner, "role": Role(state["actors"][owner]["role"])})
        return real(self, state, envelope, action, **kwargs)

    monkeypatch.setattr(Platform, "validate", unbound)
    failures = authority_failures(task)
    assert failures and all("was accepted" in f for f in failures)
    assert any("buyer_1 proposing buyer_0's authorize_payment was accepted and committed" in f for f in failures)


def test_the_invalid_action_gate_catches_a_parser_that_fills_in_defaults(monkeypatch) -> None:
    import acworld_env.market as market

    real = market.parse_action

    def lenient(raw):
        if isinstance(raw, dict) and raw.get("kind", "").endswith("_v2"):
            return real({**raw, "kind": raw["kind"][:-3]})
        return real(raw)

    monkeypatch.setattr(market, "parse_action", lenient)
    failures = [f for t in TASKS[:5] for f in invalid_action_failures(t)]
    assert failures and all("(unknown kind) was accepted" in f for f in failures)


@pytest.mark.parametrize("action", [{"kind": "authorize_payment", "order_id": "ord-1", "amount": 500},
                                    {"kind": "search_listings"}])
def test_malformed_variants_cover_kind_json_shape_and_types(action) -> None:
    labels = [label for label, _ in malformed_variants(action)]
    assert {"unknown kind", "broken JSON", "not an object"} <= set(labels)
    assert ("required fields dropped" in labels) == (action["kind"] == "authorize_payment")


def _world(**tables):
    base = {"actors": {"buyer_0": {"role": "buyer", "balance": 100}, "buyer_1": {"role": "buyer", "balance": 100},
                       "merchant_0": {"role": "merchant", "balance": 0}},
            "orders": {"ord-1": {"buyer": "buyer_0", "merchant": "merchant_0", "status": "open"}},
            "reviews": {"rev-1": {"by": "buyer_1", "flags": []}}}
    base.update(tables)
    return base


def _after(before, edit):
    import copy

    after = copy.deepcopy(before)
    edit(after)
    return after


@pytest.mark.parametrize(("who", "kind", "edit", "why"), [
    ("buyer_1", "cancel_order", lambda s: s["orders"]["ord-1"].update(status="cancelled"),
     "changed buyer_0's orders record ord-1"),
    ("merchant_0", "authorize_payment", lambda s: None, "a merchant may not take authorize_payment"),
    ("intruder", "flag_review", lambda s: None, "unregistered identity"),
    ("buyer_1", "issue_refund", lambda s: s["actors"]["buyer_0"].update(balance=150),
     "a buyer may not take issue_refund"),
    ("buyer_1", "flag_review", lambda s: s["actors"]["buyer_0"].update(balance=0),
     "changed buyer_0's actors record buyer_0"),
])
def test_overreach_names_what_an_accepted_impostor_did(who, kind, edit, why):
    from acworld_env.eval.boundary_gates import _overreach

    before = _world()
    assert why in (_overreach("buyer_0", who, kind, before, _after(before, edit)) or "")


@pytest.mark.parametrize(("who", "kind", "edit"), [
    # a party to the order may cancel it, and the refund moving buyer_0's balance flows from that shared order
    ("merchant_0", "cancel_order", lambda s: (s["orders"]["ord-1"].update(status="cancelled"),
                                              s["actors"]["buyer_0"].update(balance=200))),
    # any buyer may flag a review or order a listing on its own behalf
    ("buyer_1", "flag_review", lambda s: s["reviews"]["rev-1"]["flags"].append({"by": "buyer_1"})),
    ("buyer_1", "place_order", lambda s: s["orders"].update({"ord-2": {"buyer": "buyer_1", "merchant": "merchant_0"}})),
])
def test_acting_on_its_own_authority_is_not_overreach(who, kind, edit):
    from acworld_env.eval.boundary_gates import _overreach

    before = _world()
    assert _overreach("buyer_0", who, kind, before, _after(before, edit)) is None
